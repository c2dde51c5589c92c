"""Old parameter names (``field_path``, ``case_insensitive``, ``expected_path``) still work and give
the same numbers as the new ones."""

from __future__ import annotations

import warnings

import evalcore
import pytest

EXAMPLE = {"expected_output": "nope", "gold": {"text": "HELLO world"}, "keywords": ["hello", "World"],
           "required_keywords": ["Hello"], "required_fields": ["a", "b"]}
PREDICTION = {"response": "x", "output": {"summary": "Hello   World", "code": "f(1)", "n": 0,
                                          "fields": {"a": 1, "c": 2}}}


@pytest.mark.parametrize(("metric_id", "new", "was"), [
    ("checks/accuracy_score", {"field": "output.summary", "expected_field": "gold.text", "ignore_case": True},
     {"field_path": "output.summary", "expected_path": "gold.text", "case_insensitive": True}),
    ("checks/diff", {"field": "output.summary", "expected_field": "gold.text"},
     {"field_path": "output.summary", "expected_path": "gold.text"}),
    ("checks/keyword", {"field": "output.summary", "ignore_case": False},
     {"field_path": "output.summary", "case_insensitive": False}),
    ("checks/keyword_coverage", {"field": "output.summary", "ignore_case": False},
     {"field_path": "output.summary", "case_insensitive": False}),
    ("checks/format", {"field": "output.fields", "json_field": "a"},
     {"field_path": "output.fields", "json_field": "a"}),
    ("checks/length", {"field": "output.summary", "max_chars": 5}, {"field_path": "output.summary", "max_chars": 5}),
    ("checks/syntax", {"field": "output.code"}, {"field_path": "output.code"}),
    ("checks/completeness", {"field": "output.fields"}, {"field_path": "output.fields"}),
    ("checks/policy_compliance", {"field": "output.n"}, {"field_path": "output.n"}),
])
def test_old_name_gives_the_same_number(metric_id: str, new: dict, was: dict) -> None:
    metric = evalcore.get_metric(metric_id, **new)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", evalcore.DeprecatedParameterWarning)
        before = evalcore.get_metric(metric_id, **was)
    assert before.id == metric.id and before.params == metric.params
    now, then = metric.score_one(EXAMPLE, PREDICTION), before.score_one(EXAMPLE, PREDICTION)
    assert now.status.value == "ok" and (now.value, now.details) == (then.value, then.details)


def test_json_schema_old_field_name_and_schema_path() -> None:
    example = {"spec": {"schema": {"type": "object", "required": ["a"]}}}
    metric = evalcore.get_metric("checks/json_schema", field="output.fields", schema_field="spec.schema")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", evalcore.DeprecatedParameterWarning)
        before = evalcore.get_metric("checks/json_schema", field_path="output.fields", schema_field="spec.schema")
    assert before.id == metric.id
    assert metric.score_one(example, PREDICTION).value == before.score_one(example, PREDICTION).value == 1.0
    missing = {**PREDICTION, "output": {"fields": {"b": 1}}}
    assert metric.score_one(example, missing).value == 0.0
