"""G-Eval (``judge/g_eval``) against DeepEval's ``GEval``.

DeepEval (through its own OpenAI model class) and evalcore call one scripted OpenAI-compatible
server on 127.0.0.1, which answers:

* evaluation steps: ``["Check the answer.", "Compare with the question."]``;
* the form: ``{"reason": "oracle S", "score": S}`` with S = words of the actual output mod 11,
  and, where the request asks for log probabilities and the server is set to give them, the
  answer's tokens with the score token S twice (in the reason, then as the score) and, at the
  score, top alternatives S: 0.6, S+1: 0.25, S+2: 0.1, ``x``: 0.04 (not a number) and S+3: 0.005
  (under 1%), all mod 11; at the earlier S token, a different distribution (DeepEval uses the
  last one).
"""

from __future__ import annotations

import json
import math
import re

import evalcore
import pytest
from chat_messages import message_text
from evalcore.plugin import ParameterError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge.geval import weighted_score

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
STEPS = ["Check the answer.", "Compare with the question."]


def alternatives(score, probabilities):
    return [{"token": str(token), "logprob": math.log(p), "bytes": None} for token, p in probabilities]


def form_logprobs(score):
    head = [{"token": '{"reason": "oracle ', "logprob": -0.1, "bytes": None, "top_logprobs": []},
            {"token": str(score), "logprob": -0.2, "bytes": None,
             "top_logprobs": alternatives(score, [(score, 0.5), ((score + 4) % 11, 0.5)])},
            {"token": '", "score": ', "logprob": -0.1, "bytes": None, "top_logprobs": []}]
    at_score = [(score, 0.6), ((score + 1) % 11, 0.25), ((score + 2) % 11, 0.1), ("x", 0.04),
                ((score + 3) % 11, 0.005)]
    return [*head, {"token": str(score), "logprob": math.log(0.6), "bytes": None,
                    "top_logprobs": alternatives(score, at_score)},
            {"token": "}", "logprob": -0.01, "bytes": None, "top_logprobs": []}]


class Oracle:
    """The scripted judge; ``logprobs`` says whether it gives log probabilities when asked."""

    def __init__(self):
        self.logprobs = True

    def __call__(self, request):
        text = "\n".join(message_text(m) for m in request["messages"])
        if "concise evaluation steps" in text:
            return Reply.chat(json.dumps({"steps": STEPS}), usage=USAGE)
        actual = text.split("Actual Output:\n", 1)[1].split(" \n\n", 1)[0]
        score = len(actual.split()) % 11
        body = {"id": "x", "object": "chat.completion", "model": "m", "usage": {**USAGE, "total_tokens": 15},
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": json.dumps({"reason": f"oracle {score}", "score": score})}}]}
        if self.logprobs and request.get("logprobs"):
            body["choices"][0]["logprobs"] = {"content": form_logprobs(score)}
        return Reply(200, body)


@pytest.fixture(scope="module")
def oracle():
    judge = Oracle()
    with ScriptedServer(judge, max_requests=100_000) as server:
        server.oracle = judge
        yield server


def deepeval_geval(server, samples, **options):
    pytest.importorskip("deepeval")
    from deepeval.metrics import GEval
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase, SingleTurnParams

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = GEval(name="correctness", model=model, async_mode=False,
                   evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT], **options)
    return [metric.measure(LLMTestCase(input=query, actual_output=response)) for query, response in samples]


def evalcore_geval(server, samples, **params):
    params = {"cache_mode": "off", **params} if "cache_dir" not in params else params
    metric = evalcore.get_metric("judge/g_eval", base_url=server.base_url, model="m", **params)
    return [metric.score_one({"query": query}, {"response": response}) for query, response in samples]


SAMPLES = [("What is the capital of France?", "Paris."),
           ("Who wrote Hamlet?", "William Shakespeare wrote it around 1600."),
           ("Name a prime.", "Seven is a prime number and so is eleven, but nine is not one.")]


@pytest.mark.parametrize("logprobs", [True, False])
@pytest.mark.parametrize("options", [{"criteria": "Is the actual output correct for the input?"},
                                     {"evaluation_steps": STEPS}])
def test_same_number_as_deepeval(oracle, logprobs, options):
    oracle.oracle.logprobs = logprobs
    before = len(oracle.requests)
    theirs = deepeval_geval(oracle, SAMPLES, **options)
    their_calls = len(oracle.requests) - before
    before = len(oracle.requests)
    ours = evalcore_geval(oracle, SAMPLES, **options)
    assert [s.value for s in ours] == theirs
    # the steps once per metric instance (none when given), then one form per sample
    assert len(oracle.requests) - before == their_calls == len(SAMPLES) + ("criteria" in options)
    assert all(s.details["evaluation_steps"] == STEPS for s in ours)
    assert all(s.details["logprobs_returned"] == logprobs for s in ours)
    if not logprobs:  # the plain score: words of the response mod 11, over 10
        assert [s.value for s in ours] == [len(r.split()) % 11 / 10 for _, r in SAMPLES]


