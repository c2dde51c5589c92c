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
from .._metric import CorpusMetric, Metric
from .._records import Record
from .._result import Score, Status
from .._spec import Tier
from .._stats import aggregate, describe_values
from .chunk import Chunk
from .plan import Plan
from .runners import runner_for
from .units import Unit


@attrs.frozen
class ChunkResult:
    """A scored chunk: journal rows in input order, and the raw corpus states per row."""

    index: int
    positions: list[int]
    rows: list[dict[str, Any]]
    states: list[dict[str, Any]]
    n_errors: int


async def score_chunk(plan: Plan, chunk: Chunk, pool: Executor,
                      program: Callable[..., Any] | None = None) -> ChunkResult:
    """Score every metric of ``plan`` on the records of ``chunk``."""
    units = await _predict(plan, chunk.records, pool, program)
    flat = [u for rollouts in units for u in rollouts]
    aliases = plan.aliases
    gate: list[dict[str, Any]] | None = None
    for tier in (Tier.PROXY, Tier.TRUTH):
        if tier is Tier.TRUTH and plan.options.threshold is not None:
            gate = _gate(plan, units)
        for metric in plan.tier(tier):
            await _score_metric(plan, metric, flat, pool, aliases, chunk.columns if program is None else None)
    rows, states, errors = [], [], 0
    for position, record, rollouts, gated in zip(chunk.positions, chunk.records, units, gate or [None] * len(units)):
        scores = {m.id: _combine(plan, m, rollouts) for m in plan.metrics}
        row: dict[str, Any] = {"id": record.id, "i": position,
                               "scores": {mid: score.to_dict() for mid, score in scores.items()}}
        record_states = {m.id: _state(m, rollouts) for m in plan.metrics if isinstance(m, CorpusMetric)}
        for metric_id, state in record_states.items():
            if state is not None:
                row["scores"][metric_id]["state"] = plan_metric(plan, metric_id).encode_state(state)
        if gated is not None:
            row["gate"] = _final(plan, gated, scores)
        errors += sum(s.status is Status.ERROR for s in scores.values())
        rows.append(row)
        states.append(record_states)
    return ChunkResult(chunk.index, list(chunk.positions), rows, states, errors)


def plan_metric(plan: Plan, metric_id: str) -> Metric:
    return next(m for m in plan.metrics if m.id == metric_id)


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
    return unit.gate_closed if metric.spec.tier is Tier.TRUTH else None


# -- predictions ----------------------------------------------------------------------

async def _predict(plan: Plan, records: list[Record], pool: Executor,
                   program: Callable[..., Any] | None) -> list[list[Unit]]:
    if program is None:
        return [[Unit(dict(r.example), dict(r.prediction))] for r in records]
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
    scores = [u.scores.get(metric.id) or Score.skipped("not run") for u in rollouts]
    if len(scores) == 1:
        return scores[0]
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
    states = [u.states[metric.id] for u in rollouts if metric.id in u.states]
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
