"""Reading the outcome labels of one tool step (``step_utility``, ``was_repeated``, ...)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, SkipSample

Record = Mapping[str, Any]


def _field(record: Record, name: str) -> Any:
    value = record.get(name)
    if value is None:
        raise SkipSample(f"prediction.{name} is missing")
    return value


def step_utility(record: Record) -> float:
    """The step utility, a finite number in -1..1."""
    value = _field(record, "step_utility")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {value!r}", field="prediction.step_utility")
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise InputError(f"must be a finite number in -1..1; got {value!r}", field="prediction.step_utility")
    return float(value)


def flag(record: Record, name: str) -> bool:
    """A boolean label such as ``was_repeated`` or ``params_valid``."""
    value = _field(record, name)
    if not isinstance(value, bool):
        raise InputError(f"expected true or false, got {value!r}", field=f"prediction.{name}")
    return value


def count(record: Record, name: str, *, minimum: int | None = None) -> int:
    """An integer label (test counts, deltas, token counts)."""
    value = _field(record, name)
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
        bound = "" if minimum is None else f" >= {minimum}"
        raise InputError(f"expected an integer{bound}, got {value!r}", field=f"prediction.{name}")
    return value


def improvement(record: Record, counts: str) -> tuple[int, int]:
    """``(sign, delta)`` of the test change: sign +1 improved, 0 unchanged, -1 regressed.

    ``verification_delta`` is read as a change in passing tests (``counts="passing"``,
    dsrs: positive is better) or in failing tests (``counts="failing"``, Adjutant:
    negative is better). Without it, ``tests_after - tests_before`` (passing tests) is used.
    """
    if record.get("verification_delta") is None and record.get("tests_after") is not None:
        delta = count(record, "tests_after", minimum=0) - count(record, "tests_before", minimum=0)
        better = delta
    else:
        delta = count(record, "verification_delta")
        better = -delta if counts == "failing" else delta
    return (better > 0) - (better < 0), delta
