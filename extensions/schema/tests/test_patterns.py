"""Regular expressions and JSON Schemas from data: catastrophic patterns finish, the fallback engine
is bounded, and the validators agree with jsonschema's own."""

import time

import pytest
from evalcore.plugin import EvalcoreError, InputError
from evalcore_schema import regex_search, schema_validator
from hypothesis import given, settings
from hypothesis import strategies as st

CATASTROPHIC = [
    ("^(a+)+$", "a" * 40 + "!"),
    ("^(a|a)*$", "a" * 40 + "!"),
    ("^(a|aa)+$", "a" * 60 + "!"),
    ("(x+x+)+y", "x" * 40),
    ("^(\\w+\\s?)*$", "word " * 12 + "!"),
]


@pytest.mark.parametrize("pattern, text", CATASTROPHIC)
def test_catastrophic_patterns_finish(pattern, text):
    started = time.monotonic()
    assert regex_search(pattern, text) is False
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("pattern, text", CATASTROPHIC[:2])
def test_catastrophic_patterns_in_schemas_finish(pattern, text):
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": pattern}},
              "patternProperties": {pattern: {"type": "integer"}}, "additionalProperties": False}
    validator = schema_validator(schema)
    started = time.monotonic()
    errors = list(validator.iter_errors({"name": text, text: 1}))
    assert time.monotonic() - started < 5
    assert any("does not match" in e.message for e in errors)


def test_regex_search_semantics():
    assert regex_search("b+", "abbbc") and not regex_search("^b", "abc")
    assert regex_search("(?i)HELLO", "oh hello there")
    # look-ahead and back-references are not RE2: they run on the bounded fallback
    assert regex_search("^(?!foo)", "bar") and not regex_search("^(?!foo)", "foobar")
    assert regex_search(r"(a)\1", "xaay") and not regex_search(r"(a)\1", "xay")
    with pytest.raises(InputError, match="invalid regular expression"):
        regex_search("(unclosed", "x")


def test_fallback_engine_is_bounded():
    # a back-reference keeps the pattern off RE2; the backtracking engine is stopped in time
    started = time.monotonic()
    with pytest.raises(InputError, match="ran longer than 0.5 s") as info:
        regex_search(r"^((a+)+)\1$", "a" * 40 + "!", where="schema pattern", timeout_s=0.5)
    assert time.monotonic() - started < 5 and "schema pattern" in str(info.value)
    assert isinstance(info.value, EvalcoreError)


def test_schema_validator_keeps_jsonschema_behaviour():
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+[0-9]*$"}},
              "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False}
    validator = schema_validator(schema)
    assert validator.is_valid({"id": "abc12", "x-note": "n"})
    messages = sorted(e.message for e in validator.iter_errors({"id": "12", "x-note": 3, "other": 1}))
    assert messages == ["'12' does not match '^[a-z]+[0-9]*$'", "'other' does not match any of the regexes: '^x-'",
                        "3 is not of type 'string'"]
    plain = schema_validator({"properties": {"a": {}}, "additionalProperties": False})
    assert [e.message for e in plain.iter_errors({"a": 1, "b": 2})] == \
        ["Additional properties are not allowed ('b' was unexpected)"]


PATTERNS = st.sampled_from(["^a", "b$", "a+b", "^[a-c]{2}$", "x|y", "^$", "(ab)*c", "[0-9]+", "(?i)A"])
KEYS = st.sampled_from(["a", "ab", "abc", "b", "x1", "cc", "", "A", "aab"])


@settings(max_examples=300, deadline=None)
@given(pattern=PATTERNS, pattern_key=PATTERNS, properties=st.lists(KEYS, max_size=2),
       additional=st.sampled_from([True, False, {"type": "integer"}]),
       instance=st.one_of(KEYS, st.dictionaries(KEYS, st.one_of(st.integers(0, 3), KEYS), max_size=4)))
def test_schema_validator_agrees_with_jsonschema(pattern, pattern_key, properties, additional, instance):
    jsonschema = pytest.importorskip("jsonschema")
    schema = {"pattern": pattern, "patternProperties": {pattern_key: {"type": "integer"}},
              "properties": {p: {"type": "string"} for p in properties}, "additionalProperties": additional}
    reference = jsonschema.Draft202012Validator(schema)
    ours = schema_validator(schema)
    assert ours.is_valid(instance) == reference.is_valid(instance)
    assert sorted(e.message for e in ours.iter_errors(instance)) == \
        sorted(e.message for e in reference.iter_errors(instance))


def test_the_public_names_of_evalcore_plugin_are_these():
    import evalcore.plugin

    assert evalcore.plugin.regex_search is regex_search
    assert evalcore.plugin.schema_validator is schema_validator
