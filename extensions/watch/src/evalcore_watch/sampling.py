"""Which traces each scorer scores: a rate, attribute filters, always on an error or a matching
attribute (a user's thumbs-down), and a spend budget per hour and per day that is never exceeded."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from .assembly import Trace

__all__ = ["Rule", "Budget", "draw"]


def draw(trace_id: str, salt: str) -> float:
    """A uniform number in [0, 1) fixed by the trace id, so a decision is the same after a restart."""
    digest = hashlib.blake2b(f"{salt}:{trace_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def _matches(attributes: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Every key has the value wanted (or one of a list of values)."""
    for key, value in wanted.items():
        allowed = value if isinstance(value, list) else [value]
        if attributes.get(key) not in allowed:
            return False
    return bool(wanted)


@attrs.frozen
class Rule:
    """A scorer: ``metrics`` on the traces whose attributes match ``where`` (all of them), sampled at
    ``rate``; a trace with an error status (``on_error``) or matching ``always`` is always taken."""

    name: str
    metrics: tuple[str, ...] = attrs.field(converter=tuple)
    rate: float = 1.0
    where: Mapping[str, Any] = attrs.field(factory=dict)
    always: Mapping[str, Any] = attrs.field(factory=dict)
    on_error: bool = False
    cost_msats: int = 0
    """Estimated cost of scoring one trace (the metrics' estimates, summed)."""

    def probability(self, trace: Trace) -> float:
        """The probability with which this rule takes ``trace`` (0 when it is not taken this time)."""
        if self.where and not _matches(trace.attributes, self.where):
            return 0.0
        if (self.on_error and trace.error) or _matches(trace.attributes, self.always):
            return 1.0
        return self.rate if draw(trace.trace_id, self.name) < self.rate else 0.0


@attrs.define
class Budget:
    """Spend per hour and per day (millisatoshis), never exceeded: a trace is admitted only when its
    estimated cost fits in what is left of both."""

    per_hour_msats: int | None = None
    per_day_msats: int | None = None
    spent: dict[str, int] = attrs.field(factory=dict)

    @staticmethod
    def _keys(when: datetime) -> tuple[str, str]:
        return when.strftime("%Y-%m-%dT%H"), when.strftime("%Y-%m-%d")

    def left(self, when: datetime) -> int | None:
        """What may still be spent at ``when`` (``None``: no limit)."""
        hour, day = self._keys(when)
        limits = [(self.per_hour_msats, hour), (self.per_day_msats, day)]
        lefts = [limit - self.spent.get(key, 0) for limit, key in limits if limit is not None]
        return min(lefts) if lefts else None

    def admit(self, cost_msats: int, when: datetime) -> bool:
        """Reserves ``cost_msats`` when it fits; whether it did."""
        left = self.left(when)
        if left is not None and cost_msats > left:
            return False
        self.charge(cost_msats, when)
        return True

    def charge(self, cost_msats: int, when: datetime) -> None:
        for key in self._keys(when):
            self.spent[key] = self.spent.get(key, 0) + cost_msats
