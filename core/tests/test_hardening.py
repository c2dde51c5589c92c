"""Bad input of every class that reaches the core: plugins that exit, pathological ids,
huge or deep messages and details, regex patterns from data."""

import time

import pytest
from evalcore import EvalcoreError, MetricIdError, ParameterError, Score
from evalcore._contract.identity import MAX_ID_CHARS, parse_metric_id
from evalcore._contract.scores import MAX_DETAIL_DEPTH, MAX_DETAIL_ITEMS, MAX_TEXT_CHARS, coerce_score
from evalcore._registry.registry import PluginStatus
from evalcore.plugin import InputError, regex_search, schema_validator
from evalcore.testing import nested_list
from hypothesis import given, settings
from hypothesis import strategies as st

EXITING_PLUGINS = {
    "sys-exit": "import sys\nsys.exit(3)\n",
    "sys-exit-message": "import sys\nsys.exit('plugin refuses to load')\n",
    "raise-system-exit": "raise SystemExit\n",
    "generator-exit": "raise GeneratorExit('odd')\n",
    "base-exception": "class Odd(BaseException):\n    pass\nraise Odd('custom base exception')\n",
    "exit-in-hook": (
        "import sys\nfrom evalcore.plugin import PLUGIN_API_VERSION, hookimpl\n"
        "@hookimpl\ndef evalcore_metrics():\n    sys.exit(1)\n"
    ),
}


@pytest.mark.parametrize("source", list(EXITING_PLUGINS.values()), ids=list(EXITING_PLUGINS))
def test_a_plugin_that_exits_is_a_failed_plugin(make_distribution, toy_plugin, registry_at, source):
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    make_distribution("evalcore-exits", plugins={"exits": "exits._register"}, modules={"exits._register": source})
    registry = registry_at()
    by_name = {p.name: p for p in registry.plugins()}
    assert by_name["exits"].status in (PluginStatus.IMPORT_ERROR, PluginStatus.INVALID)
    assert by_name["exits"].error
    assert by_name["toy"].ok and [i.key for i in registry.metrics()] == ["toy/overlap"]


def test_sys_exit_at_import_is_an_import_error_naming_the_exit(make_distribution, registry_at):
    make_distribution("evalcore-exits", plugins={"exits": "exits._register"},
                      modules={"exits._register": "import sys\nsys.exit(3)\n"})
    [plugin] = registry_at().plugins()
    assert plugin.status is PluginStatus.IMPORT_ERROR and "sys.exit(3)" in plugin.error


def test_keyboard_interrupt_at_import_is_not_swallowed(make_distribution, registry_at):
    make_distribution("evalcore-ctrlc", plugins={"ctrlc": "ctrlc._register"},
                      modules={"ctrlc._register": "raise KeyboardInterrupt\n"})
    with pytest.raises(KeyboardInterrupt):
        registry_at().plugins()


PATHOLOGICAL_IDS = {
    "unary-minus-100k": "retrieval/ndcg(k=" + "-" * 100_000 + "1)",
    "unary-minus-in-at-k": "retrieval/ndcg@" + "-" * 100_000 + "1",
    "nested-lists": "overlap/rouge(variant=" + "[" * 50_000 + "]" * 50_000 + ")",
    "nested-parens-2k": "overlap/rouge(variant=" + "(" * 2000 + "'L'" + ")" * 2000 + ")",
    "unary-minus-1500": "retrieval/ndcg(k=" + "-" * 1500 + "1)",
    "huge-integer": "retrieval/ndcg(k=" + "9" * 5000 + ")",
    "long-name": "a" * 100_000,
    "many-params": "x/y(" + ", ".join(f"p{i}=1" for i in range(5000)) + ")",
    "not-a-string": 12345,
}


@pytest.mark.parametrize("text", list(PATHOLOGICAL_IDS.values()), ids=list(PATHOLOGICAL_IDS))
def test_pathological_metric_ids_are_parameter_errors(text):
    started = time.monotonic()
    with pytest.raises(ParameterError) as info:
        parse_metric_id(text)
    assert time.monotonic() - started < 5
    assert isinstance(info.value, MetricIdError) and len(str(info.value)) < 500


def test_ids_up_to_the_limit_still_parse():
    text = "x/y(command=" + repr(["a" * (MAX_ID_CHARS - 40)]) + ")"
    assert len(text) <= MAX_ID_CHARS
    assert parse_metric_id(text).params["command"] == ["a" * (MAX_ID_CHARS - 40)]
    assert parse_metric_id("retrieval/ndcg(k=-1)").params == {"k": -1}


class _Deep(Exception):
    def __str__(self):
        return repr(nested_list(200_000))


@pytest.mark.parametrize("exc", [
    ValueError("x" * 10_000_000),
    KeyError("k" * 100_000),
    _Deep("unused"),
    InputError("y" * 50_000, field="prediction.response"),
], ids=["huge-message", "huge-key", "recursion-in-str", "huge-input-error"])
def test_error_messages_are_capped(exc):
    score = Score.error(exc)
    assert score.error_type == type(exc).__name__
    assert len(score.error_message) <= MAX_TEXT_CHARS + 60


def test_details_and_feedback_are_capped():
    deep = nested_list(200_000)
    raw = Score(1.0, feedback="f" * 1_000_000, details={
        "fields": {f"k{i}": i for i in range(1_000_000)}, "deep": deep, "text": "t" * 100_000,
        "kept": (1, 2.5, None, True),
    })
    score = coerce_score(raw)
    assert len(score.feedback) <= MAX_TEXT_CHARS + 60
    assert len(score.details["fields"]) == MAX_DETAIL_ITEMS + 1  # the kept entries, then the "…" marker
    assert "more entries left out" in score.details["fields"]["…"]
    assert len(score.details["text"]) <= MAX_TEXT_CHARS + 60
    assert score.details["kept"] == (1, 2.5, None, True)
    level, depth = score.details["deep"], 1
    while isinstance(level, list) and level:
        level, depth = level[0], depth + 1
    assert depth <= MAX_DETAIL_DEPTH + 1 and "nested deeper" in level
    error = Score.error("Boom", "m" * 100_000, payload=list(range(1_000_000)))
    assert len(error.error_message) <= MAX_TEXT_CHARS + 60 and len(error.details["payload"]) <= MAX_DETAIL_ITEMS + 1
    skipped = Score.skipped("r" * 100_000)
    assert len(skipped.reason) <= MAX_TEXT_CHARS + 60


def test_small_results_are_unchanged():
    raw = Score(0.5, feedback="fine", details={"a": [1, 2], "b": {"c": "d"}})
    assert coerce_score(raw) == raw


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
