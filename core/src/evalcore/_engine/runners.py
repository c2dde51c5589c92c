"""One runner per metric kind: each scores a metric over the units of one chunk.

* sample metrics: synchronous ones that compute (most) in one call over the chunk on the
  engine's thread (one call of the metric's ``score_batch`` where it has one: cheap text
  metrics normalise each distinct string once); those that wait
  (:attr:`~evalcore.plugin.SampleMetric.io_bound`) or have a time limit on worker threads,
  the chunk split in at most ``concurrency`` slices (one thread hop per slice, not per
  sample); asynchronous ones on the event loop, ``concurrency`` at a time;
* batch metrics: one vectorised call per chunk (or over the reader's columns);
* corpus metrics: per-sample states, merged later.

Every runner reserves each sample's estimated cost in the run's budget before scoring
and settles it after; a sample that does not fit is skipped with :data:`BUDGET_SKIP`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from evalcore._contract.metric import BatchMetric, CorpusMetric, Metric, SampleMetric, result_check
from evalcore._contract.scores import Score

from .admission import OrderedAdmission
from .calls import aguard, batch_caller, call_each, sample_caller

Pairs = Sequence[Any]
"""Examples, or predictions (as metrics see them), in unit order."""
Scored = tuple[list[Score], list[Any] | None]
"""A runner's scores, one per unit, and for corpus metrics the units' states (``None`` where none)."""

BUDGET_SKIP = "budget exhausted: the estimated cost exceeds what remains"


def estimate_of(metric: Metric, example: Any, prediction: Any) -> int:
    """The metric's cost estimate for one pair (its ``estimate``; the spec's if that fails)."""
    try:
        return int(metric.estimate(example, prediction).get("cost_msats", metric.spec.cost_msats))
    except Exception:  # noqa: BLE001 - an estimate that fails falls back to the spec's
        return metric.spec.cost_msats


class MetricRunner:
    """Scores one metric over the ready units of a chunk; subclasses per metric kind."""

    def __init__(self, metric: Metric, *, budget: Any, timeout_s: float | None, concurrency: int,
                 pool: Executor, columns: Any = None) -> None:
        self.metric = metric
        self.budget = budget
        self.timeout_s = timeout_s
        self.concurrency = concurrency
        self.pool = pool
        self.columns = columns

    async def run(self, examples: Pairs, views: Pairs) -> Scored:
        raise NotImplementedError

    def _admit(self, examples: Pairs, views: Pairs) -> tuple[list[int], list[int], list[Score | None]]:
        """Indices of the units whose estimate fits the budget, their reservations, and skips."""
        out: list[Score | None] = [None] * len(examples)
        if self.budget.limit_msats is None:
            return list(range(len(examples))), [0] * len(examples), out
        admitted, reserved = [], []
        for i, (example, view) in enumerate(zip(examples, views)):
            estimate = estimate_of(self.metric, example, view)
            if self.budget.reserve(estimate):
                admitted.append(i)
                reserved.append(estimate)
            else:
                out[i] = Score.skipped(BUDGET_SKIP)
        return admitted, reserved, out

    async def _in_thread(self, fn: Any, *args: Any) -> Any:
        # in the run's context, as asyncio.to_thread calls: dspy.context(lm=...) reaches the metric
        return await asyncio.get_running_loop().run_in_executor(self.pool, contextvars.copy_context().run, fn, *args)


class SyncSampleRunner(MetricRunner):
    async def run(self, examples: Pairs, views: Pairs) -> Scored:
        n = len(examples)
        admission = OrderedAdmission(self.budget, self.timeout_s) if self.budget.limit_msats is not None else None
        if self.timeout_s is None and not self.metric.io_bound:  # type: ignore[attr-defined]
            if admission is None and self.metric.batched:  # type: ignore[attr-defined]
                return batch_caller(self.metric)(examples, views), None  # type: ignore[arg-type]
            return self._score_slice(examples, views, range(n), admission), None
        slices = min(self.concurrency, n) or 1
        if admission is not None:  # round-robin: samples are admitted in input order without serialising
            parts = [range(start, n, slices) for start in range(slices)]
        else:  # neighbouring samples together
            size = -(-n // slices)
            parts = [range(low, min(low + size, n)) for low in range(0, n, size)]
        results = await asyncio.gather(*(
            self._in_thread(self._score_slice, examples, views, part, admission) for part in parts))
        out: list[Score] = [None] * n  # type: ignore[list-item]
        for part, scores in zip(parts, results):
            out[part.start:part.stop:part.step] = scores
        return out, None

    def _score_slice(self, examples: Pairs, views: Pairs, mine: range,
                     admission: OrderedAdmission | None) -> list[Score]:
        call = sample_caller(self.metric)  # type: ignore[arg-type]
        if admission is None and self.timeout_s is None:
            return [call(example, view) for example, view in zip(examples[mine.start:mine.stop:mine.step],
                                                                 views[mine.start:mine.stop:mine.step])]

        def one(i: int) -> Score:
            index = mine[i]
            if admission is None:
                return call(examples[index], views[index])
            estimate = estimate_of(self.metric, examples[index], views[index])
            if not admission.admit(index, estimate):
                return Score.skipped(BUDGET_SKIP)
            score = call(examples[index], views[index])
            admission.settle(estimate, score.cost_msats)
            return score

        return call_each(one, len(mine), self.timeout_s)


class AsyncSampleRunner(MetricRunner):
    async def run(self, examples: Pairs, views: Pairs) -> Scored:
        metric: SampleMetric = self.metric  # type: ignore[assignment]
        semaphore = asyncio.Semaphore(self.concurrency)
        admission = OrderedAdmission(self.budget, self.timeout_s) if self.budget.limit_msats is not None else None
        check = result_check(metric.spec)

        async def one(index: int, example: Any, view: Any) -> Score:
            async with semaphore:
                if admission is None:
                    return await aguard(metric.ascore, (example, view), self.timeout_s, check)
                estimate = estimate_of(metric, example, view)
                if not await admission.aadmit(index, estimate):
                    return Score.skipped(BUDGET_SKIP)
                score = await aguard(metric.ascore, (example, view), self.timeout_s, check)
                await admission.asettle(estimate, score.cost_msats)
                return score

        return list(await asyncio.gather(*(one(i, e, v) for i, (e, v) in enumerate(zip(examples, views))))), None


class BatchRunner(MetricRunner):
    async def run(self, examples: Pairs, views: Pairs) -> Scored:
        metric: BatchMetric = self.metric  # type: ignore[assignment]
        admitted, reserved, out = self._admit(examples, views)
        scores = None
        if self.columns is not None and len(admitted) == len(examples) and metric.accepts_columns(self.columns):
            scores = (await self._in_thread(metric.score_columns, self.columns)).scores()
        if scores is None:
            scores = await self._in_thread(
                metric.score_many, [examples[i] for i in admitted], [views[i] for i in admitted])
        for i, estimate, score in zip(admitted, reserved, scores):
            self.budget.settle(estimate, score.cost_msats)
            out[i] = score
        return out, None  # type: ignore[return-value]


class CorpusRunner(MetricRunner):
    async def run(self, examples: Pairs, views: Pairs) -> Scored:
        metric: CorpusMetric[Any] = self.metric  # type: ignore[assignment]
        admitted, reserved, out = self._admit(examples, views)
        pairs = await self._in_thread(
            metric.states, [examples[i] for i in admitted], [views[i] for i in admitted])
        states: list[Any] = [None] * len(examples)
        for i, estimate, (score, state) in zip(admitted, reserved, pairs):
            self.budget.settle(estimate, score.cost_msats)
            states[i] = state
            out[i] = score
        return out, states  # type: ignore[return-value]


def runner_for(metric: Metric, **kwargs: Any) -> MetricRunner:
    """The runner for ``metric``'s kind."""
    if isinstance(metric, CorpusMetric):
        return CorpusRunner(metric, **kwargs)
    if isinstance(metric, BatchMetric):
        return BatchRunner(metric, **kwargs)
    if isinstance(metric, SampleMetric):
        return (AsyncSampleRunner if metric.is_async else SyncSampleRunner)(metric, **kwargs)
    raise TypeError(f"{type(metric).__name__} is not a sample, batch or corpus metric")
