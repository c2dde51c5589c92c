"""Bad input of every class that reaches the core: plugins that exit, pathological ids,
huge or deep messages and details."""

import time

import pytest
from evalcore import MetricIdError, ParameterError, Score
from evalcore._contract.identity import MAX_ID_CHARS, parse_metric_id
from evalcore._contract.scores import (
    MAX_DETAIL_DEPTH,
    MAX_DETAIL_ITEMS,
    MAX_DETAIL_TOTAL,
    MAX_TEXT_CHARS,
    cap_details,
    coerce_score,
)
from evalcore._registry.registry import PluginStatus
from evalcore.plugin import InputError
from evalcore.testing import nested_list

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


def _nested(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = {"level": [leaf]}
    return leaf


@pytest.mark.parametrize(("details", "kept"), [
    ({"prompts": {"a": [{"role": "user", "content": "x" * MAX_TEXT_CHARS}]}}, True),
    ({"prompts": {"a": [{"role": "user", "content": "x" * (MAX_TEXT_CHARS + 1)}]}}, False),
    ({"items": list(range(MAX_DETAIL_ITEMS))}, True),
    ({"items": list(range(MAX_DETAIL_ITEMS + 1))}, False),
    # every entry counts towards the total, the containers' own included: 10 + 10 × 999 = 10,000
    ({f"k{i}": list(range(999)) for i in range(10)}, True),
    ({f"k{i}": list(range(999)) for i in range(9)} | {"k9": list(range(1000))}, False),
    ({"deep": _nested(MAX_DETAIL_DEPTH // 2 - 1, "leaf")}, True),
    ({"deep": _nested(MAX_DETAIL_DEPTH // 2, "leaf")}, False),
], ids=["text-at-limit", "text-over", "items-at-limit", "items-over", "total-at-limit", "total-over",
        "depth-at-limit", "depth-over"])
def test_details_at_each_cap_are_kept_as_they_are_and_past_it_cut(details, kept):
    """Nested details within every cap come back as the same object (decided without copying them);
    one entry, character or level more and they come back cut."""
    capped = cap_details(details)
    assert (capped is details) is kept
    if not kept:
        assert capped != details
    assert MAX_DETAIL_TOTAL == 10 + 10 * 999


def test_small_results_are_unchanged():
    raw = Score(0.5, feedback="fine", details={"a": [1, 2], "b": {"c": "d"}})
    assert coerce_score(raw) == raw
