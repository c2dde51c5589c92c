"""The evaluator: runs metrics over records and summarises the results.

Order of work:

1. Predictions: taken from the records, or produced by ``program`` (``rollouts`` times
   per example when the program is stochastic).
2. Proxy batch and corpus metrics, over every record at once (vectorised).
3. Per record, concurrently: proxy sample metrics, then — when the record passes the
   ``threshold`` gate and the budget allows — truth sample metrics, in the order given.
   Each metric sees the values of the metrics before it in ``prediction["metrics"]``.
   Finished rows stream to the ``samples`` JSONL file.
4. Truth batch and corpus metrics over the records that passed the gate.
5. Per-metric aggregates with standard error and a seeded bootstrap interval.

One record's or one metric's failure is a result (``error`` status), never a lost run;
``max_errors`` stops the run early, keeping and saving everything that finished.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import platform
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from ._budget import Budget
from ._errors import EvalcoreError, InputError
from ._fields import as_record
from ._functions import RecordView, metric_from_callable
from ._metric import BatchMetric, CorpusMetric, Metric, SampleMetric, aguarded, guarded
from ._output import RowWriter, format_table, write_csv, write_json
from ._progress import Progress
from ._records import Record, RecordSet, read_records, records_from_data, records_from_pairs
from ._registry import Registry, default_registry
from ._result import Score, Status
from ._spec import Tier
from ._stats import AggregateMethod, aggregate, describe_values
from ._summary import MetricSummary, summarise
from ._version import __version__

BUDGET_SKIP = "budget exhausted: the estimated cost exceeds what remains"
MetricLike = str | Metric | Callable[..., Any]


@attrs.define
class _Unit:
    """One prediction to score: a record's example and one rollout's prediction."""

    record: int
    example: dict[str, Any]
    prediction: dict[str, Any] | None
    program_error: Score | None = None
    scores: dict[str, Score] = attrs.field(factory=dict)
    states: dict[str, Any] = attrs.field(factory=dict)
    values: dict[str, float] = attrs.field(factory=dict)
    passed_gate: bool = True
    proxy_score: float | None = None


@attrs.frozen
class EvaluationResult:
    """Aggregates per metric id, one row per record, input errors and provenance."""

    metrics: dict[str, MetricSummary]
    samples: list[dict[str, Any]]
    rejected: list[InputError]
    provenance: dict[str, Any]
    stopped: str | None = None

    @property
    def score(self) -> float | None:
        """The first metric's value (DSPy's ``EvaluationResult.score`` as a fraction)."""
        return next(iter(self.metrics.values())).value if self.metrics else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "samples": self.samples,
            "rejected": [{"source": e.source, "field": e.field, "message": e.reason} for e in self.rejected],
            "stopped": self.stopped,
            "provenance": self.provenance,
        }

    def table(self) -> str:
        """The aggregates as a readable text table."""
        return format_table({k: v.to_dict() for k, v in self.metrics.items()})

    def __repr__(self) -> str:
        return f"EvaluationResult(metrics={list(self.metrics)}, samples={len(self.samples)})"


def evaluate(data: Any = None, metrics: Sequence[MetricLike] = (), **options: Any) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult`.

    ``data`` is a JSONL path, a list of record dicts / :class:`~evalcore.Record`, or
    omitted in favour of ``examples=`` and ``predictions=`` (or ``program=``). See
    :func:`aevaluate` for every option.
    """
    try:
        asyncio.get_running_loop()
        inside_loop = True
    except RuntimeError:
        inside_loop = False
    if not inside_loop:
        return asyncio.run(aevaluate(data, metrics, **options))
    # Called from inside an event loop (a notebook): run on a private loop in a thread.
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(aevaluate(data, metrics, **options))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


