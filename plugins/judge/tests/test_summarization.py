"""Summarization against DeepEval's SummarizationMetric.

DeepEval (its own OpenAI model class) and evalcore call one scripted OpenAI-compatible server on
127.0.0.1 that answers the same for the same texts. Its rules, over sentences ending in '.':

* truths of a text, claims of a summary: its sentences;
* questions (n of them): ``Does the text say that <sentence>?`` for the original's first n sentences;
* answers: ``yes`` when the text holds the question's sentence (case ignored), else ``no``;
* alignment of a claim: ``yes`` when the original holds it, ``no`` when it holds the claim without
  ``not ``, else ``borderline``.
"""

from __future__ import annotations

import ast
import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply
from evalcore_judge.summarization import alignment_score, coverage_score
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_judge import evaluate_scores, never_called, oracle_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def sentences(text):
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def answer(text, question):
    said = re.match(r"Does the text say that (.*)\?$", question)
    return "yes" if said and said[1].lower() + "." in text.lower() else "no"


def aligned(claim, original):
    if claim in original:
        return "yes"
    return "no" if " not " in claim and claim.replace(" not ", " ") in original else "borderline"


def reply(data):
    return Reply.chat(json.dumps(data), usage=USAGE)


def numbered(listed):
    return [line.split(". ", 1)[1] for line in listed.splitlines() if ". " in line]


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("name", "")
    if schema.startswith("summary_"):
        if schema == "summary_truths":
            return reply({"truths": sentences(after_last(text, "Text:\n", "\n\nList its truths."))})
        if schema == "summary_claims":
            return reply({"claims": sentences(after_last(text, "Summary:\n", "\n\nList its claims."))})
        if schema == "summary_questions":
            n = int(re.search(r"Write (\d+) closed-ended", text)[1])
            source = after_last(text, "Text:\n", "\n\nWrite the questions.")
            return reply({"questions": [f"Does the text say that {s[:-1]}?" for s in sentences(source)[:n]]})
        if schema == "summary_answers":
            source = after_last(text, "Text:\n", "\n\nQuestions:")
            questions = numbered(after_last(text, "Questions:\n", "\n\nAnswer every question."))
            return reply({"answers": [answer(source, q) for q in questions]})
        original = after_last(text, "Original text:\n", "\n\nSummary claims:")
        claims = numbered(after_last(text, "Summary claims:\n", "\n\nGive a verdict"))
        return reply({"verdicts": [{"verdict": aligned(c, original), "reason": "oracle"} for c in claims]})
    # DeepEval: its prompts end in 'JSON:'
    if '"truths" key' in text:
        return reply({"truths": sentences(after_last(text, "Text:\n", "\n\nJSON:"))})
    if '"claims" key' in text:
        return reply({"claims": sentences(after_last(text, "AI Output:\n", "\n\nJSON:"))})
    if "Summary Claims:\n" in text:
        original = after_last(text, "Original Text:\n", "\n\nSummary Claims:")
        claims = ast.literal_eval(after_last(text, "Summary Claims:\n", "\n\nJSON:"))
        return reply({"verdicts": [{"verdict": aligned(c, original), "reason": "oracle"} for c in claims]})
    if "'answers'" in text:
        source = after_last(text, "Text:\n", "\n\nQuestions:")
        questions = ast.literal_eval(after_last(text, "Questions:\n", "\n\nJSON:"))
        return reply({"answers": [answer(source, q) for q in questions]})
    n = int(re.search(r"generate (\d+) closed-ended", text)[1])
    source = after_last(text, "Text:\n", "\n\nJSON:")
    return reply({"questions": [f"Does the text say that {s[:-1]}?" for s in sentences(source)[:n]]})


oracle_server = oracle_fixture(oracle)


def deepeval_metric(server, original, summary, questions=None, n=5):
    pytest.importorskip("deepeval")
    from deepeval.metrics import SummarizationMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = SummarizationMetric(model=model, include_reason=False, async_mode=False, n=n,
                                 assessment_questions=questions)
    metric.measure(LLMTestCase(input=original, actual_output=summary))
    return metric


def evalcore_score(server, original, summary, **params):
    metric = evalcore.get_metric("judge/summarization", base_url=server.base_url, model="m", cache_mode="off",
                                 **params)
    return metric.score_one({"query": original}, {"response": summary})