def test_top_logprobs_zero_asks_for_none(oracle):
    oracle.oracle.logprobs = True
    before = len(oracle.requests)
    ours = evalcore_geval(oracle, SAMPLES[:1], evaluation_steps=STEPS, top_logprobs=0)
    assert "logprobs" not in oracle.requests[before]["json"]
    assert ours[0].value == 0.1 and ours[0].details["weighted_score"] == 1.0


# -- DeepEval's weighting, by hand ------------------------------------------------------------------------


def token(text, probabilities):
    return {"token": text, "logprob": -0.1, "top_logprobs": [{"token": t, "logprob": math.log(p)}
                                                              for t, p in probabilities]}


@pytest.mark.parametrize(("raw", "logprobs", "expected"), [
    (7, None, 7),                                                            # no log probabilities: raw
    (7, [token("7", [("7", 0.6), ("8", 0.4)])], (7 * 0.6 + 8 * 0.4) / (0.6 + 0.4)),
    (7, [token("7", [("7", 0.5), ("x", 0.3), ("9", 0.005)])], 7.0),         # non-numbers and < 1% dropped
    (7, [token("3", [("3", 1.0)])], 7),                                      # no score token: raw
    (7, [token("7", [("x", 1.0)])], 7),                                      # nothing left: raw
    (7, [token("7", [("1", 1.0)]), token("7", [("10", 0.5), ("7", 0.5)])], 8.5),  # the last score token
])
def test_weighted_score_hand_worked(raw, logprobs, expected):
    assert weighted_score(raw, logprobs) == pytest.approx(expected, rel=1e-15)


def test_weighted_score_equals_deepeval():
    pytest.importorskip("deepeval")
    from deepeval.metrics.g_eval.utils import calculate_weighted_summed_score
    from openai.types.chat import ChatCompletion

    for score in range(11):
        content = form_logprobs(score)
        completion = ChatCompletion.model_validate({
            "id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": {"content": content},
                         "message": {"role": "assistant", "content": "{}"}}]})
        assert weighted_score(score, content) == calculate_weighted_summed_score(score, completion)


# -- parameters and inputs --------------------------------------------------------------------------------


@pytest.mark.parametrize(("params", "name"), [({}, "criteria"), ({"criteria": " "}, "criteria"),
                                              ({"evaluation_steps": []}, "evaluation_steps"),
                                              ({"criteria": "c", "fields": ["answer"]}, "fields")])
def test_bad_parameters_name_themselves(params, name):
    with pytest.raises(ParameterError, match=name):
        evalcore.get_metric("judge/g_eval", judge=lambda prompt: "{}", **params)


def test_missing_field_skips_before_any_call():
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    metric = evalcore.get_metric("judge/g_eval", judge=judge, criteria="c", fields=["query", "response", "reference"],
                                 cache_mode="off")
    score = metric.score_one({"query": "q"}, {"response": "r"})
    assert score.status == "skipped" and "reference_answer" in score.reason
    assert metric.score_one({"query": "q"}, {"response": " "}).status == "skipped"


def test_fields_reach_the_form_as_deepeval_names_them():
    prompts = []

    def judge(prompt, metadata):
        prompts.append(prompt)
        return json.dumps({"reason": "r", "score": 10})

    metric = evalcore.get_metric("judge/g_eval", judge=judge, evaluation_steps=["s"], cache_mode="off",
                                 fields=["query", "response", "reference", "retrieved"])
    score = metric.score_one({"query": "q?", "reference_answer": "ref"},
                             {"response": "ans", "retrieved": [{"doc_id": "d", "text": "ctx"}]})
    assert score.value == 1.0
    assert "Input:\nq? \n\nActual Output:\nans \n\nExpected Output:\nref \n\nRetrieval Context:\n['ctx'] \n\n" \
        in prompts[0]
    assert "Input, Actual Output, Expected Output, and Retrieval Context" in prompts[0]


# -- through the command line ----------------------------------------------------------------------------


def test_cli_g_eval(oracle, tmp_path):
    oracle.oracle.logprobs = True
    records = [{"id": f"r{i}", "example": {"query": q}, "prediction": {"response": r}}
               for i, (q, r) in enumerate(SAMPLES)]
    path = write_records(tmp_path / "records.jsonl", records)
    before = len(oracle.requests)
    out = run_evalcore("evaluate", str(path), "-m", "judge/g_eval(criteria='Is the actual output correct?')",
                       "--judge-base-url", oracle.base_url, "--judge-model", "m", "--cache-dir", str(tmp_path / "c"),
                       "--json", "--samples", str(tmp_path / "rows.jsonl"))
    report = json.loads(out.stdout)
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    theirs = deepeval_geval(oracle, SAMPLES, criteria="Is the actual output correct?")
    (metric_id,) = [m for m in report["metrics"] if m.startswith("judge/g_eval")]
    assert [rows[f"r{i}"][metric_id]["value"] for i in range(len(SAMPLES))] == theirs
    steps_calls = [r for r in oracle.requests[before:] if "concise evaluation steps" in
                   "".join(message_text(m) for m in r["json"]["messages"])]
    assert len(steps_calls) == 2  # one from evalcore's run, one from DeepEval
    assert re.search(r"g_eval", metric_id)


