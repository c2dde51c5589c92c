"""A concurrency limit that adapts to the server (additive increase, multiplicative decrease).

It starts at its ceiling; an overloaded answer (HTTP 429, 503) halves the limit, an answer
much slower than the fastest seen lately (after the first ``WARM_UP``) takes a tenth off, and every answer in time adds
``1 / limit`` (about one more call in flight per round of answers) up to the ceiling, as TCP's
congestion control and the adaptive limits of promptfoo and Phoenix do. A cut counts only
calls sent after the previous cut, so one burst of refusals halves the limit once.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

WARM_UP = 10
"""Answers before latency counts (the first ones include opening connections)."""
OVERLOADED = "overloaded"
"""An outcome of :meth:`AdaptiveLimiter.release`: the server refused the call for load (429, 503)."""
ANSWERED = "answered"
"""An outcome: the server answered the call (its latency counts)."""
FAILED = "failed"
"""An outcome: no answer, or an error other than overload; the limit is left as it is."""


class AdaptiveLimiter:
    """At most :attr:`limit` calls in flight on one event loop, ``floor`` ≤ limit ≤ ``ceiling``.

    ``slow_factor``: an answer whose latency (smoothed) is more than this many times the
    fastest recent one counts as a sign of load. ``adaptive=False`` keeps the limit at the
    ceiling (a fixed semaphore).
    """

    def __init__(self, ceiling: int, *, floor: int = 1, slow_factor: float = 3.0, adaptive: bool = True) -> None:
        self.ceiling = ceiling
        self.floor = min(floor, ceiling)
        self.slow_factor = slow_factor
        self.adaptive = adaptive
        self._limit = float(ceiling)
        self.in_flight = 0
        self.cuts = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._last_cut = float("-inf")
        self._fastest: float | None = None
        self._smoothed: float | None = None
        self._answers = 0

    @property
    def limit(self) -> int:
        """The calls allowed in flight now."""
        return max(self.floor, int(self._limit))

    async def acquire(self) -> float:
        """Wait for a slot; the time the call was sent (give it back to :meth:`release`)."""
        while self.in_flight >= self.limit:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                self._wake()
                raise
        self.in_flight += 1
        return time.monotonic()

    def release(self, sent: float, outcome: str) -> None:
        """Give the slot of a call sent at ``sent`` back, with how it ended."""
        self.in_flight -= 1
        if self.adaptive:
            self._adapt(sent, outcome)
        self._wake()

    def _adapt(self, sent: float, outcome: str) -> None:
        now = time.monotonic()
        if outcome == OVERLOADED:
            self._cut(sent, now, 0.5)
        elif outcome == ANSWERED:
            latency = now - sent
            self._answers += 1
            self._fastest = latency if self._fastest is None else min(self._fastest * 1.01, latency)
            self._smoothed = latency if self._smoothed is None else 0.9 * self._smoothed + 0.1 * latency
            if self._answers > WARM_UP and self._smoothed > self.slow_factor * self._fastest:
                self._cut(sent, now, 0.9)
            else:
                self._limit = min(float(self.ceiling), self._limit + 1 / self._limit)

    def _cut(self, sent: float, now: float, factor: float) -> None:
        if sent < self._last_cut:  # sent before the last cut: that cut answered it already
            return
        self._limit = max(float(self.floor), self._limit * factor)
        self._last_cut = now
        self.cuts += 1

    def _wake(self) -> None:
        free = self.limit - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1