async def aevaluate(
    data: Any = None,
    metrics: Sequence[MetricLike] = (),
    *,
    examples: Iterable[Any] | None = None,
    predictions: Iterable[Any] | None = None,
    program: Callable[..., Any] | None = None,
    concurrency: int = 8,
    progress: bool | None = None,
    failure_score: float | None = None,
    max_errors: int | float | None = None,
    threshold: float | None = None,
    rollouts: int = 1,
    aggregate_by: AggregateMethod = "mean",
    trim: float = 0.1,
    budget_msats: int | Budget | None = None,
    output: str | os.PathLike[str] | None = None,
    samples: str | os.PathLike[str] | None = None,
    csv: str | os.PathLike[str] | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    confidence: float = 0.95,
    registry: Registry | None = None,
) -> EvaluationResult:
    """Evaluate asynchronously; the options:

    * ``program`` — callable (sync or async) mapping an example to a prediction; with
      ``rollouts`` > 1 it runs that many times per example and each metric's per-record
      value is the ``aggregate_by`` (mean, median, min, max, trimmed_mean with ``trim``)
      of the rollouts, with their spread in the details.
    * ``concurrency`` — records scored at once (async metrics on the event loop, sync
      ones in threads). ``progress`` — a status line (default: when stderr is a TTY).
    * ``failure_score`` — when set, errors count with this value in the aggregates
      (DSPy's behaviour); by default they are excluded and counted in ``n_errors``.
    * ``max_errors`` — an error count, or a fraction (< 1) of the records; when exceeded
      the run stops and returns (and saves) what finished.
    * ``threshold`` — truth metrics run only for records whose mean proxy score reaches
      it; other records keep the proxy score and record the skip.
    * ``budget_msats`` — metrics start only if their estimated cost fits in what remains
      (a :class:`Budget` may be shared across runs); the spend is reported in the provenance.
    * ``output`` / ``samples`` / ``csv`` — the JSON report, per-record JSONL rows
      (streamed as records finish) and a CSV of per-record values.
    * ``seed``, ``n_boot``, ``confidence`` — the bootstrap interval.
    """
    started = time.time()
    record_set = _load_records(data, examples, predictions, program)
    if not record_set.records and record_set.errors:
        raise record_set.errors[0]
    if rollouts < 1:
        raise EvalcoreError(f"rollouts must be >= 1; got {rollouts}")
    if rollouts > 1 and program is None:
        raise EvalcoreError("rollouts > 1 needs a program that produces the predictions")
    bound = _bind_metrics(metrics, registry or default_registry())
    try:
        aggregate([0.0], aggregate_by, trim=trim)  # validates the method before any work
    except ValueError as exc:
        raise EvalcoreError(str(exc)) from None
    run = _Run(
        records=record_set.records, metrics=bound, concurrency=max(1, concurrency),
        failure_score=failure_score, max_errors=_error_limit(max_errors, len(record_set.records)),
        threshold=threshold, progress=progress,
        budget=budget_msats if isinstance(budget_msats, Budget) else Budget(budget_msats),
    )
    writer = RowWriter(samples)
    try:
        await run.predict(program, rollouts)
        await run.score(writer, aggregate_by, trim)
    finally:
        writer.close()
    summaries = {
        metric.id: summarise(
            metric, [run.record_score(i, metric, aggregate_by, trim) for i in run.finished_records],
            states=[run.record_state(i, metric) for i in run.finished_records],
            failure_score=failure_score, seed=seed, n_boot=n_boot, confidence=confidence,
            budget_skip_reason=BUDGET_SKIP,
        )
        for metric in bound
    }
    result = EvaluationResult(
        metrics=summaries, samples=run.rows(aggregate_by, trim), rejected=record_set.errors,
        stopped=run.stopped,
        provenance=_provenance(record_set.source, bound, run, started, seed=seed, n_boot=n_boot,
                               confidence=confidence, threshold=threshold, rollouts=rollouts,
                               aggregate_by=aggregate_by, failure_score=failure_score),
    )
    if output:
        write_json(output, result.to_dict())
    if csv:
        write_csv(csv, [m.id for m in bound], result.samples)
    return result


def _load_records(data: Any, examples: Any, predictions: Any, program: Any) -> RecordSet:
    if data is not None and examples is not None:
        raise EvalcoreError("pass data or examples, not both")
    if isinstance(data, RecordSet):
        return data
    if isinstance(data, (str, os.PathLike)):
        return read_records(data)
    if data is not None:
        return records_from_data(data)
    if examples is None:
        raise EvalcoreError("nothing to evaluate: pass data, or examples (with predictions or a program)")
    if predictions is None and program is None:
        raise EvalcoreError("examples need predictions or a program that produces them")
    return records_from_pairs(examples, predictions)


