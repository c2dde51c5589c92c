"""A spending budget in millisatoshis: reserve an estimate before a call, settle after."""

from __future__ import annotations

import threading


class Budget:
    """Thread-safe budget. A call starts only if its estimate fits in what is left.

    ``spent`` is what calls actually cost; ``reserved`` is held for calls in flight.
    With honest (upper-bound) estimates the spend never exceeds ``limit_msats``.
    """

    def __init__(self, limit_msats: int | None) -> None:
        if limit_msats is not None and limit_msats < 0:
            raise ValueError(f"budget must be >= 0 msats; got {limit_msats}")
        self.limit_msats = limit_msats
        self.spent = 0
        self.reserved = 0
        self.refused = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int | None:
        if self.limit_msats is None:
            return None
        return self.limit_msats - self.spent - self.reserved

    def reserve(self, estimate_msats: int) -> bool:
        """Hold ``estimate_msats`` for a call; ``False`` (and counted) if it does not fit."""
        with self._lock:
            if self.limit_msats is not None and \
                    self.spent + self.reserved + estimate_msats > self.limit_msats:
                self.refused += 1
                return False
            self.reserved += estimate_msats
            return True

    def settle(self, estimate_msats: int, actual_msats: int) -> None:
        """Release a reservation and record what the call actually cost."""
        with self._lock:
            self.reserved -= estimate_msats
            self.spent += actual_msats

    def to_dict(self) -> dict[str, int | None]:
        return {"limit_msats": self.limit_msats, "spent_msats": self.spent,
                "refused_calls": self.refused}
