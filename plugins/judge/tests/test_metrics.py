"""Each judge metric end to end over HTTP: prompts, combination, DSPy mode, cache, estimates."""

from __future__ import annotations

import json

import evalcore
import pytest
from evalcore.testing import Reply, heavy_modules_after_listing

EXAMPLE = {"query": "Who wrote Hamlet?", "reference_answer": ["Shakespeare wrote it."],
           "relevant_docs": [{"doc_id": "r", "text": "Hamlet is a tragedy by William Shakespeare."}]}
PREDICTION = {"response": "William Shakespeare.", "retrieved": [{"doc_id": "r", "text": "Hamlet is by Shakespeare."}]}
USAGE = {"prompt_tokens": 50, "completion_tokens": 10}


def answering(mapping):
    """A default reply picking the answer by the metric's system prompt."""
    def reply(request):
        system = request["messages"][0]["content"]
        for needle, answer in mapping.items():
            if needle in system:
                return Reply.chat(json.dumps(answer), usage=USAGE)
        return Reply(400, {"error": "unexpected prompt"})
    return reply


def test_answer_quality_weighted_dimensions(server, make_metric):
    server.script(Reply.chat('{"relevance": 5, "helpfulness": 3, "clarity": 1, "explanation": "ok"}', usage=USAGE))
    metric = make_metric("judge/answer_quality", scale="1-5", weights={"relevance": 2, "helpfulness": 1, "clarity": 1})
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == pytest.approx((2 * 1.0 + 0.5 + 0.0) / 4)
    assert score.details["dimensions"] == {"relevance": 1.0, "helpfulness": 0.5, "clarity": 0.0}
    assert "relevance, helpfulness, clarity" in server.requests[0]["json"]["messages"][0]["content"]


def test_answer_quality_rejects_unknown_weights(make_metric):
    with pytest.raises(ValueError, match="weights name dimensions"):
        make_metric("judge/answer_quality", weights={"style": 1})


def test_semantic_f1_and_dspy_threshold(server, make_metric):
    server.default = answering({"recall and precision": {"recall": 0.5, "precision": 1.0}})
    metric = make_metric("judge/semantic_f1")
    assert metric.spec.pass_threshold == 0.66
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == pytest.approx(2 / 3) and score.details["precision"] == 1.0
    assert metric(EXAMPLE, PREDICTION) == pytest.approx(2 / 3)
    assert metric(EXAMPLE, PREDICTION, trace=[]) is True
    strict = make_metric("judge/semantic_f1", threshold=0.7)
    assert strict(EXAMPLE, PREDICTION, trace=[]) is False


def test_semantic_f1_decompositional_prompt(server, make_metric):
    server.default = answering({"key ideas": {"recall": 0, "precision": 0, "discussion": "none shared"}})
    metric = make_metric("judge/semantic_f1", decompositional=True)
    assert metric.id == "judge/semantic_f1(decompositional=True)"
    assert metric.score_one(EXAMPLE, PREDICTION).value == 0.0
    assert "ground_truth_key_ideas" in server.requests[0]["json"]["messages"][1]["content"]


def test_complete_and_grounded_two_calls(server, make_metric):
    server.default = answering({"completeness": {"completeness": 1.0}, "groundedness": {"groundedness": 0.5}})
    score = make_metric("judge/complete_and_grounded").score_one(EXAMPLE, PREDICTION)
    assert score.value == pytest.approx(2 / 3) and len(server.requests) == 2
    assert score.details["completeness"] == 1.0 and score.details["groundedness"] == 0.5
    assert score.cost_msats == 2 * (5 + 5)  # default price: 100 / 500 msats per 1000 tokens


def test_complete_and_grounded_one_call_failing(server, make_metric):
    server.default = answering({"completeness": {"completeness": 1.0}})
    score = make_metric("judge/complete_and_grounded", max_retries=0).score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "RequestRejected" and score.cost_msats == 10  # the completed call is kept


