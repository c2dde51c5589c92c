"""A judge that is down, busy or silent costs seconds, not minutes: through ``evalcore evaluate``
against real sockets on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from evalcore.testing import Reply, ScriptedServer, run_evalcore, silent_server

RAG = "examples/rag.jsonl"  # 12 records; the tests run from the repository root
ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers them."""
    with silent_server() as port:
        yield port


def evaluate(base_url: str, tmp_path, *flags: str):
    """``evalcore evaluate examples/rag.jsonl -m judge/faithfulness`` against ``base_url``, timed."""
    start = time.monotonic()
    proc = run_evalcore("evaluate", str(ROOT / RAG), "-m", "judge/faithfulness", "--judge-base-url", base_url,
                        "--judge-model", "m", "--cache-mode", "off", "-o", str(tmp_path / "run.json"), *flags,
                        check=False, timeout=60)
    return proc, time.monotonic() - start


def errors_of(tmp_path) -> list[dict]:
    rows = [json.loads(line) for line in (tmp_path / "run.rows.jsonl").read_text().splitlines()]
    scores = [row["scores"]["judge/faithfulness"] for row in rows if "scores" in row]
    return [score["error"] for score in scores if "error" in score]


def test_unreachable_judge_ends_the_metric_within_seconds(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    proc, took = evaluate(url, tmp_path)
    assert took < 15, took  # it took 72 s when every record retried for itself
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"gave up on {url}: 3 attempts in a row got no answer" in proc.stdout
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("error:")
    errors = errors_of(tmp_path)
    assert len(errors) == 12 and {e["type"] for e in errors} == {"BackendUnreachable"}
    assert all("cannot connect to" in e["message"] for e in errors)  # the cause stays in every row


def test_silent_judge_is_given_up_within_the_sample_time_limit(tmp_path, silent_port):
    # 8 records at once, so 4 wait behind them for the client to give up
    proc, took = evaluate(f"http://127.0.0.1:{silent_port}/v1", tmp_path, "--timeout-s", "2", "--concurrency", "8")
    assert took < 15, took  # at the judge's default, 60 s per record
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    errors = errors_of(tmp_path)
    # the records queued behind the first reach the run's limit; the rest are refused at once
    assert len(errors) == 12 and {e["type"] for e in errors} <= {"BackendTimeout", "BackendUnreachable", "TimeoutError"}
    assert "(after 2 attempts; no time left to retry within the 2 s limit)" in errors[0]["message"]
    given_up = [e["message"] for e in errors if "3 attempts in a row got no answer" in e["message"]]
    assert given_up and "did not answer within 1 s" in given_up[-1]  # a first attempt has half of 2 s


def test_silent_once_then_answering_is_retried_within_the_time_limit(tmp_path):
    with ScriptedServer() as server:
        # the first attempt gets half of the 6 s (3 s, less than the silent reply's 5 s), the retry the rest:
        # room for a busy machine
        server.script(Reply.chat('{"score": 1, "explanation": "late"}', delay=5))
        proc, took = evaluate(server.base_url, tmp_path, "--timeout-s", "6")
    assert proc.returncode == 0, proc.stderr
    assert took < 20, took
    assert errors_of(tmp_path) == [] and len(server.requests) == 13  # the silent one was asked again


@pytest.mark.parametrize("busy", [Reply(429, {"error": "slow down"}, {"Retry-After": "1"}),
                                  Reply(500, {"error": "overloaded"})], ids=["429", "500"])
def test_busy_judge_is_retried_within_the_time_limit(tmp_path, busy):
    with ScriptedServer() as server:
        server.script(busy, busy)
        proc, took = evaluate(server.base_url, tmp_path, "--timeout-s", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    assert took < 15, took
    result = json.loads(proc.stdout)
    assert result["metrics"]["judge/faithfulness"]["n"] == 12 and errors_of(tmp_path) == []
    assert len(server.requests) == 14
    if busy.status == 429:  # Retry-After honoured: the second request waited a second after the first
        first, second = server.requests[0]["at"], server.requests[1]["at"]
        assert second - first >= 0.95


def test_retry_after_past_the_time_limit_fails_at_once_saying_so(tmp_path):
    with ScriptedServer() as server:
        server.script(Reply(429, {"error": "slow down"}, {"Retry-After": "30"}))
        proc, took = evaluate(server.base_url, tmp_path, "--timeout-s", "3")
    assert took < 10, took
    errors = errors_of(tmp_path)
    assert len(errors) == 1 and errors[0]["type"] == "RateLimited"
    assert "no time left to retry within the 3 s limit" in errors[0]["message"]
