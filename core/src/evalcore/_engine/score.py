"""Scoring one chunk: predictions, proxy metrics, the threshold gate, truth metrics, rows.

The same function runs in the local executor and on Ray workers, so the numbers are the
same by construction. Metrics run one at a time over the whole chunk, in plan order, so
each sees the values of the metrics before it (``prediction["metrics"]``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import attrs

from .._fields import as_record
from .._functions import RecordView
from .._metric import BatchMetric, CorpusMetric, Metric
from .._records import Record
from .._result import Score
from .._spec import Tier
from .._stats import aggregate, describe_values
from .accumulate import Column
from .chunk import Chunk
from .plan import Plan
from .runners import runner_for
from .units import Unit

_NOT_RUN = Score.skipped("not run")


@attrs.frozen
class ChunkResult:
    """A scored chunk: journal rows in input order, and the raw corpus states per row."""

    index: int
    positions: list[int]
    rows: list[dict[str, Any]]
    states: list[dict[str, Any]]
    n_errors: int
    columns: dict[str, Column]


async def score_chunk(plan: Plan, chunk: Chunk, pool: Executor,
                      program: Callable[..., Any] | None = None) -> ChunkResult:
    """Score every metric of ``plan`` on the records of ``chunk``."""
    if program is None and _all_columnar(plan, chunk.columns):
        return await _score_columns(plan, chunk, pool)
    records = chunk.records
    if chunk.columns is not None and hasattr(chunk.columns, "records"):
        records = chunk.columns.records()  # a metric needs the records themselves
        chunk = attrs.evolve(chunk, records=records)
    units = await _predict(plan, records, pool, program)
    flat = [u for rollouts in units for u in rollouts]
    aliases = plan.aliases
    gate: list[dict[str, Any]] | None = None
    for tier in (Tier.PROXY, Tier.TRUTH):
        if tier is Tier.TRUTH and plan.options.threshold is not None:
            gate = _gate(plan, units)
        for metric in plan.tier(tier):
            await _score_metric(plan, metric, flat, pool, aliases, chunk.columns if program is None else None)
    return _result(plan, chunk, units, gate)


def _all_columnar(plan: Plan, columns: Any) -> bool:
    """Whether every metric scores the reader's columns directly, with nothing in between
    (no threshold gate, no cost to reserve)."""
    return (columns is not None and plan.options.threshold is None
            and all(isinstance(m, BatchMetric) and m.accepts_columns(columns) for m in plan.metrics)
            and (plan.context.budget.limit_msats is None or all(m.spec.cost_msats == 0 for m in plan.metrics)))


async def _score_columns(plan: Plan, chunk: Chunk, pool: Executor) -> ChunkResult:
    """The fast path of columnar readers: every metric over the whole chunk, no per-sample objects."""
    loop = asyncio.get_running_loop()
    results = [await loop.run_in_executor(pool, m.score_columns, chunk.columns) for m in plan.metrics]
    ids = chunk.columns.ids
    rows: list[dict[str, Any]] = [{"id": i, "i": p, "scores": {}} for i, p in zip(ids, chunk.positions)]
    columns = {}
    for metric, result in zip(plan.metrics, results):
        column = columns[metric.id] = Column.from_values(result.values, result.skipped)
        metric_id = metric.id
        for row, value in zip(rows, column.values.tolist()):
            row["scores"][metric_id] = {"value": value, "status": "ok"}
        for index, reason in result.skipped.items():
            rows[index]["scores"][metric_id] = {"value": None, "status": "skipped", "reason": reason}
    return ChunkResult(chunk.index, list(chunk.positions), rows, [{}] * len(rows), 0, columns)


def _result(plan: Plan, chunk: Chunk, units: list[list[Unit]], gate: list[dict[str, Any]] | None) -> ChunkResult:
    """Rows (JSON-ready) and per-metric columns of the chunk, in input order."""
    metrics = [(m.id, m, isinstance(m, CorpusMetric), columns_of) for m in plan.metrics
               for columns_of in [Column()]]
    columns = {metric_id: column for metric_id, _, _, column in metrics}
    has_corpus = any(corpus for _, _, corpus, _ in metrics)
    rows, states, errors = [], [], 0
    no_states: dict[str, Any] = {}
    for index, (position, record, rollouts) in enumerate(zip(chunk.positions, chunk.records, units)):
        row_scores = {}
        record_states = {} if has_corpus else no_states
        for metric_id, metric, corpus, column in metrics:
            score = _combine(plan, metric, rollouts)
            row_scores[metric_id] = data = score.to_dict()
            errors += column.add(score)
            if corpus:
                state = record_states[metric_id] = _state(metric, rollouts)
                if state is not None:
                    data["state"] = metric.encode_state(state)
        row: dict[str, Any] = {"id": record.id, "i": position, "scores": row_scores}
        if gate is not None:
            row["gate"] = _final(plan, gate[index], {mid: _combine(plan, m, rollouts) for mid, m, _, _ in metrics})
        rows.append(row)
        states.append(record_states)
    return ChunkResult(chunk.index, list(chunk.positions), rows, states, errors, columns)


async def _score_metric(plan: Plan, metric: Metric, units: list[Unit], pool: Executor,
                        aliases: dict[str, str], columns: Any) -> None:
    ready = []
    for unit in units:
        blocked = _blocked(plan, metric, unit)
        if blocked is None:
            ready.append(unit)
        else:
            unit.store(metric.id, aliases.get(metric.id), blocked)
    if not ready:
        return
    runner = runner_for(metric, budget=plan.context.budget, timeout_s=plan.timeout_for(metric),
                        concurrency=plan.options.concurrency, pool=pool,
                        columns=columns if len(ready) == len(units) else None)
    for unit, score in zip(ready, await runner.run(ready)):
        unit.store(metric.id, aliases.get(metric.id), score)


def _blocked(plan: Plan, metric: Metric, unit: Unit) -> Score | None:
    """Why ``metric`` cannot run on ``unit`` (the program failed, the gate is closed), or ``None``."""
    if unit.program_error is not None:
        return unit.program_error
    return unit.gate_closed if plan.tier_of(metric) is Tier.TRUTH else None


# -- predictions ----------------------------------------------------------------------

async def _predict(plan: Plan, records: list[Record], pool: Executor,
                   program: Callable[..., Any] | None) -> list[list[Unit]]:
    if program is None:
        return [[Unit(r.example, r.prediction)] for r in records]
    semaphore = asyncio.Semaphore(plan.options.concurrency)
    loop = asyncio.get_running_loop()

    async def one(record: Record) -> Unit:
        example = dict(record.example)
        async with semaphore:
            try:
                if inspect.iscoroutinefunction(program):
                    output = await program(RecordView(example))
                else:
                    output = await loop.run_in_executor(pool, program, RecordView(example))
                return Unit(example, as_record(output, role="prediction"))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing program run is this record's error
                return Unit(example, None, program_error=Score.error(type(exc).__name__, f"program failed: {exc}"))

    rollouts = plan.options.rollouts
    flat = await asyncio.gather(*(one(r) for r in records for _ in range(rollouts)))
    return [list(flat[i:i + rollouts]) for i in range(0, len(flat), rollouts)]


# -- rollouts and the gate ------------------------------------------------------------

def _combine(plan: Plan, metric: Metric, rollouts: list[Unit]) -> Score:
    """The record's score for ``metric``: the rollouts aggregated (``aggregate_by``)."""
    if len(rollouts) == 1:
        return rollouts[0].scores.get(metric.id) or _NOT_RUN
    scores = [u.scores.get(metric.id) or _NOT_RUN for u in rollouts]
    ok = [s for s in scores if s.ok and s.value is not None]
    if not ok:
        return scores[0]
    values = [s.value for s in ok]
    method, trim = plan.options.aggregate_by, plan.options.trim
    return Score(
        aggregate(values, method, trim=trim),
        cost_msats=sum(s.cost_msats for s in scores),
        details={"rollouts": [s.to_dict() for s in scores], "aggregate": method, "spread": describe_values(values)},
    )