def test_llm_judge_system_prompt_criteria_explanation(server, make_metric):
    server.script(Reply.chat('{"score": 0.9, "explanation": "Correct author."}', usage=USAGE))
    metric = make_metric("judge/llm_judge", system_prompt="You review trivia answers.",
                         criteria=["Correctness", "Brevity"])
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == 0.9 and score.details["explanation"] == "Correct author."
    system, user = (m["content"] for m in server.requests[0]["json"]["messages"])
    assert system.startswith("You review trivia answers.") and "- Brevity" in system
    assert "Reference:\nShakespeare wrote it." in user


def test_diff_semantic_field(server, make_metric):
    server.script(Reply.chat('{"score": 1, "explanation": "same"}', usage=USAGE))
    metric = make_metric("judge/diff_semantic", field="output.answer")
    score = metric.score_one(EXAMPLE, {"output": {"answer": "It was Shakespeare."}})
    assert score.value == 1.0
    assert "Actual:\nIt was Shakespeare." in server.requests[0]["json"]["messages"][1]["content"]
    assert metric.score_one(EXAMPLE, {"response": "x"}).status.value == "skipped"


def test_second_run_is_served_from_cache(server, make_metric):
    server.default = answering({"supported by the evidence": {"score": 0.6}})
    examples = [dict(EXAMPLE, query=f"q{i}") for i in range(5)]
    first_metric = make_metric("judge/faithfulness")
    first = first_metric.score_many(examples, [PREDICTION] * 5)
    calls = len(server.requests)
    assert calls == 5 and first_metric.usage_summary()["calls"] == 5
    second_metric = make_metric("judge/faithfulness")
    second = second_metric.score_many(examples, [PREDICTION] * 5)
    assert len(server.requests) == calls  # zero HTTP calls
    assert [s.value for s in second] == [s.value for s in first]
    assert all(s.details["cache"] == {"hits": 1, "misses": 0} and s.cost_msats == 0 for s in second)
    assert second[0].details["saved"] == {"prompt_tokens": 50, "completion_tokens": 10, "cost_msats": 10}
    summary = second_metric.usage_summary()
    assert summary["calls"] == 0 and summary["cache"]["hits"] == 5
    assert summary["cache"]["saved_cost_msats"] == 50 and summary["cache"]["saved_prompt_tokens"] == 250
    # refresh asks again; readonly does not write; a different model is a different key
    make_metric("judge/faithfulness", cache="refresh").score_many(examples[:2], [PREDICTION] * 2)
    assert len(server.requests) == calls + 2
    make_metric("judge/faithfulness", model="other", cache="readonly").score_many(examples[:1], [PREDICTION])
    make_metric("judge/faithfulness", model="other", cache="readonly").score_many(examples[:1], [PREDICTION])
    assert len(server.requests) == calls + 4


def test_estimate_for_budgets(server, make_metric):
    server.default = answering({"supported by the evidence": {"score": 0.6}})
    metric = make_metric("judge/faithfulness", max_tokens=100, prices={"judge-model": (1000, 2000)})
    estimate = metric.estimate(EXAMPLE, PREDICTION)
    assert estimate["calls"] == 1 and estimate["completion_tokens"] == 100
    assert estimate["prompt_tokens"] > 50
    assert estimate["cost_msats"] == estimate["prompt_tokens"] + 200
    metric.score_one(EXAMPLE, PREDICTION)
    assert metric.estimate(EXAMPLE, PREDICTION) == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                                    "cost_msats": 0}
    assert make_metric("judge/complete_and_grounded").estimate(EXAMPLE, PREDICTION)["calls"] == 2
    assert server.requests and len(server.requests) == 1


def test_callable_backend_and_seed_critic(tmp_path):
    import evalcore
    from evalcore_judge import CallableBackend, LLMCritic

    seen = []

    def judge(prompt, metadata):
        seen.append(metadata["role"])
        return 4

    metric = evalcore.get_metric("judge/llm_judge", judge=judge, scale="1-5", cache="off")
    assert metric.score_one(EXAMPLE, PREDICTION).value == 0.75 and seen == ["judge"]

    async def async_judge(prompt):
        return "Score: 0.3"

    critic = LLMCritic(CallableBackend(async_judge))
    assert critic.score(prompt="rate this") == pytest.approx(0.3)
    metric = evalcore.get_metric("judge/faithfulness", judge=critic)
    assert metric.critic is critic and metric.score_one(EXAMPLE, PREDICTION).value == pytest.approx(0.3)


