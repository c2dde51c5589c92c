"""Calibrating a judge metric against human labels: agreement, Cohen's kappa, confusion matrix.

``calibrate(metric, human_labels)`` scores each labelled pair with the metric, turns each
score into a label and compares the two label sequences. Samples the metric skips or
fails on are counted and left out of the comparison. Bad labels raise
:class:`~evalcore.InputError` naming the item (``human_labels[3]``, or a record's
``file:line``) and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import attrs
from evalcore import Record, ScoringError
from evalcore.plugin import InputError, Metric


@attrs.frozen
class Calibration:
    """How well a metric's labels agree with human labels.

    ``confusion[i][j]`` counts samples with human label ``labels[i]`` and metric label
    ``labels[j]``.
    """

    n: int
    agreement: float
    kappa: float
    labels: tuple[Any, ...]
    confusion: tuple[tuple[int, ...], ...]
    skipped: int = 0
    errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["labels"] = list(self.labels)
        data["confusion"] = [list(row) for row in self.confusion]
        return data


def confusion_matrix(
    truth: Sequence[Hashable], predicted: Sequence[Hashable], labels: Sequence[Hashable] | None = None,
) -> tuple[tuple[Any, ...], tuple[tuple[int, ...], ...]]:
    """``(labels, matrix)`` with rows for ``truth`` and columns for ``predicted``."""
    if len(truth) != len(predicted):
        raise InputError(f"{len(truth)} true labels but {len(predicted)} predicted labels", field="predicted")
    labels = tuple(labels) if labels is not None else tuple(sorted(set(truth) | set(predicted), key=_sort_key))
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for t, p in zip(truth, predicted):
        if t not in index or p not in index:
            raise InputError(f"label {t if t not in index else p!r} is not among {labels!r}", field="labels")
        matrix[index[t]][index[p]] += 1
    return labels, tuple(tuple(row) for row in matrix)


def cohen_kappa(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Cohen's kappa (unweighted), as ``sklearn.metrics.cohen_kappa_score`` computes it.

    When chance agreement is 1 (both raters give one and the same label throughout) the
    value is undefined; like scikit-learn this returns NaN.
    """
    _, matrix = confusion_matrix(truth, predicted)
    n = sum(map(sum, matrix))
    if n == 0:
        raise InputError("cohen_kappa needs at least one pair of labels", field="truth")
    observed = sum(matrix[i][i] for i in range(len(matrix))) / n
    rows = [sum(row) for row in matrix]
    cols = [sum(col) for col in zip(*matrix)]
    expected = sum(r * c for r, c in zip(rows, cols)) / (n * n)
    if expected == 1:
        return float("nan")
    return (observed - expected) / (1 - expected)


def calibrate(
    metric: Metric, human_labels: Sequence[Any], *, to_label: Callable[[float], Hashable] | None = None,
) -> Calibration:
    """Score ``human_labels`` with ``metric`` and compare with the human labels.

    Each item is a mapping ``{"example": ..., "prediction": ..., "label": ...}``, a triple
    ``(example, prediction, label)`` or a :class:`~evalcore.Record` read from a file (its
    ``label`` field; errors then name its ``file:line``). ``to_label`` maps a metric value to a label;
    by default boolean human labels are compared with the metric's pass/fail
    (``metric.spec.passes``) and other labels with the label nearest to the value.
    """
    examples, predictions, truth, places = [], [], [], []
    for position, item in enumerate(human_labels):
        place, example, prediction, label = _unpack(item, position)
        places.append(place)
        examples.append(example)
        predictions.append(prediction)
        truth.append(label)
    if not truth:
        raise InputError("calibrate needs at least one labelled sample", field="human_labels")
    convert = to_label or _default_to_label(metric, truth, places)
    scores = metric.score_many(examples, predictions)
    kept_truth, kept_pred = [], []
    skipped = errors = 0
    for label, score in zip(truth, scores):
        if score.status.value == "skipped":
            skipped += 1
        elif score.value is None:
            errors += 1
        else:
            kept_truth.append(label)
            kept_pred.append(convert(score.value))
    if not kept_truth:
        first = next(s for s in scores if s.value is None)
        why = f"{first.error_type}: {first.error_message}" if first.error_type else f"skipped: {first.reason}"
        raise ScoringError(f"{metric.id} scored none of the {len(truth)} labelled samples "
                           f"({skipped} skipped, {errors} errors; the first: {why})")
    labels, matrix = confusion_matrix(kept_truth, kept_pred)
    agreement = sum(matrix[i][i] for i in range(len(labels))) / len(kept_truth)
    return Calibration(
        n=len(kept_truth), agreement=agreement, kappa=cohen_kappa(kept_truth, kept_pred),
        labels=labels, confusion=matrix, skipped=skipped, errors=errors,
    )


def _unpack(item: Any, position: int) -> tuple[str, Mapping[str, Any], Mapping[str, Any], Hashable]:
    """``(place, example, prediction, label)`` of one item; ``place`` names it in errors."""
    place = f"human_labels[{position}]"
    if isinstance(item, Record):
        place = item.source or f"record {item.id!r}"
        if "label" not in item.raw:
            raise InputError("missing: a labelled record needs a 'label'", source=place, field="label")
        return place, item.example, item.prediction, item.raw["label"]
    if isinstance(item, Mapping):
        missing = [k for k in ("example", "prediction", "label") if k not in item]
        if missing:
            raise InputError(f"lacks {', '.join(missing)}", source=place)
        return place, item["example"], item["prediction"], item["label"]
    if isinstance(item, Sequence) and len(item) == 3:
        return place, item[0], item[1], item[2]
    raise InputError("must be a mapping, an (example, prediction, label) triple or a Record", source=place)


def _default_to_label(metric: Metric, truth: Sequence[Hashable], places: Sequence[str]) -> Callable[[float], Hashable]:
    if all(isinstance(label, bool) for label in truth):
        return metric.spec.passes
    for place, label in zip(places, truth):
        if not isinstance(label, (int, float)):
            raise InputError(f"{label!r} is neither true/false nor a number; other labels need a to_label function "
                             "that maps the metric's values to them", source=place, field="label")
    choices = sorted(set(truth))
    return lambda value: min(choices, key=lambda label: (abs(label - value), label))


def _sort_key(label: Any) -> tuple[int, str, Any]:
    if isinstance(label, (int, float)):
        return (0, "", label)
    return (1, type(label).__name__, label)
