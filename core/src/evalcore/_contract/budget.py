"""A spending budget in millisatoshis: reserve the worst case before a call, settle after.

The promise: the spend never exceeds ``limit_msats``, whatever a backend reports and
however many calls run at once. A call reserves its worst-case cost first (for a model:
the prompt tokens plus ``max_tokens``, the hard cap sent to the backend, at the price
table); it starts only if that fits next to what is spent and what is held by calls in
flight. When it finishes, the reservation is released and the call is charged
``min(actual, reserved)``; a backend that reports more than the worst case it was allowed
is recorded as an overrun (calls and msats) instead of being charged past the limit.
"""

from __future__ import annotations

import operator
import threading

from evalcore._lazy import publish

from .errors import ParameterError


class Budget:
    """Thread-safe budget; :meth:`reserve` and :meth:`settle` may be called from any thread
    or event-loop task (the lock is held only for the arithmetic, never across a call).

    ``spent`` is what settled calls were charged; ``reserved`` is held for calls in flight;
    ``refused`` counts reservations that did not fit; ``overrun_msats`` and ``overrun_calls``
    record costs reported beyond a call's reservation (never charged).
    """

    def __init__(self, limit_msats: int | None) -> None:
        self.limit_msats = None if limit_msats is None else _amount(limit_msats, "budget_msats")
        self.spent = 0
        self.reserved = 0
        self.refused = 0
        self.overrun_msats = 0
        self.overrun_calls = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int | None:
        """What is neither spent nor held (``None`` without a limit)."""
        with self._lock:
            if self.limit_msats is None:
                return None
            return self.limit_msats - self.spent - self.reserved

    def reserve(self, estimate_msats: int) -> bool:
        """Hold ``estimate_msats`` (the call's worst case) if it fits; ``False`` (and counted) if not."""
        estimate = _amount(estimate_msats, "estimate_msats")
        with self._lock:
            if self.limit_msats is not None and self.spent + self.reserved + estimate > self.limit_msats:
                self.refused += 1
                return False
            self.reserved += estimate
            return True

    def settle(self, reserved_msats: int, actual_msats: int) -> int:
        """Release a reservation of ``reserved_msats`` and charge the call; returns the charge.

        The charge is ``min(actual, reserved)``; the rest of a larger actual cost is an overrun.
        Without a limit nothing is reserved and the actual cost is charged.
        """
        reserved = _amount(reserved_msats, "reserved_msats")
        actual = _amount(actual_msats, "actual_msats")
        with self._lock:
            self.reserved -= reserved
            charge = actual if self.limit_msats is None else min(actual, reserved)
            if charge < actual:
                self.overrun_msats += actual - charge
                self.overrun_calls += 1
            self.spent += charge
            return charge

    def to_dict(self) -> dict[str, int | None]:
        with self._lock:
            return {"limit_msats": self.limit_msats, "spent_msats": self.spent, "refused_calls": self.refused,
                    "overrun_msats": self.overrun_msats, "overrun_calls": self.overrun_calls}


def _amount(value: int, name: str) -> int:
    try:
        amount = operator.index(value)
    except TypeError:
        amount = -1
    if isinstance(value, bool) or amount < 0:
        raise ParameterError(f"{name} must be a whole number of msats >= 0; got {value!r}")
    return amount


publish(globals())
