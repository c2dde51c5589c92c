"""Calibrating a judge metric against human labels: agreement, Cohen's kappa, confusion matrix.

``calibrate(metric, human_labels)`` scores each labelled pair with the metric, turns each
score into a label and compares the two label sequences. Samples the metric skips or
fails on are counted and left out of the comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import attrs

from evalcore._contract.metric import Metric


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
        raise ValueError(f"{len(truth)} true labels but {len(predicted)} predicted labels")
    labels = tuple(labels) if labels is not None else tuple(sorted(set(truth) | set(predicted), key=_sort_key))
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for t, p in zip(truth, predicted):
        if t not in index or p not in index:
            raise ValueError(f"label {t if t not in index else p!r} is not among {labels!r}")
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
        raise ValueError("cohen_kappa needs at least one pair of labels")
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

    Each item is a mapping ``{"example": ..., "prediction": ..., "label": ...}`` or a
    triple ``(example, prediction, label)``. ``to_label`` maps a metric value to a label;
    by default boolean human labels are compared with the metric's pass/fail
    (``metric.spec.passes``) and other labels with the label nearest to the value.
    """
    examples, predictions, truth = [], [], []
    for position, item in enumerate(human_labels):
        example, prediction, label = _unpack(item, position)
        examples.append(example)
        predictions.append(prediction)
        truth.append(label)
    if not truth:
        raise ValueError("calibrate needs at least one labelled sample")
    scores = metric.score_many(examples, predictions)
    convert = to_label or _default_to_label(metric, truth)
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
        raise ValueError(f"{metric.id} scored none of the {len(truth)} labelled samples")
    labels, matrix = confusion_matrix(kept_truth, kept_pred)
    agreement = sum(matrix[i][i] for i in range(len(labels))) / len(kept_truth)
    return Calibration(
        n=len(kept_truth), agreement=agreement, kappa=cohen_kappa(kept_truth, kept_pred),
        labels=labels, confusion=matrix, skipped=skipped, errors=errors,
    )


def _unpack(item: Any, position: int) -> tuple[Mapping[str, Any], Mapping[str, Any], Hashable]:
    if isinstance(item, Mapping):
        missing = [k for k in ("example", "prediction", "label") if k not in item]
        if missing:
            raise ValueError(f"human_labels[{position}] lacks {', '.join(missing)}")
        return item["example"], item["prediction"], item["label"]
    if isinstance(item, Sequence) and len(item) == 3:
        return item[0], item[1], item[2]
    raise ValueError(f"human_labels[{position}] must be a mapping or an (example, prediction, label) triple")


def _default_to_label(metric: Metric, truth: Sequence[Hashable]) -> Callable[[float], Hashable]:
    if all(isinstance(label, bool) for label in truth):
        return metric.spec.passes
    if not all(isinstance(label, (int, float)) for label in truth):
        raise ValueError("non-numeric human labels need a to_label function")
    choices = sorted(set(truth))
    return lambda value: min(choices, key=lambda label: (abs(label - value), label))


def _sort_key(label: Any) -> tuple[int, str, Any]:
    if isinstance(label, (int, float)):
        return (0, "", label)
    return (1, type(label).__name__, label)
