"""Input built to hang or explode: catastrophic schema patterns, huge and deep predictions."""

import time

import pytest
from evalcore import Status
from evalcore.testing import nested_list

CATASTROPHIC = [
    ("^(a+)+$", "a" * 40 + "!"),
    ("^(a|a)*$", "a" * 40 + "!"),
    ("^([a-z]+)*[0-9]$", "abcdefghij" * 4 + "!"),
    ("(x+x+)+y", "x" * 40),
]


@pytest.mark.parametrize("pattern, text", CATASTROPHIC)
def test_catastrophic_pattern_in_a_record_schema_finishes(metric, pattern, text):
    m = metric("checks/json_schema", parse_json=False, field="params")
    example = {"schema": {"type": "object", "properties": {"name": {"type": "string", "pattern": pattern}}}}
    started = time.monotonic()
    score = m.score_one(example, {"params": {"name": text}})
    assert time.monotonic() - started < 5
    assert score.value == 0.0 and score.details["errors"] == 1


@pytest.mark.parametrize("pattern, text", CATASTROPHIC[:2])
def test_catastrophic_pattern_properties_finish(metric, pattern, text):
    schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}, "additionalProperties": False}
    m = metric("checks/json_schema", schema=schema, parse_json=False, field="params")
    started = time.monotonic()
    score = m.score_one({}, {"params": {text: 1}})
    assert time.monotonic() - started < 5 and score.value == 0.0


def huge_prediction(n=1_000_000):
    return {f"field_{i}": i for i in range(n)}


def deep_value(depth=200_000):
    return nested_list(depth)


@pytest.mark.parametrize("expression, prediction", [
    ("missing_name > 1", huge_prediction()),
    ("field_1 + 1", huge_prediction()),
    ("deep == other", {"deep": deep_value(), "other": deep_value()}),
    ("deep + 1 > 0", {"deep": deep_value()}),
    ("deep", {"deep": deep_value()}),
    ("items", {"items": list(range(1_000_000))}),
], ids=["unknown-name-among-1e6", "not-bool", "deep-compare", "deep-arithmetic", "deep-result", "huge-result"])
def test_custom_scriptable_errors_stay_small(metric, expression, prediction):
    score = metric("checks/custom_scriptable", expression=expression).score_one({}, prediction)
    assert score.status is Status.ERROR and score.error_type == "ExpressionError"
    assert len(score.error_message) < 2000 and "RecursionError" not in score.error_message


def test_unknown_name_lists_a_few_fields(metric):
    score = metric("checks/custom_scriptable", expression="nope > 1").score_one({}, huge_prediction())
    assert "and 999980 more" in score.error_message and "field_0" in score.error_message


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000])
def test_json_nested_too_deeply_is_invalid_json(metric, text):
    score = metric("checks/json_schema", schema={"type": "array"}).score_one({}, {"response": text})
    assert score.value == 0.0 and "nested too deeply" in score.feedback


@pytest.mark.parametrize("metric_id, params", [
    ("checks/format", {"require_valid_json": True}),
    ("checks/syntax", {"language": "json"}),
    ("checks/syntax", {"language": "python"}),
])
def test_deep_text_is_a_failed_check_not_a_crash(metric, metric_id, params):
    score = metric(metric_id, **params).score_one({}, {"response": "[" * 100_000 + "]" * 100_000})
    assert score.status is Status.OK and score.value == 0.0