def test_estimates_count_the_steps_until_they_are_made():
    answers = iter([json.dumps({"steps": STEPS}), json.dumps({"reason": "r", "score": 5})])
    metric = evalcore.get_metric("judge/g_eval", judge=lambda prompt: next(answers), criteria="c", cache_mode="off")
    example, prediction = {"query": "q"}, {"response": "r"}
    assert metric.estimate(example, prediction)["calls"] == 2
    assert metric.score_one(example, prediction).value == 0.5
    assert metric.estimate(example, prediction)["calls"] == 1  # the steps are kept
    given = evalcore.get_metric("judge/g_eval", judge=lambda prompt: "{}", evaluation_steps=STEPS, cache_mode="off")
    assert given.estimate(example, prediction)["calls"] == 1


def test_cached_answers_keep_their_log_probabilities(oracle, tmp_path):
    oracle.oracle.logprobs = True
    first = evalcore_geval(oracle, SAMPLES, evaluation_steps=STEPS, cache_dir=str(tmp_path / "cache"))
    before = len(oracle.requests)
    again = evalcore_geval(oracle, SAMPLES, evaluation_steps=STEPS, cache_dir=str(tmp_path / "cache"))
    assert len(oracle.requests) == before  # every answer from the cache
    assert [s.value for s in again] == [s.value for s in first]
    assert all(s.details["logprobs_returned"] and s.value != s.details["raw_score"] / 10 for s in again)


RUBRIC = [{"score_range": [4, 5], "expected_outcome": "correct and complete"},
          {"score_range": [0, 1], "expected_outcome": "wrong"},
          {"score_range": [2, 3], "expected_outcome": "partly right"}]


@pytest.mark.parametrize("logprobs", [True, False])
def test_rubric_same_number_as_deepeval(oracle, logprobs):
    pytest.importorskip("deepeval")
    from deepeval.metrics.g_eval import Rubric

    oracle.oracle.logprobs = logprobs
    samples = [("q?", "one"), ("q?", "one two three"), ("q?", "one two three four five")]
    theirs = deepeval_geval(oracle, samples, evaluation_steps=STEPS,
                            rubric=[Rubric(score_range=tuple(r["score_range"]), expected_outcome=r["expected_outcome"])
                                    for r in RUBRIC])
    before = len(oracle.requests)
    ours = evalcore_geval(oracle, samples, evaluation_steps=STEPS, rubric=RUBRIC)
    # within [0, 1] the same; DeepEval's weighted 5 (alternatives 6 and 7, outside the rubric) gives
    # 1.0947..., evalcore keeps the score within the rubric's range
    assert [s.value for s in ours] == [min(t, 1.0) for t in theirs]
    assert (theirs[2] > 1) == logprobs
    form = "\n".join(message_text(m) for m in oracle.requests[before]["json"]["messages"])
    assert "Rubric:\n0-1: wrong\n2-3: partly right\n4-5: correct and complete\n" in form  # sorted, as DeepEval
    assert "an integer between 0 and 5" in form
    if not logprobs:  # (score - 0) / (5 - 0)
        assert [s.value for s in ours] == [1 / 5, 3 / 5, 5 / 5]


@pytest.mark.parametrize("rubric", [[{"score_range": [0, 11], "expected_outcome": "x"}],
                                    [{"score_range": [3, 2], "expected_outcome": "x"}],
                                    [{"score_range": [0, 3], "expected_outcome": "x"},
                                     {"score_range": [3, 5], "expected_outcome": "y"}],
                                    [{"range": [0, 3]}]])
def test_bad_rubric_names_itself(rubric):
    with pytest.raises(ParameterError, match="rubric"):
        evalcore.get_metric("judge/g_eval", judge=lambda prompt: "{}", criteria="c", rubric=rubric)


def test_score_outside_the_rubric_is_repaired_then_an_error():
    answers = iter([json.dumps({"reason": "r", "score": 9}), json.dumps({"reason": "r", "score": 8})])
    metric = evalcore.get_metric("judge/g_eval", judge=lambda prompt: next(answers), evaluation_steps=STEPS,
                                 rubric=RUBRIC, cache_mode="off")
    score = metric.score_one({"query": "q"}, {"response": "r"})
    assert score.status == "error" and score.error_type == "UnparseableJudgement"
