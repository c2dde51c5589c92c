"""Every fault of an OpenAI-compatible backend becomes a clear result; other samples keep theirs."""

from __future__ import annotations

import time

import pytest
from evalcore.testing import Reply

EXAMPLE = {"query": "Where is the Eiffel Tower?", "reference_answer": "In Paris, France.",
           "relevant_docs": [{"doc_id": "d1", "text": "The Eiffel Tower is in Paris."}]}
PREDICTION = {"response": "It is in Paris.",
              "retrieved": [{"doc_id": "d1", "text": "The Eiffel Tower is in Paris."},
                            {"doc_id": "d2", "text": "Paris is the capital of France."}]}


USAGE = {"prompt_tokens": 100, "completion_tokens": 20}


def test_ok_score_cost_and_details(server, make_metric):
    server.script(Reply.chat('{"score": 0.75, "explanation": "supported"}', usage=USAGE))
    metric = make_metric("judge/faithfulness", prices={"judge-model": (1000, 5000)})
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.value == 0.75 and score.feedback == "supported"
    assert score.cost_msats == 100 + 100  # 100 prompt tokens at 1000/1k, 20 completion at 5000/1k
    request = server.requests[0]["json"]
    assert request["temperature"] == 0.0 and request["seed"] == 0 and request["model"] == "judge-model"
    assert "The Eiffel Tower is in Paris." in request["messages"][1]["content"]
    assert score.details["template_hash"]["faithfulness"] and score.details["usage"] == USAGE
    assert score.details["answers"]["faithfulness"].startswith('{"score"')


def test_rate_limit_with_retry_after_is_retried(server, make_metric):
    server.script(Reply(429, {"error": "rate"}, {"Retry-After": "0.2"}), Reply.chat("Score: 4", usage=USAGE))
    metric = make_metric("judge/faithfulness", scale="1-5")
    start = time.monotonic()
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert time.monotonic() - start >= 0.19
    assert score.ok and score.value == 0.75 and len(server.requests) == 2


def test_server_errors_exhaust_retries_into_error_status(server, make_metric):
    server.script(*[Reply(500, {"error": "down"})] * 3)
    score = make_metric("judge/faithfulness", max_retries=2).score_one(EXAMPLE, PREDICTION)
    assert score.status.value == "error" and score.error_type == "ServerError"
    assert "HTTP 500" in score.error_message and "after 3 attempts" in score.error_message
    assert score.details["response_body"]


def test_timeout_becomes_error(server, make_metric):
    server.script(Reply.chat("0.5", delay=1.0), Reply.chat("0.5", delay=1.0))
    score = make_metric("judge/faithfulness", timeout=0.2, max_retries=1).score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "BackendTimeout" and "0.2 s" in score.error_message


def test_malformed_json_body(server, make_metric):
    server.script(Reply(200, "{this is not json"))
    score = make_metric("judge/faithfulness").score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "MalformedResponse"
    assert score.details["response_body"] == "{this is not json"


def test_missing_usage_is_estimated(server, make_metric):
    server.script(Reply.chat('{"score": 1}', usage=None))
    score = make_metric("judge/faithfulness").score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.details["usage_estimated"] is True
    assert score.details["usage"]["prompt_tokens"] > 0 and score.cost_msats > 0


@pytest.mark.parametrize("answer", ["I think it is quite faithful.", "Score: 3 ... actually Score: 4", "", "7",
                                    '{"score": NaN, "explanation": "?"}'])
def test_unparseable_answer_and_its_repair_are_an_error_with_raw_text(server, make_metric, answer):
    server.script(Reply.chat(answer, usage=USAGE), Reply.chat(answer, usage=USAGE))  # the answer, then the repair
    score = make_metric("judge/faithfulness", scale="1-5").score_one(EXAMPLE, PREDICTION)
    assert score.status.value == "error" and score.value is None
    assert score.error_type == "UnparseableJudgement" and "after one repair" in score.error_message
    assert score.details["answers"]["faithfulness"] == answer
    assert score.details["raw_answers"]["faithfulness"] == [answer, answer]
    assert score.cost_msats == 2 * 20 and len(server.requests) == 2  # both calls were paid for


def test_cut_off_answer_says_so(server, make_metric):
    cut = Reply.chat('{"explanation": "The answer is mostly', usage=USAGE, finish_reason="length")
    server.script(cut, cut)
    score = make_metric("judge/faithfulness", max_tokens=8).score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "UnparseableJudgement" and "cut off at max_tokens=8" in score.error_message


def test_wrong_api_key(server, make_metric, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "wrong")
    server.script(Reply(401, {"error": {"message": "Incorrect API key provided"}}))
    score = make_metric("judge/faithfulness", api_key_env="JUDGE_KEY").score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "AuthenticationError" and "$JUDGE_KEY" in score.error_message
    assert server.requests[0]["headers"]["authorization"] == "Bearer wrong"
    assert len(server.requests) == 1


def test_unreachable_backend(make_metric, server):
    metric = make_metric("judge/faithfulness", base_url="http://127.0.0.1:9/v1", max_retries=1)
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "BackendUnreachable" and "127.0.0.1:9" in score.error_message


def test_some_failures_keep_every_other_result(server, make_metric):
    def by_content(request):
        prompt = request["messages"][1]["content"]
        if "FAIL" in prompt:
            return Reply(400, {"error": "bad request"})
        return Reply.chat('{"score": 0.5}', usage=USAGE)

    server.default = by_content
    predictions = [dict(PREDICTION, response=f"answer {i}" + (" FAIL" if i % 3 == 0 else "")) for i in range(9)]
    scores = make_metric("judge/faithfulness", concurrency=3).score_many([EXAMPLE] * 9, predictions)
    assert [s.status.value for s in scores] == ["error", "ok", "ok"] * 3
    assert all(s.value == 0.5 for s in scores if s.ok)


def test_empty_and_huge_inputs(server, make_metric):
    metric = make_metric("judge/faithfulness", max_input_chars=5000)
    empty = metric.score_one(EXAMPLE, dict(PREDICTION, response="  "))
    assert empty.status.value == "skipped" and "empty" in empty.reason
    no_evidence = metric.score_one(EXAMPLE, {"response": "x"})
    assert no_evidence.status.value == "skipped" and "prediction.retrieved" in no_evidence.reason
    huge = metric.score_one(EXAMPLE, dict(PREDICTION, response="x" * 10_000))
    assert huge.error_type == "InputError" and "max_input_chars=5000" in huge.error_message
    assert server.requests == []
