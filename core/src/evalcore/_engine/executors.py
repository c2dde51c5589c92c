"""Executors: where chunks are scored. Locally (an event loop plus worker threads), or where an
executor a plugin provides sends them (``executor=NAME``; Ray with evalcore-ray).

Every executor calls the same :func:`~evalcore._engine.score.score_chunk` (on another machine,
from a rebuilt plan), so the numbers cannot differ; each keeps a bounded number of chunks in
flight, so memory is bounded by the chunk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from evalcore._contract.chunk import Chunk
from evalcore._lazy import publish

from .plan import Plan
from .score import ChunkResult, score_chunk

OnResult = Callable[[ChunkResult], bool]
"""Called with each scored chunk; returns ``False`` to stop the run."""


class ChunkExecutor(Protocol):
    """What an executor's implementation, called as ``implementation(plan, program)``, returns."""

    async def run(self, chunks: Iterator[Chunk], on_result: OnResult) -> None:
        """Score ``chunks`` with the local run's chunk function (in another process, on the plan
        :func:`~evalcore.plugin.worker_plan` rebuilds there), handing each result to ``on_result``
        in any order, until the chunks end or ``on_result`` returns ``False``."""
        ...

    def close(self) -> None:
        """Release workers and connections (called once, also after an error)."""
        ...


class LocalExecutor:
    """Chunks scored on this machine: async metrics on the event loop, sync ones in threads."""

    def __init__(self, plan: Plan, program: Callable[..., Any] | None) -> None:
        self.plan = plan
        self.program = program
        # with a budget, one chunk at a time: samples are then admitted in input order
        self.in_flight = 1 if plan.context.budget.limit_msats is not None else 2
        self.pool = ThreadPoolExecutor(max_workers=max(plan.options.concurrency, 2) * self.in_flight,
                                       thread_name_prefix="evalcore")

    async def run(self, chunks: Iterator[Chunk], on_result: OnResult) -> None:
        pending: set[asyncio.Task[ChunkResult]] = set()
        go_on = True
        try:
            for chunk in chunks:
                pending.add(asyncio.create_task(score_chunk(self.plan, chunk, self.pool, self.program)))
                if len(pending) >= self.in_flight:
                    go_on = await self._drain(pending, on_result, asyncio.FIRST_COMPLETED)
                    if not go_on:
                        break
            while pending and go_on:
                go_on = await self._drain(pending, on_result, asyncio.FIRST_COMPLETED)
        finally:
            for task in pending:
                task.cancel()

    @staticmethod
    async def _drain(pending: set[asyncio.Task[ChunkResult]], on_result: OnResult, when: str) -> bool:
        done, _ = await asyncio.wait(pending, return_when=when)
        go_on = True
        for task in sorted(done, key=lambda t: t.result().index):
            pending.discard(task)
            go_on = on_result(task.result()) and go_on
        return go_on

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


publish(globals())
