"""Monitors over windows of scored traces, decided with anytime-valid confidence sequences.

A monitor follows one metric of one scorer in consecutive windows of ``window`` values. In window
``w`` (1, 2, ...) it keeps the confidence sequence of the window's mean at level
``1 - alpha / (w (w + 1))``; these levels spend at most ``alpha = 1 - confidence`` over all windows,
so however long the stream is watched, an alarm is false with probability at most ``alpha``. It
alarms when the window's upper bound falls below the ``floor``, or below the lower bound of the
baseline (the first ``baseline`` values, at level ``1 - alpha / 2``; windows then spend the other half)
minus ``margin``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import mean_sequence

__all__ = ["MonitorSpec", "Monitor"]


@attrs.frozen
class MonitorSpec:
    """A monitor from a config's ``[[monitor]]`` table."""

    name: str
    metric: str
    scorer: str = "all"
    floor: float | None = None
    baseline: int | None = None
    margin: float = 0.0
    window: int = 200
    confidence: float = 0.95
    low: float = 0.0
    high: float = 1.0


class Monitor:
    """The state of one monitor; :meth:`add` returns an alarm (a dict) when one fires."""

    def __init__(self, spec: MonitorSpec) -> None:
        self.spec = spec
        self.alpha = 1 - spec.confidence
        self.baseline: list[float] = []
        self.reference: float | None = spec.floor
        self.values: list[float] = []
        self.index = 1

    def _window_alpha(self) -> float:
        share = self.alpha / 2 if self.spec.baseline else self.alpha
        return share / (self.index * (self.index + 1))

    def add(self, value: float, trace_id: str = "") -> dict[str, Any] | None:
        """Adds one value; the alarm it raises, if any."""
        found = self.add_many([value], [trace_id])
        return found[0] if found else None

    def add_many(self, values: Sequence[float], trace_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Adds values in order (a window's sequence is computed once per call); the alarms raised."""
        spec, ids = self.spec, list(trace_ids) if trace_ids is not None else [""] * len(values)
        alarms, at = [], 0
        if spec.baseline and len(self.baseline) < spec.baseline:
            at = spec.baseline - len(self.baseline)
            self.baseline.extend(values[:at])
            if len(self.baseline) == spec.baseline:
                _, low, _ = mean_sequence(np.array(self.baseline), spec.low, spec.high,
                                          confidence=1 - self.alpha / 2)
                floors = [float(low[-1]) - spec.margin] + ([spec.floor] if spec.floor is not None else [])
                self.reference = max(floors)
        while at < len(values) and self.reference is not None:
            take = list(values[at:at + spec.window - len(self.values)])
            start = len(self.values)
            centre, _, high = mean_sequence(np.array(self.values + take), spec.low, spec.high,
                                            confidence=1 - self._window_alpha())
            below = np.flatnonzero(high[start:] < self.reference)
            if below.size:
                t = start + int(below[0])
                alarms.append({"monitor": spec.name, "metric": spec.metric, "scorer": spec.scorer,
                               "window": self.index, "n": t + 1, "estimate": float(centre[t]),
                               "upper": float(high[t]), "reference": self.reference,
                               "confidence": spec.confidence, "trace_id": ids[at + t - start]})
                at += t - start + 1
                self.values, self.index = [], self.index + 1
                continue
            at += len(take)
            self.values += take
            if len(self.values) >= spec.window:
                self.values, self.index = [], self.index + 1
        return alarms
