"""Hallucination against DeepEval's HallucinationMetric.

DeepEval (its own OpenAI model class) and evalcore call one scripted OpenAI-compatible server on
127.0.0.1 that answers the same verdicts for the same texts: a context ``X is Y.`` is contradicted
(``no``) when the output says ``X is not Y``, else the output agrees (``yes``); a context with the
word ``unjudged`` gets no verdict (both count only the verdicts returned).

DeepEval 4 scores the share of ``yes`` (1 without any verdict); evalcore, as DeepEval 3 did, the
share of ``no`` (0 without any). So evalcore's value equals the share of ``no`` among the verdicts
DeepEval parsed, exactly, and 1 - DeepEval 4's score up to float rounding.
"""

from __future__ import annotations

import ast
import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply
from evalcore_judge.hallucination import contradicted_fraction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_judge import evaluate_scores, never_called, oracle_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def agrees(context, output):
    claim = re.match(r"(\w+) is (\w+)", context)
    return "no" if claim and f"{claim[1]} is not {claim[2]}" in output else "yes"


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    if text.rstrip().endswith("JSON:"):  # DeepEval: the contexts as a Python list
        contexts = ast.literal_eval(after_last(text, "Contexts:\n", "\n\nActual Output:"))
        output = after_last(text, "Actual Output:\n", "\n\nJSON:")
    else:
        listed = after_last(text, "Contexts:\n", "\n\nActual output:")
        contexts = [line.split("] ", 1)[1] for line in listed.splitlines()]
        output = after_last(text, "Actual output:\n", "\n\nGive a verdict")
    verdicts = [{"reason": "oracle", "verdict": agrees(c, output)} for c in contexts if "unjudged" not in c]
    return Reply.chat(json.dumps({"verdicts": verdicts}), usage=USAGE)


oracle_server = oracle_fixture(oracle)


def deepeval_metric(server, output, contexts):
    pytest.importorskip("deepeval")
    from deepeval.metrics import HallucinationMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = HallucinationMetric(model=model, include_reason=False, async_mode=False)
    metric.measure(LLMTestCase(input="q?", actual_output=output, context=contexts))
    return metric


def evalcore_score(server, output, contexts, **params):
    metric = evalcore.get_metric("judge/hallucination", base_url=server.base_url, model="m", cache_mode="off",
                                 **params)
    return metric.score_one({"query": "q?", "relevant_docs": contexts}, {"response": output})


def assert_same(ours, theirs):
    verdicts = [v.verdict.value for v in theirs.verdicts]
    assert ours.value == (sum(1 for v in verdicts if v == "no") / len(verdicts) if verdicts else 0.0)
    assert ours.value == pytest.approx(1 - theirs.score, abs=1e-15)
    assert [r["verdict"] for r in ours.details["verdicts"]] == verdicts


CASES = {
    "one of three contradicted": ("The sky is not blue. Grass is green.",
                                  ["sky is blue.", "grass is green.", "sea is wet."]),
    "all agree": ("Paris is big.", ["Paris is big.", "Rome is old."]),
    "all contradicted": ("Paris is not big. Rome is not old.", ["Paris is big.", "Rome is old."]),
    "a verdict missing": ("tea is not hot.", ["tea is hot.", "this is unjudged.", "milk is white."]),
    "no verdict": ("anything", ["only unjudged here."]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_number_as_deepeval(oracle_server, case):
    output, contexts = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_metric(oracle_server, output, contexts)
    assert len(oracle_server.requests) - before == 1
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, output, contexts)
    assert len(oracle_server.requests) - before == 1
    assert_same(ours, theirs)


def test_hand_worked_values(oracle_server):
    """By hand from the oracle's rules: 1 of 3 contexts contradicted; 1 of the 2 judged; none judged: 0."""
    assert evalcore_score(oracle_server, *CASES["one of three contradicted"]).value == 1 / 3
    assert evalcore_score(oracle_server, *CASES["all contradicted"]).value == 1.0
    missing = evalcore_score(oracle_server, *CASES["a verdict missing"])
    assert missing.value == 1 / 2 and missing.details["total"] == 2 and missing.details["contexts"] == 3
    none = evalcore_score(oracle_server, *CASES["no verdict"])
    assert none.value == 0.0 and none.details["total"] == 0


WORD = st.sampled_from(["sky", "sea", "tea", "grass", "blue", "hot", "unjudged"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(WORD, WORD), min_size=1, max_size=5), st.lists(st.tuples(WORD, WORD, st.booleans()),
                                                                        max_size=5))
def test_generated_cases_same_number_as_deepeval(oracle_server, contexts, claims):
    contexts = [f"{a} is {b}." for a, b in contexts]
    output = " ".join(f"{a} is {'not ' if negated else ''}{b}." for a, b, negated in claims) or "Nothing."
    assert_same(evalcore_score(oracle_server, output, contexts), deepeval_metric(oracle_server, output, contexts))


@given(st.lists(st.sampled_from(["yes", "no"]), max_size=12))
def test_contradicted_fraction_is_one_minus_deepeval(verdicts):
    pytest.importorskip("deepeval")
    from deepeval.metrics.base_metric import Verdict
    from deepeval.metrics.hallucination.schema import HallucinationVerdict
    from deepeval.metrics.utils.qag import score_qag_verdicts

    metric = type("Metric", (), {"strict_mode": False, "threshold": 0.5})()
    theirs = score_qag_verdicts(metric, [HallucinationVerdict(verdict=v, reason="") for v in verdicts],
                                passing=(Verdict.YES,))
    assert contradicted_fraction(verdicts) == pytest.approx(1 - theirs, abs=1e-15)


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({"relevant_docs": ["a is b."]}, {"response": "  "}, "response is empty"),
    ({}, {"response": "x"}, "relevant_docs is missing"),
    ({"relevant_docs": []}, {"response": "x"}, "no relevant documents"),
])
def test_blank_input_skips_without_calls(example, prediction, reason):
    score = evalcore.get_metric("judge/hallucination", judge=never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_retrieved_contexts_and_k(oracle_server):
    """``evidence_source='retrieved'`` judges prediction.retrieved; ``k`` keeps the first k."""
    metric = evalcore.get_metric("judge/hallucination", base_url=oracle_server.base_url, model="m",
                                 cache_mode="off", evidence_source="retrieved", k=1)
    score = metric.score_one({"relevant_docs": ["sky is not blue."]},
                             {"response": "sky is not blue.", "retrieved": ["sky is blue.", "sea is wet."]})
    assert score.value == 1.0 and score.details["contexts"] == 1


def test_spec_says_lower_is_better():
    spec = evalcore.get_metric("judge/hallucination", judge=never_called).spec
    assert spec.direction.value == "lower" and "HallucinationMetric" in spec.description


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {"query": "q?", "relevant_docs": [{"doc_id": f"d{i}", "text": text}
                                                                         for i, text in enumerate(contexts)]},
                "prediction": {"response": output}} for case, (output, contexts) in CASES.items()]
    rows = evaluate_scores(oracle_server, records, "judge/hallucination", tmp_path)
    for case, (output, contexts) in CASES.items():
        theirs = deepeval_metric(oracle_server, output, contexts)
        assert rows[case]["judge/hallucination"]["value"] == pytest.approx(1 - theirs.score, abs=1e-15)
