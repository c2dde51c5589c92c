"""The run hooks: called once per run for every plugin implementing them (1:N), with the run's
arguments, only when the run needs them; what each returns lands in the run's summaries, result
and table, and an error of one stops the run before any record is scored."""

from __future__ import annotations

import json

import evalcore
import pytest
from evalcore._contract.errors import EvalcoreError

RECORDS = [{"id": f"q{i}", "example": {"query": f"q{i}", "answer": "yes"}, "prediction": {}} for i in range(4)]

_HOOKS = '''
import json, pathlib
from evalcore.plugin import EvalcoreError, hookimpl

PLUGIN_API_VERSION = 2
LOG = pathlib.Path({log!r})


def _log(hook, **arguments):
    with LOG.open("a") as handle:
        handle.write(json.dumps({{"plugin": {name!r}, "hook": hook, **arguments}}) + "\\n")


@hookimpl
def evalcore_run_check(options, extras):
    _log("check", labels=extras["labels"], rollouts=options.rollouts)
    if extras["labels"] == "refuse":
        raise EvalcoreError("labels: {name} refuses them")
    return ["labels"]


@hookimpl
def evalcore_summary_details(summaries, rows):
    ids = sorted(row["id"] for row in rows)
    _log("details", metrics=sorted(summaries), ids=ids)
    return {{metric_id: {{{name!r}: len(ids)}} for metric_id in summaries}}


@hookimpl
def evalcore_run_finished(result, extras):
    _log("finished", labels=extras["labels"])
    return {{"logged_to": {name!r}}}


@hookimpl
def evalcore_summary_lines(metrics):
    return [f"{name} saw " + ", ".join(sorted(metrics))]
'''


def _calls(log):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _match(example, prediction):
    return float(example["answer"] == prediction["response"])


def _program(example):
    return {"response": "yes" if example["query"] != "q3" else "no"}


@pytest.fixture
def two_plugins(make_distribution, registry_at, tmp_path):
    log = tmp_path / "calls.jsonl"
    for name in ("alpha", "omega"):
        make_distribution(f"evalcore-{name}", plugins={name: f"{name}_hooks"},
                          modules={f"{name}_hooks": _HOOKS.format(log=str(log), name=name)})
    return registry_at(), log


def test_each_plugin_is_called_once_per_run_with_the_runs_arguments(two_plugins):
    registry, log = two_plugins
    result = evalcore.evaluate(RECORDS, [_match], program=_program, rollouts=2, labels="mine", registry=registry)
    calls = _calls(log)
    assert sorted((c["plugin"], c["hook"]) for c in calls) == [
        ("alpha", "check"), ("alpha", "details"), ("alpha", "finished"),
        ("omega", "check"), ("omega", "details"), ("omega", "finished")]
    assert [c["hook"] for c in calls if c["plugin"] == "alpha"] == ["check", "details", "finished"]
    assert all(c["labels"] == "mine" for c in calls if c["hook"] != "details")
    assert next(c for c in calls if c["hook"] == "check")["rollouts"] == 2
    (metric_id,) = result.metrics
    details = [(c["metrics"], c["ids"]) for c in calls if c["hook"] == "details"]
    assert details == [([metric_id], ["q0", "q1", "q2", "q3"])] * 2
    assert result.metrics[metric_id].details["alpha"] == result.metrics[metric_id].details["omega"] == 4
    assert result.metrics[metric_id].value == pytest.approx(0.75)  # the hooks add; the numbers are the run's
    assert result.logged_to in ("alpha", "omega")


def test_a_plain_run_calls_no_run_hook_and_its_table_asks_none(two_plugins):
    registry, log = two_plugins
    result = evalcore.evaluate(RECORDS, [_match], program=_program, registry=registry)
    assert _calls(log) == []
    (metric_id,) = result.metrics
    assert set(result.metrics[metric_id].details).isdisjoint({"alpha", "omega"})
    assert "saw" not in result.table()


def test_the_table_shows_the_lines_of_every_plugin_for_details_they_added(two_plugins):
    registry, _ = two_plugins
    result = evalcore.evaluate(RECORDS, [_match], program=_program, rollouts=2, registry=registry)
    (metric_id,) = result.metrics
    table = result.table()
    assert f"alpha saw {metric_id}" in table and f"omega saw {metric_id}" in table


def test_a_check_that_refuses_stops_the_run_before_a_record_is_scored(two_plugins):
    registry, log = two_plugins
    scored = []
    with pytest.raises(EvalcoreError, match="refuses them"):
        evalcore.evaluate(RECORDS, [_match], program=lambda e: scored.append(e) or {"response": "yes"},
                          labels="refuse", registry=registry)
    assert scored == []
    assert {c["hook"] for c in _calls(log)} == {"check"}


def test_an_extra_no_installed_plugin_takes_names_what_to_install(registry_at):
    with pytest.raises(EvalcoreError) as info:
        evalcore.evaluate(RECORDS, [_match], program=_program, labels={"q0": 1.0}, registry=registry_at())
    assert str(info.value) == "labels needs evalcore-stats: pip install evalcore-stats"


def test_the_listing_index_says_which_plugins_implement_which_run_hook(two_plugins, make_distribution,
                                                                        toy_plugin, registry_at):
    make_distribution("evalcore-plain", plugins={"plain": "plain_reg"}, modules=toy_plugin("plain_reg", name="plain"))
    hooks = {entry["name"]: entry["hooks"] for entry in registry_at().plugin_index()}
    every = ["evalcore_run_check", "evalcore_summary_details", "evalcore_run_finished", "evalcore_summary_lines"]
    assert hooks == {"alpha": every, "omega": every, "plain": []}
