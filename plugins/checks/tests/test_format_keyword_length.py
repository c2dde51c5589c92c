"""format, keyword, keyword_coverage and length: hand-worked cases from seeds 000 and 004."""

from __future__ import annotations

import pytest
from evalcore import ParameterError, Status
from hypothesis import given
from hypothesis import strategies as st

# -- format (seed 000 FormatMetric and its reference tests) --------------------------


def test_format_empty_output_fails(metric) -> None:
    # Seed 000 test_format_metric_empty: no output at all scores 0.0.
    m = metric("checks/format")
    assert m.score_one({}, {}).value == 0.0
    assert m.score_one({}, {"response": "   "}).value == 0.0
    assert m.score_one({}, {"response": "Hello world"}).value == 1.0


def test_format_json_and_named_field(metric) -> None:
    # Seed 000 test_format_metric_json: '{"key": "value"}' valid, '{invalid json}' not.
    m = metric("checks/format", require_valid_json=True)
    assert m.score_one({}, {"response": '{"key": "value"}'}).value == 1.0
    bad = m.score_one({}, {"response": "{invalid json}"})
    assert bad.value == 0.0 and "not valid JSON" in bad.feedback
    named = metric("checks/format", json_field="answer")
    assert named.score_one({}, {"response": '{"answer": 42}'}).value == 1.0
    assert named.score_one({}, {"response": '{"other": 42}'}).value == 0.0
    assert named.score_one({}, {"output": {"answer": 1}}).value == 0.0  # response missing
    assert metric("checks/format", json_field="answer", field="output").score_one(
        {}, {"output": {"answer": 1}}).value == 1.0


# -- keyword (seed 000 KeywordMetric) ------------------------------------------------


def test_keyword_required_partial_credit(metric) -> None:
    # Seed 000 test: required ["function", "return"]; both present -> 1.0; only one -> 1/2.
    m = metric("checks/keyword", required=["function", "return"])
    assert m.score_one({}, {"response": "function foo() { return 42; }"}).value == 1.0
    half = m.score_one({}, {"response": "function foo() { }"})
    assert half.value == 0.5 and half.details["missing"] == ["return"]
    assert not m({}, {"response": "function foo() { }"}, trace=True)  # pass/fail: all required


def test_keyword_forbidden(metric) -> None:
    # Seed 000 test: forbidden ["TODO", "FIXME"]; "// TODO: fix this" -> 0.0.
    m = metric("checks/keyword", forbidden=["TODO", "FIXME"])
    assert m.score_one({}, {"response": "function complete() { return 42; }"}).value == 1.0
    assert m.score_one({}, {"response": "function incomplete() { // TODO: fix this }"}).value == 0.0


def test_keyword_case_and_words_and_example_fields(metric) -> None:
    m = metric("checks/keyword")
    example = {"required_keywords": ["Paris"], "forbidden_keywords": ["London"]}
    assert m.score_one(example, {"response": "paris is nice"}).value == 1.0  # case-folded by default
    exact = metric("checks/keyword", required=["Paris"], ignore_case=False)
    assert exact.score_one({}, {"response": "paris"}).value == 0.0
    word = metric("checks/keyword", required=["cat"], whole_word=True)
    assert word.score_one({}, {"response": "concatenate"}).value == 0.0
    assert word.score_one({}, {"response": "a cat."}).value == 1.0
    assert m.score_one({}, {"response": "x"}).status is Status.SKIPPED  # no keywords anywhere


def test_keyword_coverage_seed_004(metric) -> None:
    # Seed 004: keywords ["Q3", "revenue"] both in the summary -> hits 2, total 2, coverage 1.0.
    m = metric("checks/keyword_coverage", field="output.summary")
    run = {"output": {"summary": "Q3 revenue grew 10%"}}
    score = m.score_one({"keywords": ["Q3", "revenue"]}, run)
    assert (score.details["keyword_hits"], score.details["keyword_total"], score.value) == (2, 2, 1.0)
    # unique_match: ["Q3", "q3", "profit"] -> distinct {q3, profit}: 1 hit of 2 = 0.5;
    # without it every entry counts: 2 hits (Q3, q3) of 3.
    example = {"keywords": ["Q3", "q3", "profit"]}
    assert m.score_one(example, run).value == 0.5
    plain = metric("checks/keyword_coverage", field="output.summary", unique_match=False)
    assert plain.score_one(example, run).value == pytest.approx(2 / 3)
    assert m.score_one({"keywords": []}, run).status is Status.SKIPPED


# -- length (seed 000 LengthMetric, partial credit near the bounds) -----------------


def test_length_partial_credit(metric) -> None:
    m = metric("checks/length", min_chars=10, max_chars=20)
    # 15 chars: inside -> 1.0.
    assert m.score_one({}, {"response": "x" * 15}).value == 1.0
    # 9 chars: 1 short of 10, band 0.2 * 10 = 2 -> 1 - 1/2 = 0.5.
    assert m.score_one({}, {"response": "x" * 9}).value == pytest.approx(0.5)
    # 22 chars: 2 over 20, band 0.2 * 20 = 4 -> 1 - 2/4 = 0.5.
    assert m.score_one({}, {"response": "x" * 22}).value == pytest.approx(0.5)
    # 30 chars: 10 over, beyond the band -> 0.0.
    assert m.score_one({}, {"response": "x" * 30}).value == 0.0
    strict = metric("checks/length", min_chars=10, max_chars=20, tolerance=0.0)
    assert strict.score_one({}, {"response": "x" * 9}).value == 0.0


def test_length_counts_characters_not_bytes(metric) -> None:
    m = metric("checks/length", max_chars=3, tolerance=0.0)
    assert m.score_one({}, {"response": "été"}).value == 1.0  # 3 characters, 5 UTF-8 bytes


def test_length_needs_a_bound(metric) -> None:
    with pytest.raises(ParameterError):
        metric("checks/length")
    with pytest.raises(ParameterError):
        metric("checks/length", min_chars=5, max_chars=2)


@given(st.integers(0, 200), st.integers(1, 50), st.integers(0, 100), st.floats(0, 1))
def test_length_score_properties(length: int, low: int, width: int, tolerance: float) -> None:
    from evalcore_checks.length import length_score

    high = low + width
    value = length_score(length, low, high, tolerance)
    assert 0.0 <= value <= 1.0
    assert (value == 1.0) == (low <= length <= high)
