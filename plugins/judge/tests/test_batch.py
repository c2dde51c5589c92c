"""``--judge-batch``: the judge's requests through the OpenAI Batch API and Anthropic's Message Batches,
against a server on 127.0.0.1 that implements both (and plain chat completions, for the run to compare)."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
import time

import pytest
from batch_server import BatchServer as _BatchServer
from evalcore.testing import run_evalcore, write_records

RECORDS = [
    {"id": f"r{i}", "example": {"query": f"question {i}"},
     "prediction": {"response": f"answer {i}", "retrieved": [{"doc_id": "d", "text": f"context {i}"}]}}
    for i in range(6)
]
USAGE = {"prompt_tokens": 1000, "completion_tokens": 200}
PRICES = json.dumps({"*": [100, 500]})  # msats per 1000 tokens: a call costs 100 + 100 = 200 msats
FULL_PRICE_MSATS = 200


def verdict(body):
    """The judge's answer to a chat-completions body: record i's response scores (i % 3) / 2."""
    text = json.dumps(body["messages"])
    score = int(re.search(r"answer (\d+)", text).group(1)) % 3 / 2
    return json.dumps({"score": score, "explanation": f"score {score}"}), USAGE


BatchServer = functools.partial(_BatchServer, verdict)


@pytest.fixture
def data(tmp_path):
    return write_records(tmp_path / "records.jsonl", RECORDS)


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("EVALCORE_PRICES", PRICES)
    return {"EVALCORE_PRICES": PRICES}


def command(data, server, folder, *flags):
    """``evalcore evaluate`` of judge/faithfulness at ``server``, its report, rows and cache in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return ["evaluate", str(data), "-m", "judge/faithfulness", "--judge-base-url", server.base_url,
            "--judge-model", "judge-model", "--cache-dir", str(folder / "cache"), "-o", str(folder / "report.json"),
            *flags]


def evaluate(data, server, folder, *flags, env=None):
    run_evalcore(*command(data, server, folder, *flags), env=env)
    return json.loads((folder / "report.json").read_text())


def journal_scores(folder):
    """Each record's score, from the run's rows journal."""
    lines = (folder / "report.rows.jsonl").read_text().splitlines()[1:]
    rows = [json.loads(line) for line in lines]
    return {row["id"]: row["scores"]["judge/faithfulness"] for row in rows if "scores" in row}


def scores(folder):
    """Each record's value, from the run's rows journal."""
    return {rid: score["value"] for rid, score in journal_scores(folder).items()}


def batch_ids(folder):
    """Each record's batch ids by judge question, as its row in the journal keeps them."""
    return {rid: score["details"].get("batches") for rid, score in journal_scores(folder).items()}


EXPECTED = {f"r{i}": i % 3 / 2 for i in range(6)}


def test_batch_run_equals_the_plain_run_at_half_the_price(data, tmp_path, env):
    with BatchServer() as server:
        plain = evaluate(data, server, tmp_path / "plain", env=env)
        assert server.chat_calls == 6 and server.created == []
        batched = evaluate(data, server, tmp_path / "batch", "--judge-batch", "--judge-batch-poll-s", "0.05", env=env)
        assert server.chat_calls == 6 and len(server.created) == 1  # every request in one batch, none sent alone
        assert len(server.batches[server.created[0]]["requests"]) == 6
    assert scores(tmp_path / "plain") == scores(tmp_path / "batch") == EXPECTED
    assert batch_ids(tmp_path / "plain") == dict.fromkeys(EXPECTED)  # no batch, no key
    assert batch_ids(tmp_path / "batch") == {rid: {"faithfulness": server.created} for rid in EXPECTED}
    for report in (plain, batched):
        assert report["metrics"]["judge/faithfulness"]["value"] == pytest.approx(sum(EXPECTED.values()) / 6)
    assert plain["usage"]["cost_msats"] == 6 * FULL_PRICE_MSATS
    assert batched["usage"]["cost_msats"] == 6 * FULL_PRICE_MSATS // 2
    assert batched["provenance"]["budget"]["spent_msats"] == 6 * FULL_PRICE_MSATS // 2


