"""Claim-level RAG metrics: claim faithfulness, context precision, context recall.

Same number as ragas: the scripted judge gives evalcore's metric a list of verdicts, and ragas'
own scoring step (``Faithfulness._compute_score``, ``_calculate_average_precision``,
``LLMContextRecall._compute_score``) gets the same list; hypothesis draws the lists.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import math
import re

import evalcore
import pytest
from evalcore.testing import Reply, import_ragas, run_evalcore, write_records
from evalcore_judge.metrics import average_precision, supported_fraction
from evalcore_judge.schemas import ContextRecallAnswer, StatementsAnswer, StatementVerdictsAnswer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLE = {"query": "Where is the Eiffel Tower?", "reference_answer": "It is in Paris. It opened in 1889."}
PREDICTION = {"response": "The Eiffel Tower is in Paris. It is 500 m tall.",
              "retrieved": [{"doc_id": "a", "text": "The Eiffel Tower stands in Paris."},
                            {"doc_id": "b", "text": "Berlin is the capital of Germany."},
                            {"doc_id": "c", "text": "The tower opened in 1889."}]}


def _ragas():
    """ragas' metric modules."""
    import_ragas(langchain_openai=False)
    return tuple(importlib.import_module(f"ragas.metrics.{name}")
                 for name in ("_faithfulness", "_context_precision", "_context_recall"))


def ragas_faithfulness(verdicts):
    faith, _, _ = _ragas()
    out = faith.NLIStatementOutput(statements=[
        faith.StatementFaithfulnessAnswer(statement=f"s{i}", reason="r", verdict=v) for i, v in enumerate(verdicts)])
    return faith.Faithfulness()._compute_score(out)


def ragas_context_precision(verdicts, reference=True):
    _, prec, _ = _ragas()
    metric = prec.LLMContextPrecisionWithReference() if reference else prec.LLMContextPrecisionWithoutReference()
    return metric._calculate_average_precision([prec.Verification(reason="r", verdict=v) for v in verdicts])


def ragas_context_recall(verdicts):
    _, _, rec = _ragas()
    return rec.LLMContextRecall()._compute_score(
        [rec.ContextRecallClassification(statement=f"s{i}", reason="r", attributed=v) for i, v in enumerate(verdicts)])


# -- a judge that answers each task with given verdicts -------------------------------------------


def scripted_judge(statements=(), verdicts=(), useful=(), attributed=()):
    """A callable judge: the answers of the four claim prompts, picked by the prompt's role."""
    def judge(prompt, metadata):
        role = metadata["role"]
        if role == "statements":
            return json.dumps({"statements": list(statements)})
        if role == "verdicts":
            return json.dumps({"verdicts": [{"statement": s, "reason": f"why {i}", "verdict": v}
                                            for i, (s, v) in enumerate(zip(statements, verdicts))]})
        if role == "contexts":  # every context in one call
            return json.dumps({"verdicts": [{"reason": f"context {i}", "verdict": v} for i, v in enumerate(useful, 1)]})
        if role.startswith("context_"):
            rank = int(role.rsplit("_", 1)[1])
            return json.dumps({"reason": f"context {rank}", "verdict": useful[rank - 1]})
        if role == "attribution":
            return json.dumps({"classifications": [{"statement": f"sentence {i}", "reason": "r", "attributed": v}
                                                   for i, v in enumerate(attributed)]})
        raise AssertionError(role)
    return judge


def _metric(metric_id, judge, **params):
    return evalcore.get_metric(metric_id, judge=judge, cache_mode="off", **params)


def _prediction(n_contexts):
    return {"response": "An answer.", "retrieved": [{"doc_id": str(i), "text": f"context {i}"}
                                                    for i in range(n_contexts)]}


bits = st.lists(st.integers(0, 1), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits)
def test_claim_faithfulness_equals_ragas(verdicts):
    statements = [f"Statement {i}." for i in range(len(verdicts))]
    score = _metric("judge/claim_faithfulness", scripted_judge(statements, verdicts)).score_one(
        EXAMPLE, _prediction(1))
    assert score.value == ragas_faithfulness(verdicts)
    assert score.details["statements"] == statements
    assert [v["verdict"] for v in score.details["verdicts"]] == verdicts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits, st.booleans())
def test_context_precision_equals_ragas(useful, with_reference):
    metric = _metric("judge/context_precision", scripted_judge(useful=useful),
                     reference="answer" if with_reference else "none")
    score = metric.score_one(EXAMPLE, _prediction(len(useful)))
    assert score.value == ragas_context_precision(useful, with_reference)
    assert [c["verdict"] for c in score.details["contexts"]] == useful
    assert [c["rank"] for c in score.details["contexts"]] == list(range(1, len(useful) + 1))


