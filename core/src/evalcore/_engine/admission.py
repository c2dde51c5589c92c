"""Budget admission in input order, so a run admits the same samples at any concurrency.

Sample *i* is decided after samples *0 … i-1*. It is admitted when its estimate (its
worst case) fits next to what is spent and what running calls hold. When it does not fit
while earlier calls still run, the decision waits for them to settle — they may be
charged less than they hold — and it is refused only when nothing is running. Every
decision is therefore the one a one-at-a-time run makes.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any


class OrderedAdmission:
    """Admission of one metric's samples over one chunk (indices 0, 1, … in input order)."""

    def __init__(self, budget: Any, wait_s: float | None = None) -> None:
        self.budget = budget
        self.wait_s = wait_s
        self._next = 0
        self._running = 0
        self._lock = threading.Condition()
        self._async: asyncio.Condition | None = None

    def _decide(self, index: int, estimate: int, give_up: bool) -> bool | None:
        """``True`` / ``False`` once decided; ``None`` while it must wait (call under the lock)."""
        if index != self._next:
            return None
        remaining = self.budget.remaining
        if remaining is not None and estimate > remaining and self._running and not give_up:
            return None
        admitted = self.budget.reserve(estimate)
        self._next += 1
        self._running += admitted
        return admitted

    def admit(self, index: int, estimate: int) -> bool:
        """Decide sample ``index`` (blocking; for worker threads)."""
        with self._lock:
            decision = self._decide(index, estimate, False)
            while decision is None:
                waited = self._lock.wait(self.wait_s)
                decision = self._decide(index, estimate, give_up=not waited)
            self._lock.notify_all()
            return decision

    def settle(self, estimate: int, actual: int) -> None:
        self.budget.settle(estimate, actual)
        with self._lock:
            self._running -= 1
            self._lock.notify_all()

    async def aadmit(self, index: int, estimate: int) -> bool:
        """Decide sample ``index`` (for tasks on the event loop)."""
        condition = self._condition()
        async with condition:
            decision = self._decide(index, estimate, False)
            while decision is None:
                try:
                    await asyncio.wait_for(condition.wait(), self.wait_s)
                    give_up = False
                except TimeoutError:
                    give_up = True
                decision = self._decide(index, estimate, give_up)
            condition.notify_all()
            return decision

    async def asettle(self, estimate: int, actual: int) -> None:
        self.budget.settle(estimate, actual)
        condition = self._condition()
        async with condition:
            self._running -= 1
            condition.notify_all()

    def _condition(self) -> asyncio.Condition:
        if self._async is None:
            self._async = asyncio.Condition()
        return self._async
