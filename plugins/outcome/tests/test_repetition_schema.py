"""was_repeated and tool_params_schema."""

import evalcore
import pytest
from evalcore import Status
from evalcore.testing import nested_list
from evalcore_outcome.repetition import canonical_hash


def test_canonical_hash_ignores_key_order_and_integral_floats():
    assert canonical_hash("read", {"path": "a", "n": 1}) == canonical_hash("read", {"n": 1.0, "path": "a"})
    assert canonical_hash("read", {"path": "a"}) != canonical_hash("edit", {"path": "a"})


def was_repeated(history, call):
    return evalcore.get_metric("outcome/was_repeated").score_one({"execution_history": history}, call)


def test_was_repeated():
    history = [{"tool": "grep", "params": {"q": "x"}}, {"tool": "read", "params": {"path": "a.py", "lines": [1, 2]}}]
    s = was_repeated(history, {"tool": "read", "params": {"lines": [1, 2], "path": "a.py"}})
    assert s.value == 0.0 and s.details["first_index"] == 1
    assert was_repeated(history, {"tool": "read", "params": {"path": "b.py"}}).value == 1.0
    assert was_repeated([], {"tool": "read", "params": {}}).value == 1.0
    s = evalcore.get_metric("outcome/was_repeated").score_one({}, {"tool": "read", "params": {}})
    assert s.value == 1.0  # no history recorded: nothing to repeat


@pytest.mark.parametrize("history, call, value, note", [
    ("read a.py", {"tool": "read", "params": {}}, 1.0, "execution_history is a str, not a list"),
    ({"tool": "read"}, {"tool": "read", "params": {}}, 1.0, "execution_history is a dict, not a list"),
    (["read"], {"tool": "read", "params": {}}, 1.0, "execution_history[0] is not a tool call object"),
    ([{"tool": "read"}], {"tool": "read"}, 0.0, "prediction.params is missing"),  # null == null
    ([], {"params": {}}, 1.0, "prediction.tool is missing"),
    ([{"params": {}}], {"params": {}}, 0.0, "prediction.tool is missing"),
])
def test_was_repeated_missing_fields_read_as_the_documents_defaults(history, call, value, note):
    s = was_repeated(history, call)
    assert s.status is Status.OK and s.value == value and note in s.feedback


SCHEMAS = {
    "read": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
             "additionalProperties": False},
    "broken": {"type": "no-such-type"},
}


def schema_score(call, example=None, **params):
    metric = evalcore.get_metric("outcome/tool_params_schema", **params)
    return metric.score_one(example or {}, call)


def test_tool_params_schema_values():
    assert schema_score({"tool": "read", "params": {"path": "a"}}, schemas=SCHEMAS).value == 1.0
    s = schema_score({"tool": "read", "params": {"path": 3}}, schemas=SCHEMAS)
    assert s.value == 0.0 and "path" in s.feedback
    assert schema_score({"tool": "read", "params": {}}, schemas=SCHEMAS).value == 0.0
    s = schema_score({"tool": "write", "params": {}}, schemas=SCHEMAS)
    assert s.value == 0.0 and s.details["known_tool"] is False  # unknown tool: 0 (seed)
    s = schema_score({"tool": "broken", "params": {}}, schemas=SCHEMAS)
    assert s.value == 0.5 and "schema_error" in s.details  # schema fails to compile: 0.5 (seed)


def test_tool_params_schema_from_example():
    example = {"tool_schemas": {"bash": {"type": "object", "required": ["command"]}}}
    assert schema_score({"tool": "bash", "params": {"command": "ls"}}, example).value == 1.0
    assert schema_score({"tool": "bash", "params": {"command": "ls"}}, {"tool_schemas": []}).status is Status.ERROR


def test_tool_params_schema_missing_fields_read_as_the_documents_defaults():
    s = schema_score({"tool": "read"}, schemas=SCHEMAS)  # params null: not an object
    assert s.value == 0.0 and "prediction.params is missing" in s.feedback
    s = schema_score({"tool": "any"}, schemas={"any": {}})  # the empty schema accepts null
    assert s.value == 1.0 and "prediction.params is missing" in s.feedback
    s = schema_score({"params": {"path": "a"}}, schemas=SCHEMAS)  # tool "" is unknown
    assert s.value == 0.0 and s.details["known_tool"] is False and "prediction.tool is missing" in s.feedback


@pytest.mark.parametrize("pattern, text", [("^(a+)+$", "a" * 40 + "!"), ("^(a|a)*$", "a" * 40 + "!"),
                                           ("(x+x+)+y", "x" * 40)])
def test_tool_params_schema_catastrophic_pattern_finishes(pattern, text):
    import time

    metric = evalcore.get_metric("outcome/tool_params_schema")
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}},
              "patternProperties": {pattern: {}}}
    example = {"tool_schemas": {"search": schema}}
    started = time.monotonic()
    score = metric.score_one(example, {"tool": "search", "params": {"q": text, text: 1}})
    assert time.monotonic() - started < 5
    assert score.value == 0.0 and "does not match" in score.feedback


def _deep(depth=200_000):
    return nested_list(depth)


@pytest.mark.parametrize("params, history, field, words", [
    ({"a": _deep()}, [], "prediction.params", "nested too deeply"),
    ({"a": float("nan")}, [], "prediction.params", "not plain JSON"),
    ({"a": {1, 2}}, [], "prediction.params", "not plain JSON"),
    ({"a": 1}, [{"tool": "t", "params": {"a": _deep()}}], "example.execution_history[0]", "nested too deeply"),
])
def test_was_repeated_bad_params_are_input_errors(params, history, field, words):
    score = evalcore.get_metric("outcome/was_repeated").score_one({"execution_history": history},
                                                                  {"tool": "t", "params": params})
    assert score.status is Status.ERROR and score.error_type == "InputError"
    assert field in score.error_message and words in score.error_message