def _bind_metrics(metrics: Sequence[MetricLike], registry: Registry) -> list[Metric]:
    if isinstance(metrics, (str, Metric)) or callable(metrics) and not isinstance(metrics, Sequence):
        metrics = [metrics]  # type: ignore[list-item]
    if not metrics:
        raise EvalcoreError("no metrics to evaluate")
    bound: list[Metric] = []
    for item in metrics:
        if isinstance(item, Metric):
            bound.append(item)
        elif isinstance(item, str):
            bound.append(registry.create(item))
        elif callable(item):
            bound.append(metric_from_callable(item))
        else:
            raise EvalcoreError(f"not a metric: {item!r}")
    ids = [m.id for m in bound]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise EvalcoreError(f"metric listed twice: {', '.join(duplicates)}")
    # Cheap proxy metrics first, then truth metrics; the given order within each tier.
    return sorted(bound, key=lambda m: m.spec.tier is Tier.TRUTH)


def _error_limit(max_errors: int | float | None, n_records: int) -> int | None:
    if max_errors is None:
        return None
    if isinstance(max_errors, float) and 0 < max_errors < 1:
        return max(0, int(max_errors * n_records))
    if max_errors < 0:
        raise EvalcoreError(f"max_errors must be >= 0; got {max_errors}")
    return int(max_errors)


