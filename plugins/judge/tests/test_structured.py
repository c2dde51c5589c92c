"""Structured judging: the answer's pydantic schema sent as OpenAI structured output, the fallback for
servers that reject it, validation with one repair, and what a row keeps, through the ways users reach it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import evalcore
import pytest
from evalcore.testing import Reply
from evalcore_judge.schemas import (
    AnswerQualityAnswer,
    DecomposedSemanticF1Answer,
    FaithfulnessAnswer,
    LlmJudgeAnswer,
    SemanticF1Answer,
)

EXAMPLE = {"query": "Who wrote Hamlet?", "reference_answer": ["Shakespeare wrote it."]}
PREDICTION = {"response": "William Shakespeare.", "retrieved": [{"doc_id": "r", "text": "Hamlet is by Shakespeare."}]}
USAGE = {"prompt_tokens": 100, "completion_tokens": 20}  # 10 + 10 msats at the default price
REJECTION = {"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
                                  "with this model.", "type": "invalid_request_error", "param": "response_format"}}


def structured_schema(request):
    return request["json"]["response_format"]["json_schema"]


@pytest.mark.parametrize("metric_id, params, model", [
    ("judge/faithfulness", {"scale": "1-5"}, FaithfulnessAnswer.variant("1-5")),
    ("judge/llm_judge", {}, LlmJudgeAnswer),
    ("judge/semantic_f1", {}, SemanticF1Answer),
    ("judge/semantic_f1", {"decompositional": True}, DecomposedSemanticF1Answer),
    ("judge/answer_quality", {"dimensions": ["accuracy", "tone"], "scale": "0-10"},
     AnswerQualityAnswer.variant("0-10", ("accuracy", "tone"))),
])
def test_request_carries_the_answers_json_schema(server, make_metric, metric_id, params, model):
    answer = {"explanation": "fine", **{name: 1 for name in model.score_fields}}
    server.default = lambda request: Reply.chat(json.dumps(answer), usage=USAGE)
    score = make_metric(metric_id, **params).score_one(EXAMPLE, PREDICTION)
    assert score.ok, score.error_message
    sent = server.requests[0]["json"]["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"] == {"name": model.schema_name, "schema": model.model_json_schema(), "strict": True}
    schema = sent["json_schema"]["schema"]
    assert schema["required"] == list(schema["properties"]) == model.keys()
    assert schema["additionalProperties"] is False
    low, high = (float(x) for x in model.score_scale.split("-"))
    assert all(schema["properties"][f]["minimum"] == low and schema["properties"][f]["maximum"] == high
               for f in model.score_fields)
    # the instruction in the prompt names the same keys
    assert all(f'"{key}"' in server.requests[0]["json"]["messages"][0]["content"] for key in model.keys())
    assert score.details["answer_format"] == {next(iter(score.details["answers"])): "json_schema"}
    assert score.details["structured_output"] is True and score.details["repaired"] is False


def test_row_keeps_rationale_raw_answer_model_tokens_and_cost(server, make_metric):
    raw = '{"explanation": "The author is right.", "score": 4}'
    server.script(Reply.chat(raw, usage=USAGE))
    score = make_metric("judge/faithfulness", scale="1-5").score_one(EXAMPLE, PREDICTION)
    assert score.value == 0.75 and score.feedback == "The author is right."
    details = score.details
    assert details["explanation"] == "The author is right." and details["raw_score"] == 4.0
    assert details["answers"] == {"faithfulness": raw} and details["raw_answers"] == {"faithfulness": [raw]}
    assert details["model"] == "judge-model" and details["backend"] == "http"
    assert details["usage"] == USAGE and details["cost_msats"] == score.cost_msats == 20
    assert details["structured_output"] is True and details["repaired"] is False


def test_server_rejecting_response_format_gets_the_schema_in_the_prompt_once_per_client(server, make_metric):
    def no_structured_outputs(request):
        if "response_format" in request:
            return Reply(400, REJECTION)
        return Reply.chat('{"explanation": "supported", "score": 0.5}', usage=USAGE)

    server.default = no_structured_outputs
    metric = make_metric("judge/faithfulness", concurrency=4)
    scores = metric.score_many([dict(EXAMPLE, query=f"q{i}") for i in range(5)], [PREDICTION] * 5)
    assert [s.value for s in scores] == [0.5] * 5
    with_format = [r for r in server.requests if "response_format" in r["json"]]
    assert len(with_format) == 1 and len(server.requests) == 6  # asked once, then remembered
    fallback = server.requests[1]["json"]
    assert "JSON schema" in fallback["messages"][0]["content"]
    assert json.dumps(FaithfulnessAnswer.model_json_schema(), separators=(",", ":")) in fallback["messages"][0][
        "content"]
    assert all(s.details["answer_format"] == {"faithfulness": "instructions"} for s in scores)
    assert all(s.details["structured_output"] is False for s in scores)
    assert metric.critic.backend.client.structured_outputs is False
    assert metric.usage_summary()["calls"] == 5  # the rejected request is not an answered call


def test_a_rejection_not_about_response_format_is_an_error(server, make_metric):
    server.default = lambda request: Reply(400, {"error": {"message": "context length exceeded"}})
    score = make_metric("judge/faithfulness").score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "RequestRejected" and len(server.requests) == 1


def test_invalid_answer_then_valid_repair_scores(server, make_metric):
    invalid = '{"explanation": "too good", "score": 7}'
    server.script(Reply.chat(invalid, usage=USAGE), Reply.chat('{"explanation": "good", "score": 4}', usage=USAGE))
    score = make_metric("judge/faithfulness", scale="1-5").score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.value == 0.75 and score.feedback == "good"
    assert score.details["repaired"] is True and len(server.requests) == 2
    assert score.details["raw_answers"]["faithfulness"] == [invalid, '{"explanation": "good", "score": 4}']
    assert score.cost_msats == 40 and score.details["usage"] == {"prompt_tokens": 200, "completion_tokens": 40}
    first, repair = (r["json"] for r in server.requests)
    assert repair["messages"][:2] == first["messages"]
    assert repair["messages"][2] == {"role": "assistant", "content": invalid}
    assert "less than or equal to 5" in repair["messages"][3]["content"]
    assert repair["response_format"] == first["response_format"]


def test_nan_is_never_a_score(server, make_metric):
    server.script(Reply.chat('{"explanation": "?", "score": NaN}'), Reply.chat('{"explanation": "ok", "score": 1}'))
    score = make_metric("judge/llm_judge").score_one(EXAMPLE, PREDICTION)
    assert score.value == 1.0 and score.details["repaired"] is True
    assert "finite number" in server.requests[1]["json"]["messages"][-1]["content"]


RECORDS = [{"id": f"r{i}", "example": {"query": f"question {i}"}, "prediction": {"response": f"answer {i}"}}
           for i in range(3)]


def evaluate(data, server, samples, *flags):
    """``evalcore evaluate data -m judge/llm_judge --judge-base-url URL --judge-model m --json`` in a fresh
    process; its JSON report and the rows of its samples journal."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EVALCORE_", "OPENAI_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "evalcore", "evaluate", str(data), "-m", "judge/llm_judge", "--judge-base-url",
         server.base_url, "--judge-model", "m", "--json", "--samples", str(samples), *flags],
        capture_output=True, text=True, env=environ, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    rows = {line["id"]: line["scores"]["judge/llm_judge"] for line in lines if "scores" in line}
    return json.loads(proc.stdout), rows


