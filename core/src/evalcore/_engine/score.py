"""Scoring one chunk: predictions, proxy metrics, the threshold gate, truth metrics, rows.

The same function runs in the local executor and in the worker processes of a plugin's
executor (Ray with evalcore-ray), so the numbers are the same by construction. Metrics run
one at a time over the whole chunk, in plan order, so each sees the values of the metrics
before it (``prediction["metrics"]``).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import Any

import attrs

from evalcore._contract.chunk import Chunk
from evalcore._contract.fields import as_record
from evalcore._contract.metric import BatchMetric, CorpusMetric, Metric
from evalcore._contract.records import Record
from evalcore._contract.scores import Score
from evalcore._contract.spec import Tier
from evalcore._lazy import publish
from evalcore._registry.functions import RecordView

from .accumulate import Column
from .columnar import score_columns
from .journal import decode_line, encode_one_metric_rows, encode_row
from .plan import Plan
from .runners import runner_for
from .stats import aggregate, describe_values
from .units import Units


@attrs.frozen
class WorkerReport:
    """What the metrics of one worker process have used and gathered in a run so far (their
    :meth:`~evalcore.plugin.Metric.usage_summary` and :meth:`~evalcore.plugin.Metric.summary_state`
    by metric id), numbered in the order the worker made the reports, so the latest wins whatever
    order chunks come back in."""

    worker: str
    seq: int
    usage: dict[str, dict[str, Any]]
    states: dict[str, Any]


@attrs.frozen
class ChunkResult:
    """A scored chunk: its journal rows in input order, already JSON lines (each row is
    encoded as soon as it is built, so no chunk of row dicts is held), and the raw corpus
    states per row."""

    index: int
    positions: list[int]
    lines: bytes | bytearray
    states: list[dict[str, Any]]
    n_errors: int
    columns: dict[str, Column]
    report: WorkerReport | None = None
    """Set by a worker process (:mod:`.remote`): its metrics' usage and summary states, which the
    driver's metric objects never see."""

    def rows(self) -> list[dict[str, Any]]:
        """The rows decoded again (for the rare runs that keep only some of them)."""
        return [decode_line(line) for line in bytes(self.lines).split(b"\n")[:-1]]


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
    aliases = plan.aliases
    gate: list[dict[str, Any]] | None = None
    for tier in (Tier.PROXY, Tier.TRUTH):
        if tier is Tier.TRUTH and plan.options.threshold is not None:
            gate = _gate(plan, units)
        for metric in plan.tier(tier):
            await _score_metric(plan, metric, units, pool, aliases.get(metric.id),
                                chunk.columns if program is None else None)
    return _result(plan, chunk, units, gate)


def _all_columnar(plan: Plan, columns: Any) -> bool:
    """Whether every metric scores the reader's columns directly, with nothing in between
    (no threshold gate, no cost to reserve)."""
    return (columns is not None and plan.options.threshold is None
            and all(isinstance(m, BatchMetric) and m.accepts_columns(columns) for m in plan.metrics)
            and (plan.context.budget.limit_msats is None or all(m.spec.cost_msats == 0 for m in plan.metrics)))


async def _score_columns(plan: Plan, chunk: Chunk, pool: Executor) -> ChunkResult:
    """The fast path of columnar readers: the whole chunk in one worker call (see :mod:`.columnar`)."""
    positions, lines, columns = await asyncio.get_running_loop().run_in_executor(pool, score_columns, plan, chunk)
    return ChunkResult(chunk.index, positions, lines, [{}] * len(positions), 0, columns)


def _result(plan: Plan, chunk: Chunk, units: Units, gate: list[dict[str, Any]] | None) -> ChunkResult:
    """Rows (JSON lines) and per-metric columns of the chunk, in input order."""
    n = len(chunk.records)
    has_corpus = any(isinstance(m, CorpusMetric) for m in plan.metrics)
    states: list[dict[str, Any]] = [{} for _ in range(n)] if has_corpus else [{}] * n
    combined: dict[str, list[Score]] = {}
    encoded: dict[str, list[Any]] = {}  # corpus metrics' states, journal form (None where none)
    columns: dict[str, Column] = {}
    errors = 0
    for metric in plan.metrics:
        metric_id = metric.id
        scores = combined[metric_id] = (units.scores[metric_id] if units.rollouts == 1 else
                                        [_combine(plan, units.of_record(metric_id, k)) for k in range(n)])
        column = columns[metric_id] = Column()
        errors += column.extend(scores)
        if isinstance(metric, CorpusMetric):
            encoded[metric_id] = _record_states(metric, units, states)
    ids = list(combined)
    if gate is None and len(ids) == 1 and not encoded:  # the common case, in fewer steps
        lines = encode_one_metric_rows([record.id for record in chunk.records], chunk.positions, ids[0],
                                       combined[ids[0]])
        return ChunkResult(chunk.index, list(chunk.positions), lines, states, errors, columns)
    lines = bytearray()
    for k, (record, position, row_scores) in enumerate(zip(chunk.records, chunk.positions,
                                                           _row_scores(combined, encoded))):
        row = {"id": record.id, "i": position, "scores": row_scores}
        if gate is not None:
            row["gate"] = _final(plan, gate[k], {metric_id: combined[metric_id][k] for metric_id in ids})
        lines += encode_row(row)
    return ChunkResult(chunk.index, list(chunk.positions), lines, states, errors, columns)