def _state(metric: CorpusMetric[Any], rollouts: list[Unit]) -> Any:
    states = [u.states[metric.id] for u in rollouts if u.states and metric.id in u.states]
    if not states:
        return None
    return states[0] if len(states) == 1 else metric.merge(states)


def _gate(plan: Plan, units: list[list[Unit]]) -> list[dict[str, Any]]:
    """Open or close the threshold gate of each record on its proxy score (rollouts aggregated)."""
    threshold = plan.options.threshold
    proxies = plan.tier(Tier.PROXY)
    decisions = []
    for rollouts in units:
        values = [s.value for s in (_combine(plan, m, rollouts) for m in proxies) if s.ok and s.value is not None]
        proxy_score = sum(values) / len(values) if values else None
        passed = not proxies or (proxy_score is not None and proxy_score >= threshold)
        closed = None
        if not passed:
            closed = Score.skipped(
                f"proxy score {proxy_score:.4g} is below the threshold {threshold:g}",
                gate="threshold", proxy_score=proxy_score,
            ) if proxy_score is not None else Score.skipped(
                "no proxy metric produced a score, so the threshold gate is closed", gate="threshold")
        for unit in rollouts:
            unit.gate_closed = closed
        decisions.append({"proxy_score": proxy_score, "passed": passed})
    return decisions


def _final(plan: Plan, gated: dict[str, Any], scores: dict[str, Score]) -> dict[str, Any]:
    """Proxy score, whether the gate passed, and the final score (truth mean, else proxy)."""
    truth = [scores[m.id].value for m in plan.tier(Tier.TRUTH) if scores[m.id].ok and scores[m.id].value is not None]
    final = sum(truth) / len(truth) if truth and gated["passed"] else gated["proxy_score"]
    return {**gated, "final": final}