def deepeval_contextual_precision(verdicts):
    """DeepEval's ContextualPrecisionMetric scoring step over the same verdicts."""
    pytest.importorskip("deepeval")
    from deepeval.metrics import ContextualPrecisionMetric
    from deepeval.metrics.contextual_precision.schema import ContextualPrecisionVerdict

    metric = ContextualPrecisionMetric(model=_NoModel(), include_reason=False)
    metric.verdicts = [ContextualPrecisionVerdict(verdict="yes" if v else "no", reason="r") for v in verdicts]
    return metric._calculate_score()


class _NoModel:
    """A stand-in judge model: DeepEval's scoring step makes no call."""

    def __new__(cls):
        from deepeval.models import DeepEvalBaseLLM

        class NoModel(DeepEvalBaseLLM):
            def __init__(self):
                super().__init__("none")

            def load_model(self):
                return None

            def generate(self, prompt, schema=None):
                raise AssertionError("no call expected")

            async def a_generate(self, prompt, schema=None):
                raise AssertionError("no call expected")

            def get_model_name(self):
                return "none"

        return NoModel()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits, st.booleans())
def test_context_precision_in_one_call_equals_ragas_and_deepeval(useful, with_reference):
    roles = []

    def judge(prompt, metadata):
        roles.append(metadata["role"])
        return scripted_judge(useful=useful)(prompt, metadata)

    metric = _metric("judge/context_precision", judge, one_call=True,
                     reference="answer" if with_reference else "none")
    score = metric.score_one(EXAMPLE, _prediction(len(useful)))
    assert roles == ["contexts"]  # one call for every context
    assert score.value == ragas_context_precision(useful, with_reference)
    assert score.value == pytest.approx(deepeval_contextual_precision(useful), rel=1e-9, abs=1e-9)
    assert [c["verdict"] for c in score.details["contexts"]] == useful
    assert [c["rank"] for c in score.details["contexts"]] == list(range(1, len(useful) + 1))


def test_context_precision_in_one_call_numbers_the_contexts_and_is_its_own_identity():
    seen = []

    def judge(prompt, metadata):
        seen.append(prompt)
        return json.dumps({"verdicts": [{"reason": "r", "verdict": 1}] * 3})

    metric = _metric("judge/context_precision", judge, one_call=True)
    metric.score_one(EXAMPLE, PREDICTION)
    assert len(seen) == 1 and "exactly 3 entries" in seen[0]
    assert "[1] The Eiffel Tower stands in Paris." in seen[0] and "[3] The tower opened in 1889." in seen[0]
    assert metric.id != _metric("judge/context_precision", judge).id


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits)
def test_context_recall_equals_ragas(attributed):
    score = _metric("judge/context_recall", scripted_judge(attributed=attributed)).score_one(EXAMPLE, _prediction(2))
    assert score.value == ragas_context_recall(attributed)
    assert [c["attributed"] for c in score.details["classifications"]] == attributed


@given(st.lists(st.integers(0, 1), max_size=20))
def test_scoring_functions_equal_ragas(verdicts):
    assert average_precision(verdicts) == ragas_context_precision(verdicts)
    ours, theirs = supported_fraction(verdicts), ragas_faithfulness(verdicts)
    assert (ours is None and math.isnan(theirs)) or ours == theirs
    ours, theirs = supported_fraction(verdicts), ragas_context_recall(verdicts)
    assert (ours is None and math.isnan(theirs)) or ours == theirs


# -- hand-worked cases -------------------------------------------------------------------------------


@pytest.mark.parametrize(("verdicts", "expected"), [([1, 1, 1], 1.0), ([0, 0], 0.0), ([1, 0, 1, 0], 0.5), ([1], 1.0)])
def test_claim_faithfulness_hand_worked(verdicts, expected):
    statements = [f"S{i}." for i in range(len(verdicts))]
    score = _metric("judge/claim_faithfulness", scripted_judge(statements, verdicts)).score_one(EXAMPLE, PREDICTION)
    assert score.value == expected
    assert score.details["supported"] == sum(verdicts) and score.details["total"] == len(verdicts)
    assert score.details["verdicts"][0] == {"statement": "S0.", "verdict": verdicts[0], "reason": "why 0"}


def test_claim_faithfulness_no_statements_is_skipped_after_one_call():
    calls = []

    def judge(prompt, metadata):
        calls.append(metadata["role"])
        return '{"statements": []}'

    score = _metric("judge/claim_faithfulness", judge).score_one(EXAMPLE, PREDICTION)
    assert score.status == "skipped" and "no statements" in score.reason and "NaN" in score.reason
    assert calls == ["statements"]
    assert math.isnan(ragas_faithfulness([]))