class _Run:
    """The state of one evaluation run."""

    def __init__(
        self, *, records: list[Record], metrics: list[Metric], concurrency: int,
        failure_score: float | None, max_errors: int | None, threshold: float | None,
        budget: Budget, progress: bool | None,
    ) -> None:
        self.records = records
        self.metrics = metrics
        self.concurrency = concurrency
        self.failure_score = failure_score
        self.max_errors = max_errors
        self.threshold = threshold
        self.budget = budget
        self.progress = Progress(len(records), enabled=progress)
        self.units: list[list[_Unit]] = [[] for _ in records]
        self.finished: set[int] = set()
        self.errors = 0
        self.stopped: str | None = None
        self._lock = threading.Lock()
        names = [m.spec.name for m in metrics]
        self.aliases = {m.id: m.spec.name for m in metrics if names.count(m.spec.name) == 1}

    @property
    def finished_records(self) -> list[int]:
        return sorted(self.finished)

    # -- predictions -----------------------------------------------------------------

    async def predict(self, program: Callable[..., Any] | None, rollouts: int) -> None:
        if program is None:
            for index, record in enumerate(self.records):
                self.units[index] = [_Unit(index, dict(record.example), dict(record.prediction))]
            return
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(index: int, record: Record) -> None:
            units = []
            for _ in range(rollouts):
                async with semaphore:
                    units.append(await self._run_program(program, index, record))
            self.units[index] = units

        await asyncio.gather(*(one(i, r) for i, r in enumerate(self.records)))

    async def _run_program(self, program: Callable[..., Any], index: int, record: Record) -> _Unit:
        example = dict(record.example)
        try:
            if inspect.iscoroutinefunction(program):
                output = await program(RecordView(example))
            else:
                output = await asyncio.to_thread(program, RecordView(example))
            return _Unit(index, example, as_record(output, role="prediction"))
        except Exception as exc:  # noqa: BLE001 - a failing program run is this record's error
            failure = Score.error(type(exc).__name__, f"program failed: {exc}")
            return _Unit(index, example, None, program_error=failure)

    # -- scoring ---------------------------------------------------------------------

    def _tier(self, tier: Tier, kinds: tuple[type, ...]) -> list[Metric]:
        return [m for m in self.metrics if m.spec.tier is tier and isinstance(m, kinds)]

    async def score(self, writer: RowWriter, aggregate_by: AggregateMethod, trim: float) -> None:
        column_kinds = (BatchMetric, CorpusMetric)
        for metric in self._tier(Tier.PROXY, column_kinds):
            await asyncio.to_thread(self._score_column, metric, self._all_units())
            if self._check_errors():
                return
        late_columns = self._tier(Tier.TRUTH, column_kinds)
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(index: int) -> None:
            async with semaphore:
                if self.stopped or not await self._score_record(index):
                    return
                self.finished.add(index)
                self.progress.advance(sum(s.status is Status.ERROR for u in self.units[index]
                                          for s in u.scores.values()))
                if not late_columns:
                    writer.write(self.row(index, aggregate_by, trim))

        await asyncio.gather(*(one(i) for i in range(len(self.records))))
        self.progress.close()
        if late_columns and not self.stopped:
            gated = [u for i in self.finished_records for u in self.units[i]]
            for metric in late_columns:
                await asyncio.to_thread(self._score_column, metric, gated)
                if self._check_errors():
                    break
        if late_columns:
            for index in self.finished_records:
                writer.write(self.row(index, aggregate_by, trim))

    def _all_units(self) -> list[_Unit]:
        return [u for units in self.units for u in units]

    def _score_column(self, metric: Metric, units: list[_Unit]) -> None:
        """A batch or corpus metric over many units at once."""
        ready = []
        for unit in units:
            blocked = self._precheck(metric, unit)
            if blocked is None:
                ready.append(unit)
            else:
                self._store(unit, metric, blocked)
        if not ready:
            return
        ready, estimates = self._within_budget(metric, ready)
        examples = [u.example for u in ready]
        predictions = [self._view(u) for u in ready]
        if isinstance(metric, CorpusMetric):
            results = metric.states(examples, predictions)
            for unit, (_, state) in zip(ready, results):
                unit.states[metric.id] = state
            scores = [score for score, _ in results]
        else:
            scores = metric.score_many(examples, predictions)
        for unit, score, estimate in zip(ready, scores, estimates):
            self.budget.settle(estimate, score.cost_msats)
            self._store(unit, metric, score)

    def _within_budget(self, metric: Metric, units: list[_Unit]) -> tuple[list[_Unit], list[int]]:
        """The units whose estimated cost could be reserved, with their reservations."""
        if self.budget.limit_msats is None:
            return units, [0] * len(units)
        admitted, estimates = [], []
        for unit in units:
            estimate = _estimate(metric, unit)
            if self.budget.reserve(estimate):
                admitted.append(unit)
                estimates.append(estimate)
            else:
                self._store(unit, metric, Score.skipped(BUDGET_SKIP))
        return admitted, estimates

    async def _score_record(self, index: int) -> bool:
        """Sample metrics on every rollout of one record; ``False`` if the run stopped."""
        for unit in self.units[index]:
            for tier in (Tier.PROXY, Tier.TRUTH):
                if tier is Tier.TRUTH:
                    self._apply_gate(unit)
                for metric in self._tier(tier, (SampleMetric,)):
                    if self.stopped:
                        return False
                    blocked = self._precheck(metric, unit)
                    score = blocked if blocked is not None else await self._score_sample(metric, unit)
                    self._store(unit, metric, score)
                    if self._check_errors():
                        return False
        return True

    async def _score_sample(self, metric: SampleMetric, unit: _Unit) -> Score:
        estimate = _estimate(metric, unit) if self.budget.limit_msats is not None else 0
        if not self.budget.reserve(estimate):
            return Score.skipped(BUDGET_SKIP)
        prediction = self._view(unit)
        if metric.is_async:
            score = await aguarded(metric.ascore, unit.example, prediction)
        else:
            score = await asyncio.to_thread(guarded, metric.score, unit.example, prediction)
        self.budget.settle(estimate, score.cost_msats)
        return score

    def _precheck(self, metric: Metric, unit: _Unit) -> Score | None:
        """Why ``metric`` cannot run on ``unit`` (program failure, gate), or ``None``."""
        if unit.program_error is not None:
            return unit.program_error
        if metric.spec.tier is Tier.TRUTH and not unit.passed_gate:
            return Score.skipped(
                f"proxy score {unit.proxy_score:.4g} is below the threshold {self.threshold:g}",
                gate="threshold", proxy_score=unit.proxy_score,
            ) if unit.proxy_score is not None else Score.skipped(
                "no proxy metric produced a score, so the threshold gate is closed", gate="threshold")
        return None

    def _apply_gate(self, unit: _Unit) -> None:
        proxies = [m for m in self.metrics if m.spec.tier is Tier.PROXY]
        values = [unit.scores[m.id].value for m in proxies
                  if m.id in unit.scores and unit.scores[m.id].ok and unit.scores[m.id].value is not None]
        unit.proxy_score = sum(values) / len(values) if values else None
        if self.threshold is not None and proxies:
            unit.passed_gate = unit.proxy_score is not None and unit.proxy_score >= self.threshold

    def _view(self, unit: _Unit) -> dict[str, Any]:
        return {**(unit.prediction or {}), "metrics": dict(unit.values)}

    def _store(self, unit: _Unit, metric: Metric, score: Score) -> None:
        unit.scores[metric.id] = score
        if score.ok and score.value is not None:
            unit.values[metric.id] = score.value
            if metric.id in self.aliases:
                unit.values[self.aliases[metric.id]] = score.value
        if score.status is Status.ERROR:
            with self._lock:
                self.errors += 1

    def _check_errors(self) -> bool:
        if self.max_errors is not None and self.errors > self.max_errors and not self.stopped:
            self.stopped = f"stopped after {self.errors} errors (max_errors={self.max_errors})"
        return self.stopped is not None

    # -- results ---------------------------------------------------------------------

    def record_score(self, index: int, metric: Metric, method: AggregateMethod, trim: float) -> Score:
        """The record's score for ``metric``, rollouts combined."""
        scores = [u.scores.get(metric.id) or Score.skipped("not run") for u in self.units[index]]
        if len(scores) == 1:
            return scores[0]
        ok = [s for s in scores if s.ok and s.value is not None]
        if not ok:
            return scores[0]
        values = [s.value for s in ok]
        spread = describe_values(values)
        return Score(
            aggregate(values, method, trim=trim),
            cost_msats=sum(s.cost_msats for s in scores),
            details={"rollouts": [s.to_dict() for s in scores], "aggregate": method, "spread": spread},
        )

    def record_state(self, index: int, metric: Metric) -> Any:
        if not isinstance(metric, CorpusMetric):
            return None
        states = [u.states.get(metric.id) for u in self.units[index]]
        states = [s for s in states if s is not None]
        if not states:
            return None
        return states[0] if len(states) == 1 else metric.merge(states)

    def row(self, index: int, method: AggregateMethod, trim: float) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": self.records[index].id,
            "scores": {m.id: self.record_score(index, m, method, trim).to_dict() for m in self.metrics},
        }
        if self.threshold is not None:
            row["gate"] = _gate_summary(self.units[index], self.metrics)
        return row

    def rows(self, method: AggregateMethod, trim: float) -> list[dict[str, Any]]:
        return [self.row(i, method, trim) for i in self.finished_records]


