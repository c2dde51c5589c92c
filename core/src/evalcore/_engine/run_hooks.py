"""What plugins add around a run through the run hooks (:class:`evalcore._contract.hooks.RunHooks`):
checks of the run's extra options before scoring, details of its summaries, fields of its finished
result and lines under its table. Each hook is called only when the run needs it, so a plain run
loads no plugin for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .options import OptionError, RunOptions

if TYPE_CHECKING:
    from evalcore._registry.registry import Registry

    from .summary import MetricSummary

EXTRA_OWNERS = {"labels": "evalcore-stats", "labels_metric": "evalcore-stats"}
"""The keywords of :func:`evalcore.evaluate` that a plugin reads (through the run hooks), by the
distribution of evalcore's that takes them: without it, a run given one says what to install."""


def given_extras(extras: Mapping[str, Any]) -> bool:
    """Whether any extra option is given (a run without one calls neither extras hook)."""
    return any(value is not None and value != () for value in extras.values())


def check_extras(registry: Registry, options: RunOptions, extras: Mapping[str, Any]) -> None:
    """Let plugins check the extra options before any record is read; one given that no plugin
    takes is an ``OptionError`` naming what to install."""
    if not given_extras(extras):
        return
    taken = {name for names in registry.call_run_hook("evalcore_run_check", options=options, extras=extras)
             for name in names}
    for name, value in extras.items():
        if value is not None and value != () and name not in taken:
            owner = EXTRA_OWNERS.get(name, "the plugin that takes it")
            raise OptionError(f"{name} needs {owner}: pip install {owner}")


def finish_extras(registry: Registry, result: Any, options: RunOptions, extras: Mapping[str, Any]) -> Any:
    """``result`` (an :class:`~evalcore.EvaluationResult`) with the fields plugins set from the extra
    options (``ppi``)."""
    if not given_extras(extras):
        return result
    fields: dict[str, Any] = {}
    for found in registry.call_run_hook("evalcore_run_finished", result=result, options=options, extras=extras):
        fields.update(found)
    return attrs.evolve(result, **fields) if fields else result


def with_details(registry: Registry, summaries: dict[str, MetricSummary], rows: Any,
                 options: RunOptions) -> dict[str, MetricSummary]:
    """``summaries`` with the details plugins add to them (rollout noise, when records were scored
    over several rollouts)."""
    if options.rollouts <= 1:
        return summaries
    out = dict(summaries)
    for added in registry.call_run_hook("evalcore_summary_details", summaries=summaries, rows=rows, options=options):
        for metric_id, details in added.items():
            out[metric_id] = attrs.evolve(out[metric_id], details={**out[metric_id].details, **details})
    return out


CORE_DETAILS = frozenset({"usage", "reasons", "warnings", "aggregate", "error", "reason"})
"""The keys of a summary's ``details`` the core itself writes (:mod:`evalcore._engine.summary`)."""


def hook_lines(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The lines plugins show under a run's table (``metrics``: its summaries as JSON, by metric id);
    asked for only where a summary holds details beyond the core's own, which a plugin may have added."""
    if all(set(summary.get("details") or ()) <= CORE_DETAILS for summary in metrics.values()):
        return []
    from evalcore._registry.registry import default_registry

    return [line for lines in default_registry().call_run_hook("evalcore_summary_lines", metrics=metrics)
            for line in lines]
