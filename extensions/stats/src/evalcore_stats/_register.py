"""The commands of evalcore-stats (imports only ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import CommandSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_commands"]

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


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    return [CommandSpec(name=name, implementation=f"evalcore_stats.cli.{target}", summary=summary)
            for name, (target, summary) in _COMMANDS.items()]
