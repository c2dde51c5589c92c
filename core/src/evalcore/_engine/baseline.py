"""A finished baseline run's per-record values, for a run that stops once it is decided against it."""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from evalcore._contract.errors import EvalcoreError

BaselineValues = dict[str, dict[str, float]]
"""``{metric id: {record id: value}}``: the values a baseline run scored (``ok`` rows only)."""


def baseline_values(baseline: Any) -> BaselineValues:
    """The per-record values of ``baseline``: an :class:`~evalcore.EvaluationResult` (or anything
    with ``samples`` rows), a saved run's JSON report or rows journal, rows themselves, or a mapping
    ``{metric id: {record id: value}}``."""
    if isinstance(baseline, (str, os.PathLike)):
        from .saved import read_saved

        baseline = list(read_saved(baseline).rows.values())
    if isinstance(baseline, Mapping):
        try:
            return _finite({str(m): {str(i): float(v) for i, v in dict(values).items()}
                            for m, values in baseline.items()})
        except (TypeError, ValueError):
            raise EvalcoreError("baseline must map each metric id to {record id: value}") from None
    rows = getattr(baseline, "samples", baseline)
    if not isinstance(rows, Iterable) or isinstance(rows, (str, bytes)):
        raise EvalcoreError(f"baseline must be a finished run (an EvaluationResult, a saved report or journal) "
                            f"or its values {{metric id: {{record id: value}}}}; got {type(baseline).__name__}")
    values: BaselineValues = {}
    for row in rows:
        for metric_id, score in (row.get("scores") or {}).items():
            if score.get("status") == "ok" and score.get("value") is not None:
                values.setdefault(metric_id, {})[str(row["id"])] = float(score["value"])
    return _finite(values)


def _finite(values: BaselineValues) -> BaselineValues:
    """``values``, refused when one is not a finite number (a difference from it would mean nothing)."""
    for metric_id, by_record in values.items():
        for record_id, value in by_record.items():
            if not math.isfinite(value):
                raise EvalcoreError(f"baseline: {metric_id} of record {record_id!r} is {value}, not a number; "
                                    f"a run is paired only with finite baseline values")
    return values


def baseline_digest(values: BaselineValues) -> str:
    """A SHA-256 of the values (what a resumed run checks it is paired with the same baseline)."""
    return hashlib.sha256(orjson.dumps(values, option=orjson.OPT_SORT_KEYS)).hexdigest()
