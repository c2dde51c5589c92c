"""The public ``compare``: the comparison's, plus logging it to a tracker (``log_to``)."""

from __future__ import annotations

import inspect
from typing import Any

from evalcore.plugin import Tracker, TrackingError, load_runs, open_tracker

from .compare import compare as compare_runs
from .result import Comparison


def compare(baseline: Any, *systems: Any, log_to: str | None = None, tracker_options: dict[str, Any] | None = None,
            **options: Any) -> Comparison:
    tracker = comparison_tracker(log_to, tracker_options)
    if tracker is None:
        return compare_runs(baseline, *systems, **options)
    return log_comparison(tracker, baseline, systems, options)[0]


def comparison_tracker(log_to: str | None, options: dict[str, Any] | None) -> Tracker | None:
    """The tracker ``log_to`` names, opened, if it can log comparisons."""
    tracker = open_tracker(log_to, options)
    if tracker is not None and not callable(getattr(tracker, "log_comparison", None)):
        raise TrackingError(f"the {log_to} tracker logs runs, not comparisons (it has no log_comparison)")
    return tracker


def log_comparison(tracker: Tracker, baseline: Any, systems: Any, options: dict[str, Any]) -> tuple[Comparison, str]:
    """Compare ``systems`` with ``baseline`` and log the comparison; the comparison and where it went."""
    options = dict(options)
    runs = load_runs([baseline, *systems], options.pop("names", None))
    comparison = compare_runs(*runs, **options)
    return comparison, tracker.log_comparison(comparison, runs)


# The options are documented once, with the function that takes them; this adds ``log_to``.
_TRACKER_PARAMETERS = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
                       for name, annotation in (("log_to", "str | None"), ("tracker_options", "dict | None"))]
compare.__signature__ = inspect.signature(compare_runs).replace(  # type: ignore[attr-defined] - help() shows every option
    parameters=[*inspect.signature(compare_runs).parameters.values(), *_TRACKER_PARAMETERS])
compare.__doc__ = (compare_runs.__doc__ or "").rstrip() + """

    ``log_to`` also logs the comparison to a tracker a plugin provides (``"mlflow"``: a run with
    the options, the report and the comparison's JSON, and under it a run per system with, per
    metric, both values, the difference with its interval, the effect size and every test's
    p-value); ``tracker_options`` are the tracker's own options.
    """