@pytest.mark.parametrize(("useful", "expected"), [
    ([1, 1, 1], 3 / (3 + 1e-10)),                       # all useful: just under 1, as ragas
    ([0, 0, 0], 0.0),                                   # none useful: 0
    ([1], 1 / (1 + 1e-10)),                             # one context
    ([0], 0.0),
    ([0, 1, 0, 1], (1 / 2 + 2 / 4) / (2 + 1e-10)),      # precision@2 and precision@4
    ([1, 0, 1], (1 + 2 / 3) / (2 + 1e-10)),
])
def test_context_precision_hand_worked(useful, expected):
    score = _metric("judge/context_precision", scripted_judge(useful=useful)).score_one(
        EXAMPLE, _prediction(len(useful)))
    assert score.value == pytest.approx(expected, rel=1e-15, abs=0)
    assert score.value == ragas_context_precision(useful)


def test_context_precision_k_and_prompts():
    seen = []

    def judge(prompt, metadata):
        seen.append(prompt)
        return '{"reason": "r", "verdict": 1}'

    score = _metric("judge/context_precision", judge, k=2).score_one(EXAMPLE, PREDICTION)
    assert score.details["total"] == 2 and len(seen) == 2
    assert all("It is in Paris. It opened in 1889." in p for p in seen)  # the reference answer
    seen.clear()
    _metric("judge/context_precision", judge, reference="none").score_one(EXAMPLE, PREDICTION)
    assert len(seen) == 3 and all("It is 500 m tall." in p for p in seen)  # the response


@pytest.mark.parametrize(("attributed", "expected"), [([1, 1], 1.0), ([0, 0, 0], 0.0), ([1, 0, 0], 1 / 3)])
def test_context_recall_hand_worked(attributed, expected):
    score = _metric("judge/context_recall", scripted_judge(attributed=attributed)).score_one(EXAMPLE, PREDICTION)
    assert score.value == expected


def test_context_recall_no_sentences_is_skipped():
    score = _metric("judge/context_recall", scripted_judge(attributed=[])).score_one(EXAMPLE, PREDICTION)
    assert score.status == "skipped" and "no sentences" in score.reason


@pytest.mark.parametrize(("metric_id", "example", "prediction", "reason"), [
    ("judge/claim_faithfulness", EXAMPLE, {"response": "x"}, "prediction.retrieved is missing"),
    ("judge/claim_faithfulness", EXAMPLE, {"response": "x", "retrieved": []}, "no retrieved documents"),
    ("judge/claim_faithfulness", EXAMPLE, {**PREDICTION, "response": "  "}, "response is empty"),
    ("judge/context_precision", EXAMPLE, {"response": "x", "retrieved": []}, "no retrieved documents"),
    ("judge/context_precision", {"query": "q"}, PREDICTION, "reference_answer"),
    ("judge/context_recall", {"query": "q"}, PREDICTION, "reference_answer"),
    ("judge/context_recall", EXAMPLE, {"response": "x", "retrieved": []}, "no retrieved documents"),
])
def test_bad_input_skips_without_calls(metric_id, example, prediction, reason):
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    score = _metric(metric_id, judge).score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_context_precision_without_reference_needs_no_reference():
    score = _metric("judge/context_precision", scripted_judge(useful=[1, 0, 0]), reference="none").score_one(
        {"query": "q"}, PREDICTION)
    assert score.value == ragas_context_precision([1, 0, 0], reference=False)


def test_invalid_verdict_gets_repaired_then_errors(server, make_metric):
    server.script(Reply.chat('{"reason": "r", "verdict": 2}'), Reply.chat('{"reason": "r", "verdict": "yes"}'))
    score = make_metric("judge/context_precision", cache_mode="off", k=1).score_one(EXAMPLE, PREDICTION)
    assert score.status == "error" and score.error_type == "UnparseableJudgement"
    assert len(score.details["raw_answers"]["context_1"]) == 2


def test_structured_output_schemas_are_sent(server, make_metric):
    server.default = lambda request: Reply.chat(json.dumps(
        {"statements": ["A."]} if request["response_format"]["json_schema"]["name"] == "claim_statements"
        else {"verdicts": [{"statement": "A.", "reason": "r", "verdict": 1}]}))
    score = make_metric("judge/claim_faithfulness", cache_mode="off").score_one(EXAMPLE, PREDICTION)
    assert score.value == 1.0 and score.details["structured_output"]
    formats = [r["json"]["response_format"]["json_schema"] for r in server.requests]
    assert [f["name"] for f in formats] == ["claim_statements", "claim_verdicts"]
    assert formats[0]["schema"] == StatementsAnswer.model_json_schema()
    assert formats[1]["schema"] == StatementVerdictsAnswer.model_json_schema()
    assert formats[1]["schema"]["$defs"]["StatementVerdict"]["additionalProperties"] is False
    assert "1. A." in server.requests[1]["json"]["messages"][1]["content"]  # the statements of the first call
    assert ContextRecallAnswer.model_json_schema()["required"] == ["classifications"]