def test_configuration_from_environment(server, monkeypatch, tmp_path):
    import evalcore

    monkeypatch.setenv("EVALCORE_JUDGE_BASE_URL", server.base_url)
    monkeypatch.setenv("EVALCORE_JUDGE_MODEL", "env-model")
    monkeypatch.setenv("EVALCORE_JUDGE_API_KEY_ENV", "ENV_JUDGE_KEY")
    monkeypatch.setenv("ENV_JUDGE_KEY", "k-123")
    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path))
    score = evalcore.get_metric("judge/faithfulness").score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.details["model"] == "env-model"
    assert server.requests[0]["json"]["model"] == "env-model"
    assert server.requests[0]["headers"]["authorization"] == "Bearer k-123"
    monkeypatch.setenv("EVALCORE_JUDGE_CALLABLE", "json:loads")
    monkeypatch.setenv("EVALCORE_JUDGE_BACKEND", "callable")
    # code named in the environment is imported only when the run allows it
    with pytest.raises(evalcore.ParameterError, match=r"parameter 'judge': 'json:loads' names Python code"):
        evalcore.get_metric("judge/faithfulness")
    result = evalcore.evaluate([{"example": EXAMPLE, "prediction": PREDICTION}], ["judge/faithfulness"],
                               allow_code=True, cache_mode="off")
    assert result.metrics["judge/faithfulness"].n_errors == 1  # json.loads judged (and its answer is no text)


def test_missing_configuration_is_a_clear_error(monkeypatch):
    import evalcore

    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(evalcore.SetupError, match=r"^judge/faithfulness: parameter 'backend': no judge backend"):
        evalcore.get_metric("judge/faithfulness")
    with pytest.raises(evalcore.SetupError, match=r"judge/faithfulness: parameter 'model': .*does not exist"):
        evalcore.get_metric("judge/faithfulness", backend="transformers", model="/nonexistent/model")
    with pytest.raises(evalcore.SetupError, match=r"judge/semantic_f1: parameter 'model'"):
        evalcore.get_metric("judge/semantic_f1", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(evalcore.SetupError, match=r"judge/llm_judge: parameter 'judge': .*not-a-judge"):
        evalcore.get_metric("judge/llm_judge", judge="not-a-judge")


def test_openai_base_url_and_key_from_the_environment(server, monkeypatch):
    import evalcore

    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE", "API_KEY_ENV"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("EVALCORE_JUDGE_MODEL", "env-model")
    score = evalcore.get_metric("judge/faithfulness", cache="off").score_one(EXAMPLE, PREDICTION)
    assert score.ok and server.requests[0]["headers"]["authorization"] == "Bearer sk-env"
    assert server.requests[0]["json"]["model"] == "env-model"


def test_specs_and_listing_stay_light():
    assert [k for k in evalcore.metric_keys() if k.startswith("judge/")] == sorted(
        f"judge/{n}" for n in ("agent_goal_accuracy", "answer_quality", "answer_relevancy",
                               "answer_statement_relevancy", "argument_correctness", "bias", "claim_faithfulness",
                               "complete_and_grounded", "context_precision", "context_recall",
                               "conversation_completeness", "conversation_goal_accuracy", "conversation_relevancy",
                               "custom", "diff_semantic", "faithfulness", "g_eval", "hallucination",
                               "knowledge_retention", "llm_judge", "multimodal_faithfulness", "multimodal_relevance",
                               "pairwise", "pii_leakage", "plan_adherence", "plan_quality", "prompt_injection",
                               "role_adherence",
                               "semantic_f1", "sql_equivalence", "step_efficiency", "summarization",
                               "task_completion", "tool_selection", "topic_adherence", "toxicity",
                               "trajectory_accuracy"))
    assert heavy_modules_after_listing("evalcore_judge", ("httpx", "openai", "aiohttp", "torch", "numpy")) == []
    spec = evalcore.describe("judge/faithfulness")
    spec = getattr(spec, "spec", spec)
    assert spec.tier.value == "truth" and spec.cost_msats > 0 and "OPENAI_API_KEY" in spec.env
