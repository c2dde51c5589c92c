"""budget_msats holds against a backend that reports more usage than the call was allowed."""

from __future__ import annotations

import json

import evalcore
import pytest
from evalcore.testing import Reply

EXAMPLE = {"query": "Who wrote Hamlet?", "reference_answer": ["Shakespeare wrote it."],
           "relevant_docs": [{"doc_id": "r", "text": "Hamlet is a tragedy by William Shakespeare."}]}
PRICES = {"judge-model": (1000, 2000)}  # msats per 1000 prompt / completion tokens


def over_reporting(prompt_tokens, completion_tokens):
    def reply(request):
        return Reply.chat(json.dumps({"score": 1, "explanation": "ok"}),
                          usage={"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens})
    return reply


def records(n):
    return [{"id": str(i), "example": EXAMPLE, "prediction": {"response": f"William Shakespeare, answer {i}."}}
            for i in range(n)]


@pytest.mark.parametrize("concurrency", [1, 8, 32])
@pytest.mark.parametrize("usage", [(50_000, 5_000), (10, 100_000)], ids=["prompt-over", "completion-over"])
def test_budget_never_exceeded_when_usage_is_over_reported(server, make_metric, concurrency, usage):
    server.default = over_reporting(*usage)
    metric = make_metric("judge/llm_judge", max_tokens=64, prices=PRICES, cache="off")
    worst_case = metric.estimate(EXAMPLE, records(1)[0]["prediction"])["cost_msats"]
    assert worst_case > 0
    limit = 5 * worst_case + worst_case // 2
    budget = evalcore.Budget(limit)
    result = evalcore.evaluate(records(12), [metric], budget_msats=budget, concurrency=concurrency)
    scored = sum(row["scores"][metric.id]["status"] == "ok" for row in result.samples)
    assert budget.spent <= limit and budget.reserved == 0
    assert 1 <= scored <= 5 and len(server.requests) == scored
    assert budget.overrun_calls == scored and budget.overrun_msats > 0
    # each scored sample reported far more than its reservation; none was charged beyond it
    assert all(row["scores"][metric.id].get("cost_msats", 0) > worst_case
               for row in result.samples if row["scores"][metric.id]["status"] == "ok")


def test_max_tokens_is_the_hard_cap_sent_to_the_backend(server, make_metric):
    server.default = over_reporting(10, 5)
    metric = make_metric("judge/llm_judge", max_tokens=64, prices=PRICES, cache="off")
    estimate = metric.estimate(EXAMPLE, records(1)[0]["prediction"])
    metric.score_one(EXAMPLE, records(1)[0]["prediction"])
    assert server.requests[0]["json"]["max_tokens"] == 64 == estimate["completion_tokens"]
    assert estimate["cost_msats"] == pytest.approx(estimate["prompt_tokens"] * 1 + 64 * 2, abs=1)
