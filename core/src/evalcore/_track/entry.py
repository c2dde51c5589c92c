"""The public ``evaluate`` / ``aevaluate`` / ``compare``: the engine's and the comparison's, plus
logging to a tracker.

The layers below know nothing of trackers; these wrappers take ``log_to``, check the tracker
before the work (so a missing client or a wrong URI costs no evaluation), call the lower entry
point with every other option, and log the result.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from evalcore._compare.compare import compare as compare_runs
from evalcore._compare.result import Comparison
from evalcore._engine import entry as engine
from evalcore._engine.plan import MetricLike
from evalcore._engine.result import EvaluationResult
from evalcore._lazy import publish

from .labelled import check_labels, with_ppi
from .mlflow_sink import open_tracker

_LOG_TO = """    * ``log_to`` — ``"mlflow"``: log the run to MLflow's active tracking URI (parameters,
      each aggregate with its interval as metrics, the rows table and the HTML report as
      artifacts); needs ``pip install 'evalcore-core[mlflow]'``.
    * ``labels`` — trusted labels on some records (a JSONL file of ``{"id": ..., "label": number}``
      lines, or a mapping of record id to number, on the metrics' scale): the result's ``ppi``
      (and the ``"ppi"`` section of the JSON report) holds, for every per-record metric, the judge's
      mean, the labelled records' mean and the prediction-powered estimate with their intervals
      (:func:`evalcore.ppi`).
"""


def evaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), *, log_to: str | None = None,
             labels: Any = None, **options: Any) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult`.

    ``data`` is a JSONL path (``"-"`` for standard input), a list of record dicts or
    :class:`~evalcore.Record`, a reader's source, or omitted in favour of ``examples=``
    with ``predictions=`` (or ``program=``). ``log_to="mlflow"`` logs the run to MLflow;
    ``labels`` adds prediction-powered estimates (``result.ppi``). See :func:`aevaluate` for every option.
    """
    tracker = open_tracker(log_to)
    checked = check_labels(labels)
    result = with_ppi(engine.evaluate(data, metrics, **options), checked, output=options.get("output"))
    if tracker is not None:
        tracker.log_evaluation(result)
    return result


async def aevaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), *, log_to: str | None = None,
                    labels: Any = None, **options: Any) -> EvaluationResult:
    tracker = open_tracker(log_to)
    checked = check_labels(labels)
    result = with_ppi(await engine.aevaluate(data, metrics, **options), checked, output=options.get("output"))
    if tracker is not None:  # in this thread: MLflow keeps the active run per thread
        tracker.log_evaluation(result)
    return result


def compare(baseline: Any, *systems: Any, log_to: str | None = None, **options: Any) -> Comparison:
    tracker = open_tracker(log_to)
    if tracker is None:
        return compare_runs(baseline, *systems, **options)
    return tracker.log_comparison(baseline, systems, **options)[0]


# The options are documented once, with the functions that take them; these add ``log_to``.
aevaluate.__doc__ = (engine.aevaluate.__doc__ or "").rstrip() + "\n" + _LOG_TO
_LOG_TO_PARAMETER = inspect.Parameter("log_to", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None")
compare.__signature__ = inspect.signature(compare_runs).replace(  # type: ignore[attr-defined] - help() shows every option
    parameters=[*inspect.signature(compare_runs).parameters.values(), _LOG_TO_PARAMETER])
compare.__doc__ = (compare_runs.__doc__ or "").rstrip() + """

    ``log_to="mlflow"`` also logs the comparison to MLflow: a run with the options, the report
    and the comparison's JSON, and under it a run per system with, per metric, both values, the
    difference with its interval, the effect size and every test's p-value.
    """

publish(globals())