def test_a_killed_run_resumes_polling_the_same_batch(data, tmp_path, env):
    folder = tmp_path / "run"
    with BatchServer(mode="hold") as server:
        process = subprocess.Popen(
            [sys.executable, "-m", "evalcore", *command(data, server, folder, "--judge-batch-poll-s", "0.05")],
            env={**__import__("os").environ, **env, "EVALCORE_JUDGE_BATCH": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 20
            while not server.created and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)  # polling the batch
        finally:
            process.kill()
            process.wait(10)
        assert len(server.created) == 1
        server.mode = "complete"
        report = evaluate(data, server, folder, "--resume", "--judge-batch-poll-s", "0.05",
                          env={**env, "EVALCORE_JUDGE_BATCH": "1"})
        assert len(server.created) == 1 and server.chat_calls == 0  # the same batch, polled again
    assert scores(folder) == EXPECTED
    assert batch_ids(folder) == {rid: {"faithfulness": server.created} for rid in EXPECTED}  # in the journal
    assert report["usage"]["cost_msats"] == 6 * FULL_PRICE_MSATS // 2


def test_an_expired_batch_keeps_its_answers_and_sends_the_rest_again(data, tmp_path, env):
    with BatchServer(mode="expire") as server:
        report = evaluate(data, server, tmp_path, "--judge-batch", "--judge-batch-poll-s", "0.05", env=env)
        first, second = (server.batches[b]["requests"] for b in server.created)
        assert len(server.created) == 2 and server.chat_calls == 0
        assert [cid for cid, _ in second] == [cid for cid, _ in first[3:]]  # only the unanswered half again
        created = list(server.created)
    assert scores(tmp_path) == EXPECTED
    answered_by = sorted(ids["faithfulness"] for ids in batch_ids(tmp_path).values())
    assert answered_by == [[created[0]]] * 3 + [[created[1]]] * 3  # the expired batch answered half
    assert report["usage"]["cost_msats"] == 6 * FULL_PRICE_MSATS // 2


def test_anthropic_message_batches_from_python(tmp_path, monkeypatch, env):
    import evalcore

    for name in [n for n in __import__("os").environ if n.startswith(("EVALCORE_JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(name)
    with BatchServer(mode="expire") as server:
        result = evalcore.evaluate(RECORDS, ["judge/faithfulness"], cache_dir=str(tmp_path / "cache"),
                                   judge={"base_url": server.base_url, "model": "judge-model", "batch": True,
                                          "batch_api": "anthropic", "batch_poll_s": 0.05})
        assert len(server.created) == 2 and all(b.startswith("msgbatch_") for b in server.created)
        assert server.chat_calls == 0
    metric = result.metrics["judge/faithfulness"]
    assert metric.n == 6 and metric.value == pytest.approx(sum(EXPECTED.values()) / 6)
    assert result.usage["cost_msats"] == 6 * FULL_PRICE_MSATS // 2


def test_a_wrong_batch_setting_is_one_line_naming_it(data, tmp_path):
    proc = run_evalcore(*command(data, BatchServerAddress, tmp_path), "--judge-batch", check=False,
                        env={"EVALCORE_JUDGE_BATCH_API": "azure"})
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "judge/faithfulness" in proc.stderr and "'batch_api'" in proc.stderr and "'azure'" in proc.stderr


class BatchServerAddress:
    """A server address nothing is asked at: the run stops at its settings."""

    base_url = "http://127.0.0.1:9/v1"


def test_a_batch_that_answers_nothing_is_an_error_and_only_another_run_sends_it_again(data, tmp_path, env):
    with BatchServer(mode="fail") as server:
        proc = run_evalcore(*command(data, server, tmp_path, "--judge-batch", "--judge-batch-poll-s", "0.05"),
                            env=env, check=False)
        assert len(server.created) == 1 and server.chat_calls == 0
        assert proc.returncode != 0 and "no metric scored any record" in proc.stderr
        rows = [json.loads(line) for line in (tmp_path / "report.rows.jsonl").read_text().splitlines()[1:]]
        errors = [row["scores"]["judge/faithfulness"] for row in rows if "scores" in row]
        assert len(errors) == 6 and all(e["status"] == "error" for e in errors)
        assert all(f"batch {server.created[0]} ended without answering" in json.dumps(e) for e in errors)
        server.mode = "complete"
        evaluate(data, server, tmp_path, "--judge-batch", "--judge-batch-poll-s", "0.05", "--overwrite", env=env)
        assert len(server.created) == 2  # another run sends them again
    assert scores(tmp_path) == EXPECTED


@pytest.mark.parametrize(("value", "batched"), [("1", True), ("true", True), ("0", False), ("off", False)])
def test_the_batch_setting_as_text_from_the_environment(value, batched):
    import evalcore
    from evalcore.plugin import RunContext
    from evalcore_judge.backends import BatchBackend
    from evalcore_judge.config import build_critic

    metric = evalcore.get_metric("judge/faithfulness", base_url="http://127.0.0.1:9/v1", model="m")
    context = RunContext(settings={"judge": {"batch": value}}, environ={"EVALCORE_PRICES": PRICES})
    critic = build_critic(metric.params, context, metric.id)
    assert isinstance(critic.backend, BatchBackend) is batched
    assert critic.prices.price("m").prompt == (50 if batched else 100)  # the batch rate: half of 100