ORIGINAL = "Oslo is cold. Rome is old. Paris is big. Tea is hot."
CASES = {
    "faithful and complete": (ORIGINAL, "Oslo is cold. Rome is old. Paris is big. Tea is hot."),
    "contradiction": (ORIGINAL, "Oslo is not cold. Rome is old. Paris is big. Tea is hot."),
    "partial coverage": (ORIGINAL, "Rome is old."),
    "fluff": (ORIGINAL, "Rome is old. Cats are nice. Paris is big."),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_number_as_deepeval(oracle_server, case):
    original, summary = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_metric(oracle_server, original, summary)
    assert len(oracle_server.requests) - before == 6
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, original, summary)
    assert len(oracle_server.requests) - before == 6
    assert ours.status == "ok", ours
    assert ours.value == theirs.score
    assert ours.details["alignment"] == theirs.score_breakdown["Alignment"]
    assert ours.details["coverage"] == theirs.score_breakdown["Coverage"]


def test_given_questions_same_number_as_deepeval(oracle_server):
    questions = ["Does the text say that Rome is old?", "Does the text say that Cats are nice?",
                 "Does the text say that Tea is hot?"]
    theirs = deepeval_metric(oracle_server, ORIGINAL, "Rome is old. Paris is big.", questions=questions)
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, ORIGINAL, "Rome is old. Paris is big.", assessment_questions=questions)
    assert len(oracle_server.requests) - before == 5
    assert ours.value == theirs.score == 0.5


def test_hand_worked_values(oracle_server):
    """By the oracle's rules: the contradiction case has 3 of 4 claims yes (alignment 0.75) and covers
    3 of 4 questions (0.75); 'Rome is old.' aligns fully (1) but covers 1 of 4 (0.25); the fluff case
    has 2 of 3 claims yes (one borderline: 2/3) and covers 2 of 4 (0.5); question_count=2 asks about
    Oslo and Rome only, and 'Rome is old.' covers one: 0.5."""
    score = evalcore_score(oracle_server, *CASES["contradiction"])
    assert (score.details["alignment"], score.details["coverage"], score.value) == (0.75, 0.75, 0.75)
    assert evalcore_score(oracle_server, *CASES["partial coverage"]).value == 0.25
    fluff = evalcore_score(oracle_server, *CASES["fluff"])
    assert fluff.details["alignment"] == 2 / 3 and fluff.value == 0.5
    assert [c["verdict"] for c in fluff.details["claims"]] == ["yes", "borderline", "yes"]
    assert evalcore_score(oracle_server, *CASES["partial coverage"], question_count=2).value == 0.5


WORD = st.sampled_from(["Oslo", "Rome", "tea", "cold", "old", "hot"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(WORD, WORD), min_size=1, max_size=4),
       st.lists(st.tuples(WORD, WORD, st.booleans()), min_size=1, max_size=4), st.integers(1, 4))
def test_generated_cases_same_number_as_deepeval(oracle_server, facts, claims, n):
    original = " ".join(f"{a} is {b}." for a, b in facts)
    summary = " ".join(f"{a} is {'not ' if negated else ''}{b}." for a, b, negated in claims)
    theirs = deepeval_metric(oracle_server, original, summary, n=n)
    assert evalcore_score(oracle_server, original, summary, question_count=n).value == theirs.score


@given(st.lists(st.sampled_from(["yes", "no", "borderline"]), max_size=8),
       st.lists(st.tuples(st.sampled_from(["yes", "no", " Yes"]), st.sampled_from(["yes", "no", "YES "])),
                max_size=8))
def test_scores_are_deepevals(verdicts, answers):
    pytest.importorskip("deepeval")
    from deepeval.metrics.summarization.schema import (
        ScoreType,
        SummarizationAlignmentVerdict,
        SummarizationCoverageVerdict,
    )
    from deepeval.metrics.summarization.summarization import SummarizationMetric

    metric = SummarizationMetric.__new__(SummarizationMetric)
    metric.strict_mode, metric.threshold, metric.assessment_questions = False, 0.5, ["q"]
    metric.alignment_verdicts = [SummarizationAlignmentVerdict(verdict=v) for v in verdicts]
    metric.coverage_verdicts = [SummarizationCoverageVerdict(original_verdict=o, summary_verdict=s, question="q")
                                for o, s in answers]
    assert alignment_score(verdicts) == metric._calculate_score(ScoreType.ALIGNMENT)
    assert coverage_score([o for o, _ in answers], [s for _, s in answers]) == \
        metric._calculate_score(ScoreType.COVERAGE)


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({"query": "Oslo is cold."}, {"response": "  "}, "response is empty"),
    ({}, {"response": "x"}, "example.query"),
])
def test_blank_input_skips_without_calls(example, prediction, reason):
    score = evalcore.get_metric("judge/summarization", judge=never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {"query": original}, "prediction": {"response": summary}}
               for case, (original, summary) in CASES.items()]
    rows = evaluate_scores(oracle_server, records, "judge/summarization", tmp_path)
    for case, (original, summary) in CASES.items():
        theirs = deepeval_metric(oracle_server, original, summary)
        assert rows[case]["judge/summarization"]["value"] == theirs.score
