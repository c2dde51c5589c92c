"""The public ``evaluate`` / ``aevaluate``: the engine's, plus logging to a tracker and
prediction-powered estimates from labels.

The layers below know nothing of trackers; these wrappers take ``log_to``, check the tracker
before the work (so a missing client or a wrong URI costs no evaluation), call the lower entry
point with every other option, and log the result. The modules of trackers and labels load only
when they are asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalcore._engine import entry as engine
from evalcore._engine.plan import MetricLike
from evalcore._engine.result import EvaluationResult
from evalcore._engine.trackers import open_tracker
from evalcore._lazy import publish

_LOG_TO = """    * ``log_to`` — the name of a tracker a plugin provides (``"mlflow"`` from evalcore-mlflow,
      ``"wandb"`` from evalcore-wandb): the run is logged there once it finishes (parameters, each
      aggregate with its interval, the rows and the HTML report); ``tracker_options`` are the
      tracker's own options (``evalcore plugins`` lists the trackers installed). The tracker is
      opened before any record is scored.
    * ``labels`` — trusted labels on some records (a JSONL file of ``{"id": ..., "label": number}``
      lines, each optionally naming its ``"metric"``, or a mapping of record id to number, on the
      metric's scale) and ``labels_metric``, the metric id(s) of lines that name none (needed when
      the run has several per-record metrics): the result's ``ppi`` (and the ``"ppi"`` section of
      the JSON report) holds, for each labelled metric, its mean, the labelled records' mean and the
      prediction-powered estimate with their intervals (:func:`evalcore.ppi`).
"""


def evaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), *, log_to: str | None = None,
             tracker_options: dict[str, Any] | None = None, labels: Any = None,
             labels_metric: str | Sequence[str] | None = None, **options: Any) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult`.

    ``data`` is a JSONL path (``"-"`` for standard input), a list of record dicts or
    :class:`~evalcore.Record`, a reader's source, or omitted in favour of ``examples=``
    with ``predictions=`` (or ``program=``). ``log_to="mlflow"`` logs the run to MLflow (a tracker plugin);
    ``labels`` adds prediction-powered estimates (``result.ppi``). See :func:`aevaluate` for every option.
    """
    tracker = open_tracker(log_to, tracker_options, options.get("registry"))
    checked = labels_for(labels, labels_metric)
    result = with_labels(engine.evaluate(data, metrics, **options), checked, options.get("output"))
    if tracker is not None:
        tracker.log_evaluation(result)
    return result


async def aevaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), *, log_to: str | None = None,
                    tracker_options: dict[str, Any] | None = None, labels: Any = None,
                    labels_metric: str | Sequence[str] | None = None, **options: Any) -> EvaluationResult:
    tracker = open_tracker(log_to, tracker_options, options.get("registry"))
    checked = labels_for(labels, labels_metric)
    result = with_labels(await engine.aevaluate(data, metrics, **options), checked, options.get("output"))
    if tracker is not None:  # in this thread: a tracker may keep its active run per thread (MLflow does)
        tracker.log_evaluation(result)
    return result


def labels_for(labels: Any, labels_metric: str | Sequence[str] | None = None) -> Any:
    """The labels with the metrics they are for (None for none), read before any work so that a bad
    file costs none."""
    if labels is None:
        return None
    from .labelled import check_labels

    return check_labels(labels, labels_metric)


def with_labels(result: EvaluationResult, labels: Any, output: Any) -> EvaluationResult:
    """``result`` with the prediction-powered estimates of ``labels`` (as it is without labels)."""
    if labels is None:
        return result
    from .labelled import with_ppi

    return with_ppi(result, labels, output=output)


# The options are documented once, with the functions that take them; these add ``log_to``.
aevaluate.__doc__ = (engine.aevaluate.__doc__ or "").rstrip() + "\n" + _LOG_TO
publish(globals())
