"""The adaptive concurrency limit against a server on 127.0.0.1 that refuses calls for load."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest
from evalcore.http import OpenAIClient
from evalcore.testing import Reply, ScriptedServer
from evalcore_http.limiter import ANSWERED, OVERLOADED, AdaptiveLimiter

CAPACITY = 6  # the server answers HTTP 429 to a request that finds this many already in its hands


class Overloadable:
    """A server's default reply: HTTP 429 above ``CAPACITY`` requests in hand, else a chat answer
    after ``delay`` seconds (``capacity``: ``CAPACITY`` unless given); it counts the refusals, and
    those after the first ``settle`` answers apart."""

    def __init__(self, delay: float = 0.05, settle: int = 60, capacity: int = CAPACITY) -> None:
        self.delay = delay
        self.capacity = capacity
        self.settle = settle
        self.in_hand = 0
        self.answered = 0
        self.refused = 0
        self.refused_after_settle = 0
        self._lock = threading.Lock()

    def __call__(self, request):
        with self._lock:
            if self.in_hand >= self.capacity:
                self.refused += 1
                self.refused_after_settle += self.answered >= self.settle
                return Reply(429, {"error": {"message": "slow down"}})
            self.in_hand += 1
        time.sleep(self.delay)
        with self._lock:
            self.in_hand -= 1
            self.answered += 1
        return Reply.chat(request["messages"][0]["content"], usage={"prompt_tokens": 3, "completion_tokens": 1})


def run_calls(server, n, **options):
    client = OpenAIClient(server.base_url, "m", rng=random.Random(0), backoff_base=0.02, max_retries=30, **options)
    limits = []

    async def run():
        limiter = client._state().limiter

        async def one(i):
            result = await client.achat([{"role": "user", "content": str(i)}])
            limits.append(limiter.limit)
            return result.text

        return await asyncio.gather(*(one(i) for i in range(n))), limiter

    texts, limiter = asyncio.run(run())
    return texts, limiter, limits


def test_the_limit_converges_below_the_server_capacity_and_no_call_is_lost():
    server_state = Overloadable()
    with ScriptedServer(default=server_state) as server:
        texts, limiter, limits = run_calls(server, 240, max_concurrency=32)
    assert texts == [str(i) for i in range(240)]  # every call answered, in its place
    assert server_state.answered == 240
    assert limiter.cuts >= 1 and server_state.refused >= 1  # it started above the capacity and backed off
    late = limits[120:]
    assert max(late) <= CAPACITY + 2  # additive increase probes a little above the capacity at most
    assert sum(late) / len(late) < CAPACITY
    assert server_state.refused_after_settle <= 40  # once settled, a refusal is a rare probe


def test_a_server_that_keeps_up_is_used_at_the_ceiling():
    with ScriptedServer(default=Overloadable(capacity=10_000)) as server:
        texts, limiter, _ = run_calls(server, 64, max_concurrency=16)
    assert len(texts) == 64 and limiter.limit >= 12  # a latency spike on a loaded machine costs a tenth at most


def test_fixed_limit_never_adapts():
    async def run():
        limiter = AdaptiveLimiter(8, adaptive=False)
        sent = await limiter.acquire()
        limiter.release(sent, OVERLOADED)
        return limiter.limit

    assert asyncio.run(run()) == 8


class Clock:
    """A stand-in for the ``time`` module: ``monotonic()`` is what the test sets."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_one_burst_of_refusals_halves_the_limit_once_and_slow_answers_cut_it(monkeypatch):
    import evalcore_http.limiter

    clock = Clock()
    monkeypatch.setattr(evalcore_http.limiter, "time", clock)

    async def answered_after(limiter, seconds):
        sent = await limiter.acquire()
        clock.now += seconds
        limiter.release(sent, ANSWERED)

    async def run():
        limiter = AdaptiveLimiter(16)
        sent = [await limiter.acquire() for _ in range(16)]
        clock.now += 0.01
        for s in sent:
            limiter.release(s, OVERLOADED)  # all sent before the first cut
        after_burst = limiter.limit
        for _ in range(12):  # answers in 10 ms: the fastest, and growth
            await answered_after(limiter, 0.01)
        healthy = limiter._limit
        for _ in range(3):  # answers in 100 ms read as load
            await answered_after(limiter, 0.1)
        return after_burst, healthy, limiter._limit

    after_burst, healthy, after_slow = asyncio.run(run())
    assert after_burst == 8
    assert healthy == pytest.approx(8 + sum(1 / x for x in _growth(8.0, 12)))  # 1/limit an answer
    # smoothed latency (0.9 old + 0.1 new) after 10 ms answers: 0.019, 0.0271 (below 3 x 10 ms: growth),
    # then 0.03439 (above: a tenth off)
    grown = _growth(healthy, 3)[-1]
    assert after_slow == pytest.approx(grown * 0.9)


def _growth(limit, answers):
    """The limits each answer in time grows from (additive increase: ``limit += 1 / limit``)."""
    out = []
    for _ in range(answers):
        out.append(limit)
        limit += 1 / limit
    return out
