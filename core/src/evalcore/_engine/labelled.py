"""A finished run corrected by labels on some of its records: ``evaluate(..., labels=...,
labels_metric=...)`` and ``evalcore evaluate --labels FILE --labels-metric ID``.

The estimates are evalcore-stats' (:func:`evalcore.read_labels`, :func:`evalcore.ppi`), reached
through their public names; without that distribution, labels fail before the run with one line
naming it. Labels apply only to the metrics they name (a ``"metric"`` field on each line, or
``labels_metric``), each checked against that metric's range. The estimates are added to the
finished result and to the JSON report the run wrote.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import attrs

from evalcore._contract.errors import InputError
from evalcore._engine.files import OutputError
from evalcore._engine.output import write_json
from evalcore._engine.result import EvaluationResult
from evalcore._engine.saved import load_run


@attrs.frozen
class Labels:
    """Labels read before a run, with the metrics named for those lines that name none."""

    sets: Any
    """evalcore-stats' labels by metric id (``None``: lines naming none), then by record id."""
    metrics: tuple[str, ...] = ()


def check_labels(labels: Any, labels_metric: str | Sequence[str] | None = None) -> Labels | None:
    """The labels, read before the run so that a bad file costs no evaluation."""
    import evalcore

    if labels is None:
        return None
    metrics = (labels_metric,) if isinstance(labels_metric, str) else tuple(labels_metric or ())
    return Labels(evalcore.read_labels(labels, "labels"), metrics)


def with_ppi(result: EvaluationResult, labels: Labels | None, *,
             output: str | os.PathLike[str] | None = None) -> EvaluationResult:
    """``result`` with the prediction-powered estimate of each labelled metric (``result.ppi``),
    also written as the ``"ppi"`` section of the JSON report at ``output`` when the run wrote one."""
    import evalcore

    if labels is None:
        return result
    name = os.path.splitext(os.path.basename(output))[0] if output is not None else "this run"
    try:
        found = evalcore.ppi(load_run(result, name), labels.sets, metrics=list(labels.metrics) or None)
    except InputError as exc:  # labels that do not fit this run's metrics: the run itself is kept
        raise InputError(f"{exc}; the run's rows are kept in {result.samples_path}") from None
    if output is not None and os.path.isfile(output):
        try:
            with open(output, encoding="utf-8") as handle:
                report = json.load(handle)
            write_json(output, {**report, "ppi": found.to_dict()})
        except (OSError, ValueError) as exc:
            raise OutputError(f"could not add the prediction-powered estimates to {os.fspath(output)}: {exc}; "
                              f"the run's rows are kept in {result.samples_path}") from None
    return attrs.evolve(result, ppi=found)
