"""The public ``compare``: the comparison's, plus logging it to a tracker (``log_to``)."""

from __future__ import annotations

import inspect
from typing import Any

from evalcore._compare.compare import compare as compare_runs
from evalcore._compare.result import Comparison
from evalcore._lazy import publish

from .entry import tracker_for


def compare(baseline: Any, *systems: Any, log_to: str | None = None, **options: Any) -> Comparison:
    tracker = tracker_for(log_to)
    if tracker is None:
        return compare_runs(baseline, *systems, **options)
    return tracker.log_comparison(baseline, systems, **options)[0]


# The options are documented once, with the function that takes them; this adds ``log_to``.
_LOG_TO_PARAMETER = inspect.Parameter("log_to", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None")
compare.__signature__ = inspect.signature(compare_runs).replace(  # type: ignore[attr-defined] - help() shows every option
    parameters=[*inspect.signature(compare_runs).parameters.values(), _LOG_TO_PARAMETER])
compare.__doc__ = (compare_runs.__doc__ or "").rstrip() + """

    ``log_to="mlflow"`` also logs the comparison to MLflow: a run with the options, the report
    and the comparison's JSON, and under it a run per system with, per metric, both values, the
    difference with its interval, the effect size and every test's p-value.
    """

publish(globals())
