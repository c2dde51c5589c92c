"""A tracking server that is down or never answers is reported in one line within seconds, before
any record is scored (so before any judge call is paid)."""

from __future__ import annotations

import pathlib
import socket
import time
from collections.abc import Iterator

import pytest
from evalcore.testing import ScriptedServer, run_evalcore, silent_server

pytest.importorskip("mlflow")
pytestmark = pytest.mark.mlflow

RAG = pathlib.Path(__file__).resolve().parents[3] / "examples" / "rag.jsonl"


@pytest.fixture
def silent_uri() -> Iterator[str]:
    """An http:// address on 127.0.0.1 whose server accepts connections and never answers."""
    with silent_server() as port:
        yield f"http://127.0.0.1:{port}"


def closed_uri() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def judged_run(uri: str, tmp_path):
    """``evaluate --log-to mlflow`` with a judge metric against a scripted judge; the judge's requests."""
    with ScriptedServer() as judge:
        start = time.monotonic()
        proc = run_evalcore("evaluate", str(RAG), "-m", "judge/faithfulness", "--judge-base-url", judge.base_url,
                            "--judge-model", "m", "--cache-mode", "off", "--log-to", "mlflow",
                            "-o", str(tmp_path / "run.json"), env={"MLFLOW_TRACKING_URI": uri},
                            check=False, timeout=120)
        took = time.monotonic() - start
        return proc, took, list(judge.requests)


def test_a_silent_tracking_server_is_reported_before_scoring(tmp_path, silent_uri):
    proc, took, judged = judged_run(silent_uri, tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (f"error: MLflow at {silent_uri}: no answer within 5 s (is the tracking server "
                                   "running, and $MLFLOW_TRACKING_URI right?)")
    assert judged == [] and not (tmp_path / "run.json").exists()  # nothing scored, nothing paid
    assert took < 60, took  # MLflow's own settings wait 120 s per request, retried 7 times


def test_an_unreachable_tracking_server_is_reported_before_scoring(tmp_path):
    uri = closed_uri()
    proc, took, judged = judged_run(uri, tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: MLflow at {uri}: cannot connect")
    assert judged == [] and took < 60, took