def test_estimate_counts_both_claim_calls(make_metric):
    metric = make_metric("judge/claim_faithfulness", cache_mode="off")
    assert metric.estimate(EXAMPLE, PREDICTION)["calls"] == 2
    assert make_metric("judge/context_precision", cache_mode="off").estimate(EXAMPLE, PREDICTION)["calls"] == 3


# -- through the command line, counting calls per sample -------------------------------------------

SAMPLES = {
    # id: (statement verdicts, context usefulness, reference attribution)
    "s1": ([1, 1, 0], [1, 0, 1], [1, 0]),
    "s2": ([0, 0], [0, 0], [0, 0, 0]),
    "s3": ([1], [0, 1, 1, 1], [1]),
}


def _cli_reply(request):
    """Answer by the requested schema; the sample is named in the question."""
    text = "\n".join(m["content"] for m in request["messages"])
    sample = re.search(r"\b(s\d)\b", text).group(1)
    verdicts, useful, attributed = SAMPLES[sample]
    name = request["response_format"]["json_schema"]["name"]
    if name == "claim_statements":
        answer = {"statements": [f"{sample} statement {i}." for i in range(len(verdicts))]}
    elif name == "claim_verdicts":
        answer = {"verdicts": [{"statement": f"{sample} statement {i}.", "reason": "r", "verdict": v}
                               for i, v in enumerate(verdicts)]}
    elif name == "context_useful":
        rank = next(i for i in range(len(useful)) if f"{sample} context {i}\n" in text)
        answer = {"reason": "r", "verdict": useful[rank]}
    else:
        answer = {"classifications": [{"statement": f"{sample} sentence {i}", "reason": "r", "attributed": v}
                                      for i, v in enumerate(attributed)]}
    return Reply.chat(json.dumps(answer), usage={"prompt_tokens": 20, "completion_tokens": 5})


def test_cli_values_and_calls_per_sample(server, tmp_path):
    records = [{"id": sample, "example": {"query": f"question {sample}?", "reference_answer": f"reference {sample}."},
                "prediction": {"response": f"response {sample}.",
                               "retrieved": [{"doc_id": f"{sample}-{i}", "text": f"{sample} context {i}"}
                                             for i in range(len(useful))]}}
               for sample, (_, useful, _) in SAMPLES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    server.default = _cli_reply
    out = run_evalcore("evaluate", str(path), "-m", "judge/claim_faithfulness", "-m", "judge/context_precision",
                       "-m", "judge/context_recall", "--judge-base-url", server.base_url, "--judge-model", "m",
                       "--cache-mode", "off", "--json", "--samples", str(tmp_path / "rows.jsonl"))
    report = json.loads(out.stdout)
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for sample, (verdicts, useful, attributed) in SAMPLES.items():
        assert rows[sample]["judge/claim_faithfulness"]["value"] == ragas_faithfulness(verdicts)
        assert rows[sample]["judge/context_precision"]["value"] == ragas_context_precision(useful)
        assert rows[sample]["judge/context_recall"]["value"] == ragas_context_recall(attributed)
    metrics = report["metrics"]
    faith = [ragas_faithfulness(v) for v, _, _ in SAMPLES.values()]
    prec = [ragas_context_precision(u) for _, u, _ in SAMPLES.values()]
    rec = [ragas_context_recall(a) for _, _, a in SAMPLES.values()]
    assert metrics["judge/claim_faithfulness"]["value"] == pytest.approx(sum(faith) / 3, rel=1e-12)
    assert metrics["judge/context_precision"]["value"] == pytest.approx(sum(prec) / 3, rel=1e-12)
    assert metrics["judge/context_recall"]["value"] == pytest.approx(sum(rec) / 3, rel=1e-12)
    # calls per sample, counted at the server: 2 (statements, verdicts) + 1 per context + 1
    per_sample = {sample: [] for sample in SAMPLES}
    for request in server.requests:
        text = "\n".join(m["content"] for m in request["json"]["messages"])
        sample = re.search(r"\b(s\d)\b", text).group(1)
        per_sample[sample].append(request["json"]["response_format"]["json_schema"]["name"])
    for sample, (_, useful, _) in SAMPLES.items():
        names = per_sample[sample]
        assert names.count("claim_statements") == 1 and names.count("claim_verdicts") == 1
        assert names.count("context_useful") == len(useful)
        assert names.count("context_recall") == 1
        assert len(names) == 3 + len(useful)
