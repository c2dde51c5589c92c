"""A finished run corrected by labels on some of its records: ``evaluate(..., labels=...,
labels_metric=...)`` and ``evalcore evaluate --labels FILE --labels-metric ID``, through the run hooks.

The labels are read before the run (:func:`check_labels`), so that a bad file costs no evaluation,
and again once it finished (:func:`with_ppi`). Labels apply only to the metrics they name (a
``"metric"`` field on each line, or ``labels_metric``), each checked against that metric's range.
The estimates are added to the finished result and to the JSON report the run wrote.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import EvalcoreError, InputError, load_run, replacing

from .labels import LabelSets, read_labels
from .ppi import PPIResult, ppi

_SURROGATES = "backslashreplace"  # a lone surrogate read from the report is written back as its escape


def _metrics(labels_metric: str | Sequence[str] | None) -> tuple[str, ...]:
    return (labels_metric,) if isinstance(labels_metric, str) else tuple(labels_metric or ())


def check_labels(labels: Any) -> LabelSets | None:
    """The labels, read and checked (``None`` when none are given)."""
    return None if labels is None else read_labels(labels, "labels")


def with_ppi(result: Any, labels: Any, labels_metric: str | Sequence[str] | None = None, *,
             output: str | os.PathLike[str] | None = None) -> PPIResult | None:
    """The prediction-powered estimate of each labelled metric of ``result`` (a finished
    :class:`~evalcore.EvaluationResult`), also written as the ``"ppi"`` section of the JSON report at
    ``output`` when the run wrote one; ``None`` without labels."""
    sets = check_labels(labels)
    if sets is None:
        return None
    name = os.path.splitext(os.path.basename(output))[0] if output is not None else "this run"
    try:
        found = ppi(load_run(result, name), sets, metrics=list(_metrics(labels_metric)) or None)
    except InputError as exc:  # labels that do not fit this run's metrics: the run itself is kept
        raise InputError(f"{exc}; the run's rows are kept in {result.samples_path}") from None
    if output is not None and os.path.isfile(output):
        _add_section(output, found, result.samples_path)
    return found


def _add_section(output: str | os.PathLike[str], found: PPIResult, samples_path: Any) -> None:
    """Add ``found`` as the ``"ppi"`` section of the JSON report at ``output``."""
    try:
        with open(output, encoding="utf-8") as handle:
            report: Mapping[str, Any] = json.load(handle)
        with replacing(output, "w", encoding="utf-8", errors=_SURROGATES) as handle:
            json.dump({**report, "ppi": found.to_dict()}, handle, ensure_ascii=False, indent=2)
            handle.write("\n")
    except (OSError, ValueError) as exc:
        raise EvalcoreError(f"could not add the prediction-powered estimates to {os.fspath(output)}: {exc}; "
                            f"the run's rows are kept in {samples_path}") from None
