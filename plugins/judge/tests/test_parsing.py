"""Score parsing never guesses."""

from __future__ import annotations

import pytest
from evalcore_judge.parsing import UnparseableJudgement, parse_judgement
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize("text, scale, value", [
    ('{"score": 0.8, "explanation": "fine"}', "0-1", 0.8),
    ('```json\n{"score": 4}\n```', "1-5", 0.75),
    ('Here is my verdict: {"Score": "5", "reasoning": "all there"} Thanks.', "1-5", 1.0),
    ("Score: 3/5", "1-5", 0.5),
    ("**Score:** 7\nExplanation: decent", "0-10", 0.7),
    ("0.25", "0-1", 0.25),
    ("1.", "1-5", 0.0),
])
def test_parses(text, scale, value):
    assert parse_judgement(text, ["score"], scale).values["score"] == pytest.approx(value)


def test_explanation_and_several_fields():
    parsed = parse_judgement('{"recall": 1, "precision": 0.5, "explanation": "why"}', ["recall", "precision"])
    assert parsed.values == {"recall": 1.0, "precision": 0.5} and parsed.explanation == "why"
    text = parse_judgement("Recall: 0.4\nPrecision: 0.9\nReasoning: because", ["recall", "precision"])
    assert text.values == {"recall": 0.4, "precision": 0.9} and text.explanation == "because"


@pytest.mark.parametrize("text, scale, reason", [
    ("", "0-1", "empty"),
    ("   ", "0-1", "empty"),
    ("It is faithful.", "0-1", "no value"),
    ("Score: 2. On reflection, score: 4", "1-5", "several values"),
    ('{"verdict": "yes"}', "0-1", "no 'score'"),
    ('{"score": "high"}', "0-1", "not a number"),
    ('{"score": true}', "0-1", "boolean"),
    ("Score: 6", "1-5", "outside the scale"),
    ("0", "1-5", "outside the scale"),
    ("Score: 4/10", "1-5", "out of 10"),
    ("2 3", "0-10", "no value"),
])
def test_refuses_to_guess(text, scale, reason):
    with pytest.raises(UnparseableJudgement, match=reason) as info:
        parse_judgement(text, ["score"], scale)
    assert info.value.raw == text


def test_one_field_missing_in_plain_text():
    with pytest.raises(UnparseableJudgement, match="no value for precision"):
        parse_judgement("Recall: 0.4", ["recall", "precision"])


@given(st.integers(1, 5))
def test_one_to_five_normalises_linearly(raw):
    assert parse_judgement(f'{{"score": {raw}}}', ["score"], "1-5").values["score"] == (raw - 1) / 4
