"""diff, accuracy_score, completeness and policy_compliance (seeds 000 and 004)."""

from __future__ import annotations

import pytest
from evalcore import Status
from evalcore_checks.accuracy import deep_equal
from hypothesis import given
from hypothesis import strategies as st

# -- diff (seed 000 DiffMetric) ------------------------------------------------------


def test_diff_levels(metric) -> None:
    example = {"expected_output": "x = 1\nprint(x)"}
    spaced = {"response": "x = 1   print(x)  "}
    # exact: any character differs -> 0.0; normalized_whitespace (default): runs of
    # whitespace collapse, so "x = 1 print(x)" == "x = 1 print(x)" -> 1.0.
    assert metric("checks/diff", level="exact").score_one(example, spaced).value == 0.0
    assert metric("checks/diff").score_one(example, spaced).value == 1.0
    exact = metric("checks/diff", level="exact")
    assert exact.score_one(example, {"response": "x = 1\nprint(x)"}).value == 1.0


def test_diff_ast_level(metric) -> None:
    m = metric("checks/diff", level="ast")
    example = {"expected_output": "def f(a, b):\n    return a + b\n"}
    # Same tree: formatting, comments and redundant parentheses differ only.
    same = {"response": "def f(a,b):  # add\n    return (a+b)"}
    assert m.score_one(example, same).value == 1.0
    assert m.score_one(example, {"response": "def f(a, b):\n    return b + a"}).value == 0.0
    assert m.score_one(example, {"response": "def f(a, b) return"}).value == 0.0
    broken = m.score_one({"expected_output": "def ("}, same)
    assert broken.status is Status.ERROR and "does not parse" in broken.error_message


def test_diff_semantic_is_skipped_until_judge(metric) -> None:
    score = metric("checks/diff", level="semantic").score_one({"expected_output": "a"}, {"response": "a"})
    assert score.status is Status.SKIPPED
    assert score.reason.startswith("not available: install evalcore-judge")


def test_diff_reference_answer_list_and_bad_input(metric) -> None:
    m = metric("checks/diff")
    references = {"reference_answer": ["no", "Paris  France"]}
    assert m.score_one(references, {"response": "Paris France"}).value == 1.0
    assert m.score_one({}, {"response": "x"}).status is Status.SKIPPED
    assert m.score_one({"expected_output": {"a": 1}}, {"response": "x"}).status is Status.ERROR


# -- accuracy_score (seed 004) -------------------------------------------------------


def test_accuracy_seed_example(metric) -> None:
    # The benchmark engine's example context: expected "hello world", field_path "data.summary", case_insensitive.
    m = metric("checks/accuracy_score", field="data.summary", ignore_case=True)
    run = {"data": {"summary": "Hello   World"}}
    score = m.score_one({"expected_output": "hello world"}, run)
    assert score.value == 1.0 and score.details == {"accuracy": 1.0, "mode": "exact"}
    strict = metric("checks/accuracy_score", field="data.summary")
    assert strict.score_one({"expected_output": "hello world"}, run).value == 0.0


def test_accuracy_structures(metric) -> None:
    m = metric("checks/accuracy_score", field="output")
    expected = {"expected_output": {"a": [1, 2], "b": True}}
    assert m.score_one(expected, {"output": {"b": True, "a": [1, 2]}}).value == 1.0
    assert m.score_one(expected, {"output": '{"a": [1, 2], "b": true}'}).value == 1.0  # JSON string
    assert m.score_one(expected, {"output": {"a": [2, 1], "b": True}}).value == 0.0
    assert m.score_one(expected, {"output": {"a": [1, 2], "b": 1}}).value == 0.0  # true != 1


def test_accuracy_overlap(metric) -> None:
    # Token sets {the, cat, sat} and {the, cat, ran}: intersection 2, union 4 -> 0.5.
    m = metric("checks/accuracy_score", mode="overlap")
    assert m.score_one({"expected_output": "the cat sat"}, {"response": "the cat ran"}).value == 0.5
    assert m.score_one({"expected_output": {"a": 1}}, {"response": "x"}).status is Status.ERROR
    assert m.score_one({"expected_output": "a"}, {}).status is Status.SKIPPED


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8,
)


@given(JSONISH, JSONISH)
def test_deep_equal_matches_json_equality(a, b) -> None:
    import json

    # Reference: equal canonical JSON text (sorted keys) <=> JSON-equal values.
    same = json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert deep_equal(a, b) == same
    assert deep_equal(a, a)


# -- completeness (seed 004) ---------------------------------------------------------


def test_completeness_seed_example(metric) -> None:
    # Seed 004: required ["accepted", "revenue", "fulfilled_rate"], two present -> 2/3 = 0.6667.
    m = metric("checks/completeness", required_fields=["accepted", "revenue", "fulfilled_rate"],
               field="output")
    score = m.score_one({}, {"output": {"accepted": True, "revenue": 10, "other": 1}})
    assert score.value == pytest.approx(0.6667, abs=1e-4)
    assert (score.details["present"], score.details["required"]) == (2, 3)


def test_completeness_nested_and_bad_input(metric) -> None:
    flat = metric("checks/completeness", required_fields=["order.total"])
    nested = metric("checks/completeness", required_fields=["order.total"], allow_nested=True)
    pred = {"response": '{"order": {"total": 3}}'}
    assert flat.score_one({}, pred).value == 0.0
    assert nested.score_one({}, pred).value == 1.0
    assert nested.score_one({}, {"response": "[1]"}).status is Status.ERROR
    assert nested.score_one({}, {"response": "not json"}).status is Status.ERROR
    assert metric("checks/completeness").score_one({}, pred).status is Status.SKIPPED


# -- policy_compliance (seed 004) ----------------------------------------------------


@pytest.mark.parametrize(("value", "count"), [(0, 0), (2, 2), ([], 0), (["pii"], 1), ({"count": 0}, 0),
                                              ({"count": 3}, 3)])
def test_policy_forms(metric, value, count) -> None:
    score = metric("checks/policy_compliance").score_one({}, {"policy_violations": value})
    assert score.details == {"policy_violations": count, "compliant": count == 0}
    assert score.value == float(count == 0)


@pytest.mark.parametrize("value", ["none", -1, 1.5, True, {"n": 1}])
def test_policy_bad_values(metric, value) -> None:
    score = metric("checks/policy_compliance").score_one({}, {"policy_violations": value})
    assert score.status is Status.ERROR and "policy_violations" in score.error_message


def test_policy_missing_and_seed_path(metric) -> None:
    assert metric("checks/policy_compliance").score_one({}, {}).status is Status.SKIPPED
    m = metric("checks/policy_compliance", field="output.policy_violations")
    assert m.score_one({}, {"output": {"policy_violations": 0}}).value == 1.0