@pytest.fixture
def records(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


def test_two_invalid_answers_are_an_error_row_with_both_raw_answers(server, records, tmp_path):
    def by_question(request):
        if "question 1" in request["messages"][1]["content"]:
            return Reply.chat('{"explanation": "off the scale", "score": 3}' if len(request["messages"]) == 2
                              else "I still think it deserves a 3.", usage=USAGE)
        return Reply.chat('{"explanation": "fine", "score": 0.5}', usage=USAGE)

    server.default = by_question
    report, rows = evaluate(records, server, tmp_path / "rows.jsonl", "--cache-dir", str(tmp_path / "cache"))
    metric = report["metrics"]["judge/llm_judge"]
    assert metric["n"] == 2 and metric["n_errors"] == 1 and metric["value"] == 0.5
    bad = rows["r1"]
    assert bad["status"] == "error" and bad["value"] is None and bad["error"]["type"] == "UnparseableJudgement"
    assert bad["details"]["raw_answers"]["judge"] == ['{"explanation": "off the scale", "score": 3}',
                                                     "I still think it deserves a 3."]
    assert bad["cost_msats"] == 40 and bad["details"]["usage"] == {"prompt_tokens": 200, "completion_tokens": 40}
    assert rows["r0"]["status"] == "ok" and rows["r0"]["details"]["explanation"] == "fine"
    assert rows["r0"]["feedback"] == "fine"
    assert len(server.requests) == 4  # three answers and one repair
    # only validated answers were cached: a second run asks again for r1 alone (and its repair)
    evaluate(records, server, tmp_path / "rows2.jsonl", "--cache-dir", str(tmp_path / "cache"))
    assert len(server.requests) == 6


def test_cached_second_run_makes_no_calls_and_gives_the_same_rows(server, records, tmp_path):
    answers = iter(['{"explanation": "first", "score": 2}', '{"explanation": "repaired", "score": 0.25}'])

    def first_one_needs_a_repair(request):
        if "question 0" in request["messages"][1]["content"]:
            return Reply.chat(next(answers), usage=USAGE)
        return Reply.chat('{"explanation": "fine", "score": 0.5}', usage=USAGE)

    server.default = first_one_needs_a_repair
    cache = ["--cache-dir", str(tmp_path / "cache")]
    first_report, first = evaluate(records, server, tmp_path / "a.jsonl", *cache)
    calls = len(server.requests)
    assert calls == 4 and first["r0"]["details"]["repaired"] is True and first["r0"]["value"] == 0.25
    second_report, second = evaluate(records, server, tmp_path / "b.jsonl", *cache)
    assert len(server.requests) == calls  # no calls
    assert second_report["metrics"]["judge/llm_judge"]["value"] == first_report["metrics"]["judge/llm_judge"]["value"]

    def same(row):
        kept = {k: v for k, v in row.items() if k != "cost_msats"}
        kept["details"] = {k: v for k, v in row["details"].items()
                           if k not in ("cache", "usage", "saved", "cost_msats", "usage_estimated")}
        return kept

    assert {k: same(v) for k, v in second.items()} == {k: same(v) for k, v in first.items()}
    assert all(row["details"]["cache"] == {"hits": 1, "misses": 0} for row in second.values())
    assert second["r0"]["details"]["saved"]["cost_msats"] == 40


def test_callable_judge_gets_the_schema_as_an_instruction(tmp_path):
    seen = []

    def judge(prompt, metadata):
        seen.append((prompt, metadata))
        return {"explanation": "close", "recall": 1, "precision": 0.5}

    metric = evalcore.get_metric("judge/semantic_f1", judge=judge, cache_mode="off")
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == pytest.approx(2 / 3) and score.feedback == "close"
    prompt, metadata = seen[0]
    assert "matches this JSON schema" in prompt and metadata["schema"] == SemanticF1Answer.model_json_schema()
    assert score.details["answer_format"] == {"semantic_f1": "instructions"}
    assert score.details["structured_output"] is False


def test_callable_answer_out_of_range_twice_is_an_error_not_a_number():
    metric = evalcore.get_metric("judge/llm_judge", judge=lambda prompt: 7, scale="1-5", cache_mode="off")
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "UnparseableJudgement" and score.value is None
    assert score.details["raw_answers"]["judge"] == ['{"score": 7}', '{"score": 7}']


def test_budget_holds_room_for_a_repair(server, make_metric):
    server.script(Reply.chat('{"score": 3}', usage=USAGE), Reply.chat('{"score": 1}', usage=USAGE))
    metric = make_metric("judge/llm_judge", cache_mode="off")
    limit = metric.estimate(EXAMPLE, PREDICTION)["cost_msats"]  # room for the first call's worst case only
    budget = evalcore.Budget(limit)
    records = [{"id": "0", "example": EXAMPLE, "prediction": PREDICTION}]
    result = evalcore.evaluate(records, [metric], budget_msats=budget)
    row = result.samples[0]["scores"][metric.id]
    assert row["status"] == "error" and "budget cannot hold another call" in row["error"]["message"]
    assert len(server.requests) == 1 and budget.spent <= limit and budget.reserved == 0


def test_litellm_passes_response_format_through(server, tmp_path, monkeypatch):
    pytest.importorskip("litellm")
    monkeypatch.setenv("LITELLM_KEY", "sk-lite")
    server.script(Reply.chat('{"explanation": "half", "score": 0.5}', usage=USAGE))
    metric = evalcore.get_metric("judge/faithfulness", backend="litellm", model="openai/judge-model",
                                 base_url=server.base_url, api_key_env="LITELLM_KEY", max_retries=0,
                                 cache_dir=str(tmp_path))
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.value == 0.5 and score.details["answer_format"] == {"faithfulness": "json_schema"}
    assert structured_schema(server.requests[0])["schema"] == FaithfulnessAnswer.model_json_schema()
    # a provider that rejects it: the schema in the prompt instead, remembered by the backend
    server.default = lambda request: (Reply(400, REJECTION) if "response_format" in request else
                                      Reply.chat('{"explanation": "ok", "score": 1}', usage=USAGE))
    metric = evalcore.get_metric("judge/faithfulness", backend="litellm", model="openai/judge-model",
                                 base_url=server.base_url, api_key_env="LITELLM_KEY", max_retries=0, cache_mode="off")
    scores = metric.score_many([EXAMPLE, dict(EXAMPLE, query="Who wrote Macbeth?")], [PREDICTION] * 2)
    assert [s.value for s in scores] == [1.0, 1.0] and metric.critic.backend.structured_outputs is False
    assert [("response_format" in r["json"]) for r in server.requests[1:]] == [True, False, False]
    assert scores[0].details["answer_format"] == {"faithfulness": "instructions"}


def test_dspy_asks_through_a_typed_signature(server, monkeypatch):
    dspy = pytest.importorskip("dspy")
    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE", "API_KEY_ENV"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    reply = "[[ ## explanation ## ]]\nmisses nothing\n\n[[ ## score ## ]]\n0.5\n\n[[ ## completed ## ]]"
    server.default = lambda request: Reply.chat(reply, usage={"prompt_tokens": 30, "completion_tokens": 12})
    lm = dspy.LM("openai/judge-model", api_base=server.base_url, api_key="k", cache=False, num_retries=0)
    with dspy.context(lm=lm):  # (semantic_f1 and complete_and_grounded ask DSPy's own signatures: test_dspy_exact)
        metric = evalcore.get_metric("judge/faithfulness", judge="dspy", cache_mode="off")
        score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == 0.5 and score.feedback == "misses nothing"
    assert score.details["answer_format"] == {"faithfulness": "dspy_signature"}
    assert score.details["structured_output"] is True and len(server.requests) == 1
    system = server.requests[0]["json"]["messages"][0]["content"]
    assert "`score` (float)" in system and "`explanation` (str)" in system
    assert score.details["usage"] == {"prompt_tokens": 30, "completion_tokens": 12}