def _gate_summary(units: list[_Unit], metrics: list[Metric]) -> dict[str, Any]:
    """Proxy score, whether the gate passed, and the final score (truth mean, else proxy)."""
    unit = units[0]
    truth = [unit.scores[m.id].value for m in metrics
             if m.spec.tier is Tier.TRUTH and m.id in unit.scores and unit.scores[m.id].ok]
    final = sum(truth) / len(truth) if truth and unit.passed_gate else unit.proxy_score
    return {"proxy_score": unit.proxy_score, "passed": unit.passed_gate, "final": final}


def _estimate(metric: Metric, unit: _Unit) -> int:
    """The metric's cost estimate for one unit (its ``estimate`` method, else the spec's)."""
    estimator = getattr(metric, "estimate", None)
    if callable(estimator):
        try:
            estimate = estimator(unit.example, unit.prediction or {})
            return int(estimate.get("cost_msats", metric.spec.cost_msats))
        except Exception:  # noqa: BLE001 - fall back to the spec's estimate
            return metric.spec.cost_msats
    return metric.spec.cost_msats


def _provenance(
    source: str | None, metrics: list[Metric], run: _Run, started: float, **options: Any,
) -> dict[str, Any]:
    return {
        "evalcore_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "duration_s": round(time.time() - started, 3),
        "input": source,
        "n_records": len(run.records),
        "n_finished": len(run.finished),
        "budget": run.budget.to_dict(),
        "options": options,
        "metrics": {
            m.id: {"metric_version": m.spec.version, "distribution": m.origin.distribution,
                   "distribution_version": m.origin.version, "params": dict(m.params)}
            for m in metrics
        },
    }
