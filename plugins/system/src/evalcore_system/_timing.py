"""Reading a latency from a prediction: ``timings`` at ``timing_field`` (the Auepora RAG metric spec)
or ``duration_ms`` (the benchmark engine's registry)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SkipSample, get_path


def latency(prediction: Record, *, timing_field: str, source: str) -> float:
    """The latency of one prediction, a finite number >= 0.

    ``source='auto'`` takes the value at the dotted path ``timing_field`` in ``prediction.timings``
    (:func:`~evalcore.plugin.get_path`) and falls back to
    ``prediction.duration_ms``; ``'timings'`` and ``'duration_ms'`` use only that field.
    Skips the sample when no latency is recorded.
    """
    timings = prediction.get("timings")
    if source in ("auto", "timings") and timings is not None:
        if not isinstance(timings, Mapping):
            raise InputError(f"expected a mapping, got {type(timings).__name__}", field="prediction.timings")
        value = get_path(timings, timing_field, None)
        if value is not None:
            return _check(value, f"prediction.timings.{timing_field}")
    if source in ("auto", "duration_ms") and prediction.get("duration_ms") is not None:
        return _check(prediction["duration_ms"], "prediction.duration_ms")
    wanted = {
        "auto": f"prediction.timings.{timing_field} or prediction.duration_ms",
        "timings": f"prediction.timings.{timing_field}",
        "duration_ms": "prediction.duration_ms",
    }[source]
    raise SkipSample(f"no latency: {wanted} is missing")


def _check(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {type(value).__name__} {value!r:.40}", field=field)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"a latency must be a finite number >= 0; got {value!r}", field=field)
    return float(value)
