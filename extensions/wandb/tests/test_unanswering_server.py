"""Online, a W&B server that is down or never answers is reported in one line within seconds, before
any record is scored (so before any judge call is paid)."""

from __future__ import annotations

import pathlib
import time
from collections.abc import Iterator

import pytest
from evalcore.testing import ScriptedServer, run_evalcore, silent_server

pytest.importorskip("wandb")
pytestmark = pytest.mark.wandb

RAG = pathlib.Path(__file__).resolve().parents[3] / "examples" / "rag.jsonl"


@pytest.fixture
def silent_url() -> Iterator[str]:
    """An http:// address on 127.0.0.1 whose server accepts connections and never answers."""
    with silent_server() as port:
        yield f"http://127.0.0.1:{port}"


def test_a_silent_server_online_is_reported_before_scoring(tmp_path, silent_url):
    env = {"WANDB_BASE_URL": silent_url, "WANDB_API_KEY": "x" * 40, "WANDB_CONFIG_DIR": str(tmp_path / "config"),
           "WANDB_CACHE_DIR": str(tmp_path / "cache"), "WANDB_DATA_DIR": str(tmp_path / "data")}
    with ScriptedServer() as judge:
        start = time.monotonic()
        proc = run_evalcore("evaluate", str(RAG), "-m", "judge/faithfulness", "--judge-base-url", judge.base_url,
                            "--judge-model", "m", "--cache-mode", "off", "--log-to", "wandb", "--wandb-mode",
                            "online", "--wandb-dir", str(tmp_path), "-o", str(tmp_path / "run.json"), env=env,
                            check=False, timeout=120)
        took = time.monotonic() - start
        assert judge.requests == []  # nothing scored, nothing paid
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (f"error: W&B at {silent_url}: no answer within 5 s (is the server reachable, "
                                   "and $WANDB_BASE_URL right?)")
    assert took < 60, took  # W&B waits 90 s to start a run