def _row_scores(combined: dict[str, list[Score]], encoded: dict[str, list[Any]]) -> Iterator[dict[str, Any]]:
    """Each record's scores in their JSON form, by metric id (with the journalled corpus states)."""
    to_dict = Score.to_dict
    ids = list(combined)
    if len(ids) == 1 and not encoded:
        metric_id = ids[0]
        for score in combined[metric_id]:
            yield {metric_id: to_dict(score)}
        return
    for k, record_scores in enumerate(zip(*combined.values())):
        row_scores = dict(zip(ids, map(to_dict, record_scores)))
        for metric_id, journalled in encoded.items():
            if journalled[k] is not None:
                row_scores[metric_id]["state"] = journalled[k]
        yield row_scores


def _record_states(metric: CorpusMetric[Any], units: Units, states: list[dict[str, Any]]) -> list[Any]:
    """Each record's corpus state (its rollouts' merged) into ``states``; the journal form of each."""
    unit_states = units.states.get(metric.id)
    if unit_states is None:
        return [None] * len(states)
    r = units.rollouts
    encoded = []
    for k, record_states in enumerate(states):
        state = _state(metric, unit_states[k * r:(k + 1) * r])
        if state is not None:
            record_states[metric.id] = state
        encoded.append(None if state is None else metric.encode_state(state))
    return encoded


async def _score_metric(plan: Plan, metric: Metric, units: Units, pool: Executor,
                        alias: str | None, columns: Any) -> None:
    blocked = units.blocked(plan.tier_of(metric) is Tier.TRUTH)
    ready = range(len(units)) if blocked is None else [u for u, why in enumerate(blocked) if why is None]
    runner = runner_for(metric, budget=plan.context.budget, timeout_s=plan.timeout_for(metric),
                        concurrency=plan.options.concurrency, pool=pool,
                        columns=columns if len(ready) == len(units) else None)
    if blocked is None:
        scores, states = await runner.run(units.examples, units.views)
    else:  # the blocked units keep why; the others are scored
        scores, states = list(blocked), None  # type: ignore[arg-type]
        if ready:
            ready_scores, ready_states = await runner.run([units.examples[u] for u in ready],
                                                          [units.views[u] for u in ready])
            for u, score in zip(ready, ready_scores):
                scores[u] = score
            if ready_states is not None:
                states = [None] * len(units)
                for u, state in zip(ready, ready_states):
                    states[u] = state
    units.store(metric.id, alias, scores)
    if states is not None:
        units.states[metric.id] = states


# -- predictions ----------------------------------------------------------------------

async def _predict(plan: Plan, records: list[Record], pool: Executor,
                   program: Callable[..., Any] | None) -> Units:
    if program is None:
        return Units([r.example for r in records], [r.prediction for r in records])
    semaphore = asyncio.Semaphore(plan.options.concurrency)
    loop = asyncio.get_running_loop()

    async def one(record: Record) -> tuple[dict[str, Any], dict[str, Any] | None, Score | None]:
        example = dict(record.example)
        async with semaphore:
            try:
                if inspect.iscoroutinefunction(program):
                    output = await program(RecordView(example))
                else:
                    output = await loop.run_in_executor(pool, contextvars.copy_context().run, program,
                                                        RecordView(example))  # in the run's context
                return example, as_record(output, role="prediction"), None
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - a failing program run is this record's error
                return example, None, Score.error(type(exc).__name__, f"program failed: {exc}")

    rollouts = plan.options.rollouts
    made = await asyncio.gather(*(one(r) for r in records for _ in range(rollouts)))
    errors = [error for _, _, error in made]
    return Units([e for e, _, _ in made], [p for _, p, _ in made], rollouts,
                 errors if any(e is not None for e in errors) else None)


# -- rollouts and the gate ------------------------------------------------------------

def _combine(plan: Plan, scores: list[Score]) -> Score:
    """A record's score of one metric: its rollouts' scores aggregated (``aggregate_by``)."""
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


def _state(metric: CorpusMetric[Any], states: list[Any]) -> Any:
    states = [state for state in states if state is not None]
    if not states:
        return None
    return states[0] if len(states) == 1 else metric.merge(states)


def _gate(plan: Plan, units: Units) -> list[dict[str, Any]]:
    """Open or close the threshold gate of each record on its proxy score (rollouts aggregated)."""
    threshold = plan.options.threshold
    proxies = plan.tier(Tier.PROXY)
    decisions = []
    closed_units: list[Score | None] = []
    for k in range(len(units) // units.rollouts):
        values = [s.value for s in (_combine(plan, units.of_record(m.id, k)) for m in proxies)
                  if s.ok and s.value is not None]
        proxy_score = sum(values) / len(values) if values else None
        passed = not proxies or (proxy_score is not None and proxy_score >= threshold)
        closed = None
        if not passed:
            closed = Score.skipped(
                f"proxy score {proxy_score:.4g} is below the threshold {threshold:g}",
                gate="threshold", proxy_score=proxy_score,
            ) if proxy_score is not None else Score.skipped(
                "no proxy metric produced a score, so the threshold gate is closed", gate="threshold")
        closed_units.extend([closed] * units.rollouts)
        decisions.append({"proxy_score": proxy_score, "passed": passed})
    units.gate_closed = closed_units if any(c is not None for c in closed_units) else None
    return decisions


def _final(plan: Plan, gated: dict[str, Any], scores: dict[str, Score]) -> dict[str, Any]:
    """Proxy score, whether the gate passed, and the final score (truth mean, else proxy)."""
    truth = [scores[m.id].value for m in plan.tier(Tier.TRUTH) if scores[m.id].ok and scores[m.id].value is not None]
    final = sum(truth) / len(truth) if truth and gated["passed"] else gated["proxy_score"]
    return {**gated, "final": final}


publish(globals())
