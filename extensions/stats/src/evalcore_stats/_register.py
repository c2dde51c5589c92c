"""The commands and run hooks of evalcore-stats (imports only ``evalcore.plugin``: each hook imports
what it computes with when a run calls it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalcore.plugin import CommandSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_commands", "evalcore_run_check", "evalcore_run_finished",
           "evalcore_summary_details", "evalcore_summary_lines"]

PLUGIN_API_VERSION = 2  # the evalcore plugin API these specs are written for

_COMMANDS = {
    "compare": ("compare:compare_command", "Compare saved runs with a baseline, record by record."),
    "gate": ("gate:gate_command", "Check a saved run against pass/fail rules (for CI)."),
    "plan": ("plan:plan_command", "Records needed to detect a difference, and the difference N records detect."),
    "ppi": ("plan:ppi_command", "Prediction-powered estimate of judged metrics from labels on some records."),
    "runs": ("runs:runs_command", "The history of saved runs, and one metric over time."),
    "calibrate": ("calibrate:calibrate_command", "Compare a metric with human labels."),
    "arena": ("arena:arena_command", "Judge systems pair by pair: win rates and Bradley–Terry ratings."),
}

_EXTRAS = ["labels", "labels_metric"]
"""The options of :func:`evalcore.evaluate` this extension takes: labels on some records, corrected
into prediction-powered estimates of the finished run."""


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    return [CommandSpec(name=name, implementation=f"evalcore_stats.cli.{target}", summary=summary)
            for name, (target, summary) in _COMMANDS.items()]


@hookimpl
def evalcore_run_check(extras: Mapping[str, Any]) -> list[str]:
    """Read the labels before the run: a bad labels file costs no scoring."""
    from .labelled import check_labels

    check_labels(extras.get("labels"))
    return _EXTRAS


@hookimpl
def evalcore_run_finished(result: Any, options: Any, extras: Mapping[str, Any]) -> dict[str, Any] | None:
    """The labels' prediction-powered estimates, as the result's ``ppi`` (and the report's section)."""
    from .labelled import with_ppi

    found = with_ppi(result, extras.get("labels"), extras.get("labels_metric"), output=options.output)
    return None if found is None else {"ppi": found}


@hookimpl
def evalcore_summary_details(summaries: Mapping[str, Any], rows: Any) -> dict[str, dict[str, Any]]:
    """The rollout noise of each per-sample metric of a run scored over several rollouts."""
    from .noise import rollout_details

    return rollout_details(summaries, rows)


@hookimpl
def evalcore_summary_lines(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per metric with rollout noise."""
    from .noise import noise_lines

    return noise_lines(metrics)
