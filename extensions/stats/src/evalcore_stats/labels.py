"""Labels on some records of a run: read (bounded), bound to the metric(s) they label, checked against
each metric's range.

A labels file is JSON lines of ``{"id": ..., "label": number}``, each line optionally naming the
metric it labels (``"metric": "judge/faithfulness"``); a mapping is ``{record id: number}`` or
``{metric id: {record id: number}}``. Lines that name no metric label the metrics given with
``--labels-metric`` / ``labels_metric=`` (``metrics=`` of :func:`evalcore.ppi`), or the run's only
per-record metric; with several and none named, the labels are refused rather than applied to all.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import EvalcoreError, InputError, Run, metric_of

LabelSets = dict[str | None, dict[str, float]]
"""Labels by metric id (``None``: lines that name no metric), then by record id."""

MAX_LABELS_BYTES = 256 * 1024 * 1024
"""A labels file larger than this is refused (labels are on some records, read whole into memory)."""

_HOW_TO_NAME = ('name it with a "metric" field on each line, --labels-metric ID on the command line '
                "or labels_metric= in Python")


def read_labels(labels: Any, field: str = "labels") -> LabelSets:
    """Labels by metric id (``None`` for lines naming none), then by record id, from a JSONL file of
    ``{"id": ..., "label": number, "metric"?: id}`` lines or a mapping (``{id: number}`` or
    ``{metric: {id: number}}``), each label a finite number. A file that is not a regular file (a
    FIFO, a device) or larger than :data:`MAX_LABELS_BYTES` is refused before it is read."""
    if isinstance(labels, Mapping):
        return _from_mapping(labels, field)
    if not isinstance(labels, (str, os.PathLike)):
        raise InputError(f"give a JSONL file or a mapping of record id to label, not a {type(labels).__name__}",
                         field=field)
    path = os.fspath(labels)
    _check_file(path)
    out: LabelSets = {}
    with open(path, encoding="utf-8", errors="strict") as handle:
        try:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    _add_line(out, line, f"{path}:{number}")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start} of a line); "
                             "convert it with iconv -t UTF-8", source=path) from None
    if not out:
        raise InputError("no labels", source=path)
    return out


def _check_file(path: str) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=path) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("not a regular file (a FIFO, device or socket): give labels as a file", source=path)
    if info.st_size > MAX_LABELS_BYTES:
        raise InputError(f"{info.st_size} bytes: labels files are read whole and may hold at most "
                         f"{MAX_LABELS_BYTES // 2**20} MiB", source=path)


def _add_line(out: LabelSets, line: str, where: str) -> None:
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", source=where) from None
    except RecursionError:
        raise InputError("value nested too deeply", source=where) from None
    if not isinstance(item, Mapping) or "id" not in item or "label" not in item:
        raise InputError('each line needs an "id" and a "label"', source=where)
    metric = item.get("metric")
    if metric is not None and not (isinstance(metric, str) and metric):
        raise InputError(f'"metric" names a metric id; got {metric!r}', source=where, field="metric")
    key = str(item["id"])
    own = out.setdefault(metric, {})
    if key in own:
        raise InputError(f"record {key!r} is labelled twice{f' for {metric}' if metric else ''}", source=where)
    own[key] = _number(item["label"], "label", where)


def _from_mapping(labels: Mapping[Any, Any], field: str) -> LabelSets:
    if labels and all(isinstance(v, Mapping) for v in labels.values()):
        return {None if metric is None else str(metric):
                {str(k): _number(v, field, f"{metric} record {k!r}") for k, v in own.items()}
                for metric, own in labels.items()}
    return {None: {str(k): _number(v, field, f"record {k!r}") for k, v in labels.items()}}


def _number(value: Any, field: str, where: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    raise InputError(f"a label must be a finite number; got {value!r}", source=where, field=field)


def bind_labels(sets: LabelSets, run: Run, requested: Sequence[str] | None,
                field: str = "labels") -> dict[str, dict[str, float]]:
    """The labels of each metric they label in ``run``: lines naming a metric label that metric,
    the others the ``requested`` metrics, or the run's only per-record metric. Labels for a metric
    the run does not hold, or unnamed labels with several candidates, are refused."""
    per_record = [m for m in run.metrics if run.granularity(m) != "corpus"]
    bound: dict[str, dict[str, float]] = {}
    for metric, own in sets.items():
        if metric is None:
            continue
        found = _resolve(metric, run)
        if requested and found not in requested:
            raise InputError(f"the labels are for {found}, not for the metric(s) asked for "
                             f"({', '.join(requested)})", field=field)
        bound[found] = {**bound.get(found, {}), **own}
    unnamed = sets.get(None)
    if unnamed is not None:
        targets = list(requested) if requested else per_record if len(per_record) == 1 else None
        if not per_record and not requested:
            raise InputError(f"{run.name} has no per-record metric to estimate (corpus metrics are not means of "
                             "per-record scores)", field=field)
        if targets is None:
            raise InputError(f"the labels name no metric and {run.name} has {len(per_record)} per-record metrics "
                             f"({', '.join(per_record[:5])}{', ...' if len(per_record) > 5 else ''}); "
                             f"{_HOW_TO_NAME}", field=field)
        for metric in targets:
            bound.setdefault(_resolve(metric, run), {}).update(unnamed)
    for metric, own in bound.items():
        check_range(metric, own, metric_range(run, metric), field)
    return bound


def _resolve(metric: str, run: Run) -> str:
    """``metric`` as the run's id: itself, or the one id whose name (after the namespace) it is."""
    if metric in run.metrics:
        if run.granularity(metric) == "corpus":
            raise InputError(f"{metric} is a corpus metric: its value is not a mean of per-record scores",
                             field="metrics")
        return metric
    named = [m for m in run.metrics if m.split("/", 1)[-1] == metric]
    if len(named) == 1:
        return _resolve(named[0], run)
    raise InputError(f"labels for {metric!r}, which {run.name} does not hold (its metrics: "
                     f"{', '.join(list(run.metrics)[:5])}{', ...' if len(run.metrics) > 5 else ''})", field="metrics")


def metric_range(run: Run, metric: str) -> tuple[float | None, float | None] | None:
    """The metric's value range from its spec (``(None, None)`` parts for an open end), or ``None``
    when its plugin is not installed."""
    try:
        low, high = metric_of(run, metric).spec.value_range
    except EvalcoreError:
        return None
    return (None if low is None else float(low), None if high is None else float(high))


def check_range(metric: str, labels: Mapping[str, float], bounds: tuple[float | None, float | None] | None,
                field: str = "labels") -> None:
    """Refuse a label outside the metric's range, naming the record and the value."""
    if bounds is None:
        return
    low, high = bounds
    for key, value in labels.items():
        if (low is not None and value < low) or (high is not None and value > high):
            raise InputError(f"record {key!r}: label {value:g} is outside the range of {metric} "
                             f"({_scale(bounds)}); labels are on the metric's scale", field=field)


def _scale(bounds: tuple[float | None, float | None]) -> str:
    low, high = bounds
    return f"{'-∞' if low is None else f'{low:g}'}–{'∞' if high is None else f'{high:g}'}"
