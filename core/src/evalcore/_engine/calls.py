"""Calling metric code safely: every outcome becomes a :class:`Score`, hung calls time out.

A metric's exception (``SystemExit`` included) is that sample's ``error``; only
``KeyboardInterrupt`` propagates, so the run can stop and keep what finished. A
synchronous call that runs past its time limit is abandoned on its worker thread (Python
cannot kill a thread) and recorded as a ``TimeoutError``; the run goes on.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from evalcore._contract.batch import batch_results
from evalcore._contract.metric import SampleMetric, guarded_call, result_check
from evalcore._contract.scores import Score


def sample_caller(metric: SampleMetric) -> Callable[[Any, Any], Score]:
    """``metric.score`` as a call whose every outcome is a :class:`Score`: the value coerced
    and checked against the declared range, a skip, or an error."""
    return guarded_call(metric.score, result_check(metric.spec))


def batch_caller(metric: SampleMetric) -> Callable[[Sequence[Any], Sequence[Any]], list[Score]]:
    """``metric.score_batch`` as a call whose results are each a checked :class:`Score`; a
    batch that raises is scored pair by pair through :func:`sample_caller` instead."""
    check = result_check(metric.spec)
    one = guarded_call(metric.score, check)
    return functools.partial(batch_results, metric.score_batch, one, check, owner=metric.id)


async def aguard(fn: Callable[..., Any], args: Sequence[Any], timeout_s: float | None,
                 check: Callable[[Any], Score]) -> Score:
    """Await ``fn(*args)`` (at most ``timeout_s``) and turn the outcome into a :class:`Score`
    with ``check`` (a metric's :func:`~evalcore._contract.metric.result_check`). The call runs in
    the caller's task (``asyncio.timeout``, not ``wait_for``'s task of its own: no extra trip
    through the event loop before a judge's request goes out and after its answer comes back)."""
    try:
        async with asyncio.timeout(timeout_s):
            raw = await fn(*args)
        return check(raw)
    except TimeoutError:
        return timed_out(timeout_s)
    except BaseException as exc:  # noqa: BLE001 - one sample's failure is a result
        return Score.from_exception(exc)


def timed_out(timeout_s: float | None) -> Score:
    return Score.error("TimeoutError", f"no result within timeout_s={timeout_s:g} s")


def call_each(fn: Callable[[int], Score], count: int, timeout_s: float | None) -> list[Score]:
    """``[fn(0), …, fn(count - 1)]``, each call cut off after ``timeout_s`` seconds.

    Without a limit the calls run here. With one, they run in order on a helper thread
    that this thread watches; a call past its limit is recorded as timed out, its thread
    abandoned, and a fresh thread takes the next call.
    """
    if timeout_s is None:
        return [fn(i) for i in range(count)]
    results: list[Score | None] = [None] * count
    start = 0
    while start < count:
        start = _watch(fn, results, start, count, timeout_s)
    return results  # type: ignore[return-value]


def _watch(fn: Callable[[int], Score], results: list[Score | None], start: int, count: int,
           timeout_s: float) -> int:
    """Run calls from ``start`` on a new thread; the index to go on from."""
    state = {"index": start, "abandoned": False}
    progressed = threading.Condition()
    failure: list[BaseException] = []

    def worker() -> None:
        for i in range(start, count):
            try:
                score = fn(i)
            except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt, handed to the watcher
                failure.append(exc)
                score = None
            with progressed:
                if state["abandoned"]:
                    return
                if failure:
                    progressed.notify()
                    return
                results[i] = score
                state["index"] = i + 1
                progressed.notify()

    thread = threading.Thread(target=contextvars.copy_context().run, args=(worker,), name="evalcore-metric",
                              daemon=True)  # in the caller's context (dspy.context(lm=...) among it)
    thread.start()
    with progressed:
        while True:
            current = state["index"]
            if current >= count or failure:
                break
            moved = functools.partial(_moved, state, current, failure)
            if not progressed.wait_for(moved, timeout=timeout_s):
                state["abandoned"] = True
                results[current] = timed_out(timeout_s)
                return current + 1
    if failure:
        raise failure[0]
    return count


def _moved(state: dict[str, Any], index: int, failure: list[BaseException]) -> bool:
    return state["index"] != index or bool(failure)
