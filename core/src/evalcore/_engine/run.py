"""One run: reader -> chunks -> executor -> journal + tally -> summary -> report."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import platform
import tempfile
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evalcore._contract.chunk import Chunk, Source
from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._contract.identity import params_to_json
from evalcore._contract.metric import Metric
from evalcore._registry.registry import Registry
from evalcore._version import __version__

from .accumulate import SameAnswers, Tally
from .diagnose import same_answer_warning, scores_sample, with_hints
from .executors import ChunkExecutor, LocalExecutor
from .files import OutputError
from .journal import JournalWriter, Rows, encode_rows
from .output import write_csv, write_json
from .plan import Plan
from .progress import RunProgress
from .result import EvaluationResult
from .run_hooks import with_details
from .score import ChunkResult, WorkerReport
from .stopping import prepare as prepare_stopping
from .summary import MetricSummary, MetricTally, summarise_all
from .usage import added, used_since
from .verdict import verdicts


class Run:
    """One run: feeds chunks to the executor and their results to the journal and the tally."""

    def __init__(self, plan: Plan, source: Source, program: Callable[..., Any] | None, started: float,
                 registry: Registry) -> None:
        self.plan = plan
        self.registry = registry  # whose plugins' run hooks add to the summaries
        self.seen_fields: set[str] = getattr(source, "seen_fields", set())  # filled as the reader reads
        self.sample: list[Any] = getattr(source, "sample", [])  # likewise: the first records as read
        self.same_answers = SameAnswers()
        self.reader = getattr(source, "reader", None)  # which plugin reader made the records, if one did
        self.stopping, self.source = prepare_stopping(plan, source)  # a stopping rule reads in a seeded order
        self.program = program
        self.started = started
        self.options = plan.options
        self.tally = Tally(plan.metrics)
        self.used_before = {metric.id: metric.usage_summary() for metric in plan.metrics}  # a reused metric's totals
        self.worker_reports: dict[str, WorkerReport] = {}  # the latest report of each worker process
        self.rejected: list[InputError] = []
        self.seen_ids: set[int] = set()
        self.stopped: str | None = None
        self.error_stop: str | None = None  # why the error limit stopped the run
        self.error_limit = self.options.error_limit(source.total())
        self.error_share = self.options.error_share(source.total())  # a fraction of the records scored so far
        self.progress = RunProgress(self.options.progress, total=source.total(), source=self.source)

    async def execute(self) -> EvaluationResult:
        executor = make_executor(self.plan, self.program)  # first: an executor that cannot start fails early
        path, temporary = self._journal_path()
        try:
            journal = JournalWriter(path, self._header(temporary), resume=self.options.resume,
                                    overwrite=self.options.overwrite)
        except BaseException:
            executor.close()
            if temporary:
                _unlink(path)
            raise
        try:
            try:
                result = await self._score(executor, journal, path)
            except BaseException:
                if temporary or (journal.fresh and journal.rows == 0):
                    _unlink(path)  # nothing of this run's in it (removed while the lock is held)
                raise
            if temporary:  # kept while its rows are: a copy of the result (attrs.evolve) shares them
                weakref.finalize(result.samples, _unlink, path)
            self._write_outputs(result, temporary)
            return result
        finally:
            journal.close()

    async def _score(self, executor: ChunkExecutor, journal: JournalWriter, path: Path) -> EvaluationResult:
        """Score what the journal does not hold yet and summarise everything it holds."""
        try:
            self.tally.add_rows(journal.done)
            if self.stopping is not None:
                self.stopping.replay(journal.done)
            done = {row.get("i") for row in journal.done}
            self.seen_ids = {hash(row["id"]) for row in journal.done}
            self.progress.start(already=len(done))
            try:
                with _older_objects_frozen():
                    await executor.run(self._chunks(done), lambda result: self._record(journal, result))
            except (KeyboardInterrupt, asyncio.CancelledError):
                self.progress.interrupted()
                self.stopped = "interrupted; the report covers the records that finished"
        finally:
            executor.close()
            journal.flush()
        try:
            return self._result(Rows(path, journal.rows))
        finally:
            self.progress.stop()

    # -- feeding ---------------------------------------------------------------------

    def _chunks(self, done: set[int]) -> Iterator[Chunk]:
        for chunk in self.source.chunks(self.options.chunk_size):
            self.rejected.extend(chunk.errors)
            if chunk.columns is None:
                self.same_answers.add(chunk.records)
            chunk = self._without_duplicates(chunk.without(done) if done else chunk)
            self.progress.read(len(chunk.records) + len(chunk.errors))
            if chunk.records:
                if self.stopping is not None:
                    self.stopping.expect(chunk)
                yield chunk

    def _without_duplicates(self, chunk: Chunk) -> Chunk:
        seen = self.seen_ids
        keys = set(map(hash, [record.id for record in chunk.records]))
        if len(keys) == len(chunk.records) and seen.isdisjoint(keys):
            seen |= keys  # the common case, decided without a step per record
            return chunk
        keep = []
        for i, record in enumerate(chunk.records):
            key = hash(record.id)
            if key in seen:
                self.rejected.append(InputError(f"duplicate record id {record.id!r}",
                                                source=f"{record.source} (record {record.id!r})", field="id"))
            else:
                seen.add(key)
                keep.append(i)
        kept = set(keep)
        return chunk.without({chunk.positions[i] for i in range(len(chunk.records)) if i not in kept})

    def _record(self, journal: JournalWriter, result: ChunkResult) -> bool:
        report = result.report
        known = self.worker_reports.get(report.worker) if report is not None else None
        if report is not None and (known is None or known.seq < report.seq):
            self.worker_reports[report.worker] = report
        if self.error_stop is not None:  # scored while the error limit stopped the run: paid for, not reported
            self._count_paid(result.rows())
            return False
        count = len(result.positions)
        if self.error_share is not None:
            self.error_limit = int(self.error_share * (self.tally.n_records + count))
        if self.error_limit is not None and self.tally.n_errors + result.n_errors > self.error_limit:
            every = result.rows()
            rows, states = self._until_limit(every, result.states)
            kept = {row["i"] for row in rows}
            self._count_paid([row for row in every if row["i"] not in kept])
            self.error_stop = f"stopped after {self.error_limit + 1} errors (max_errors={self.error_limit})"
            self.stopped = self.error_stop
            self.tally.add_rows(rows, states)
            journal.write_chunk(result.index, encode_rows(rows), len(rows))
            count = len(rows)
        else:
            self.tally.add_chunk(result.positions, result.columns, result.states, result.n_errors)
            journal.write_chunk(result.index, result.lines, count)
        self.progress.scored(count, self.tally.n_errors)
        if self.stopping is not None and self.stopped in (None, self.stopping.reason):
            self.stopped = self.stopping.add(result)  # chunks finished after the rule was met count too
        # a met rule ends the reading (the shuffled source hands out no more chunks), and the chunks in
        # flight are finished and reported: their calls are paid for; the error limit ends the run at once
        return self.error_stop is None

    def _count_paid(self, rows: list[dict[str, Any]]) -> None:
        """Count the cost of rows scored but not reported (past the error limit) in their metrics' cost."""
        for row in rows:
            for metric_id, score in row["scores"].items():
                if metric_id in self.tally.metrics:
                    self.tally.metrics[metric_id].cost_msats += score.get("cost_msats", 0)

    def _until_limit(self, rows: list[dict[str, Any]], states: list[dict[str, Any]]) -> tuple[list, list]:
        """The rows up to the one whose errors cross ``max_errors``, in input order."""
        errors = self.tally.n_errors
        order = sorted(range(len(rows)), key=lambda i: rows[i]["i"])
        kept = []
        for i in order:
            kept.append(i)
            errors += sum(s["status"] == "error" for s in rows[i]["scores"].values())
            if errors > self.error_limit:  # type: ignore[operator]
                break
        return [rows[i] for i in kept], [states[i] for i in kept]

    # -- results ---------------------------------------------------------------------

    def _journal_path(self) -> tuple[Path, bool]:
        journal = self.options.journal
        if journal is not None:
            return journal, False
        handle, name = tempfile.mkstemp(prefix="evalcore-rows-", suffix=".jsonl")
        os.close(handle)
        return Path(name), True

    def _header(self, temporary: bool) -> dict[str, Any]:
        source = {"input": self.source.name} if temporary else self.source.fingerprint()
        return {
            "fingerprint": {
                "input": source,
                "metrics": {m.id: m.spec.version for m in self.plan.metrics},
                "program": _name_of(self.program),
                "options": self.options.fingerprint(),
            },
            "metrics": {metric_id: {**info, "params": params_to_json(info["params"])}
                        for metric_id, info in self._metric_provenance().items()},
            "settings": self._settings(),
            **self._reader(),
            **({"stopping": self.stopping.describe()} if self.stopping is not None else {}),
        }

    def _reader(self) -> dict[str, Any]:
        """``{"reader": {"name", "options"}}`` when a plugin's reader made the records (the report reads
        them again through it, and shows them through that plugin's record views); else ``{}``."""
        return {"reader": params_to_json(dict(self.reader))} if isinstance(self.reader, dict) else {}

    def _metric_provenance(self) -> dict[str, Any]:
        return {
            m.id: {"metric_version": m.spec.version, "distribution": m.origin.distribution,
                   "distribution_version": m.origin.version, "granularity": m.spec.granularity.value,
                   "direction": m.spec.direction.value, "params": m.recorded_params()}
            for m in self.plan.metrics
        }

    def _settings(self) -> dict[str, Any]:
        """The run's settings by settings group, as JSON keeps them."""
        return {group: params_to_json(dict(values)) for group, values in self.plan.context.settings.items()}

    def _summaries(self) -> dict[str, MetricSummary]:
        for report in self.worker_reports.values():  # what the workers' copies of the metrics gathered
            for metric in self.plan.metrics:
                if metric.id in report.states:
                    metric.absorb_summary_state(report.states[metric.id])
        tallies = []
        same = same_answer_warning(self.same_answers.n_same, self.same_answers.n_both)
        field_map = self.options.field_map
        for tally in self.tally.metrics.values():
            values, status = tally.ordered()
            metric = tally.metric
            reasons = with_hints(tally.top_reasons(), self.seen_fields, field_map=field_map,
                                 accepts=lambda pairs, m=metric: scores_sample(m, self.sample, field_map, pairs))
            warnings = [same] if same and {"example.reference_answer", "prediction.response"} <= set(
                metric.spec.inputs) else []
            tallies.append(MetricTally(metric, values, status, tally.cost_msats, tally.ordered_states(), reasons,
                                       warnings, self._used(metric)))
        self.progress.summarising(len(tallies))
        summaries = summarise_all(tallies, failure_score=self.options.failure_score, seed=self.options.seed,
                                  n_boot=self.options.n_boot, confidence=self.options.confidence,
                                  on_each=self.progress.summarised)
        return dict(zip(self.tally.metrics, summaries))

    def _used(self, metric: Metric) -> dict[str, Any]:
        """What ``metric`` used in this run: its own object's usage, and that of its copies in worker processes."""
        used = used_since(self.used_before[metric.id], metric.usage_summary())
        for report in self.worker_reports.values():
            used = added(used, report.usage.get(metric.id, {}))
        return used

    def _result(self, rows: Rows) -> EvaluationResult:
        if not self.tally.n_records and self.rejected and not self.stopped:
            raise self.rejected[0]
        options = self.options
        if self.stopping is not None and self.stopped is None:
            self.stopped = self.stopping.reason  # a resumed run whose rule was already met
        metrics = with_details(self.registry, self._summaries(), rows, options)
        budget = {**self.plan.context.budget.to_dict(),  # what the metrics paid, every call counted
                  "spent_msats": sum(m.cost_msats for m in metrics.values())}
        verdict = verdicts(rule=self.stopping, error_limit=self.error_limit, n_errors=self.tally.n_errors,
                           error_stop=self.error_stop, budget_limit_msats=budget["limit_msats"],
                           spent_msats=budget["spent_msats"],
                           budget_skipped=sum(m.n_budget_skipped for m in metrics.values()))
        return EvaluationResult(
            metrics=metrics, samples=rows, rejected=self.rejected, stopped=self.stopped, verdict=verdict,
            samples_path=rows.path,
            provenance={
                "evalcore_version": __version__,
                "python": platform.python_version(),
                "platform": platform.platform(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
                "duration_s": round(time.time() - self.started, 3),
                "input": self.source.name,
                "n_records": self.tally.n_records + len(self.rejected),
                "n_finished": self.tally.n_records,
                "budget": budget,
                "executor": options.executor,
                "resumed": options.resume,
                "options": {"seed": options.seed, "n_boot": options.n_boot, "confidence": options.confidence,
                            "threshold": options.threshold, "rollouts": options.rollouts,
                            "aggregate_by": options.aggregate_by, "failure_score": options.failure_score,
                            "chunk_size": options.chunk_size, "concurrency": options.concurrency,
                            "field_map": options.field_map or None},
                "metrics": self._metric_provenance(),
                "settings": self._settings(),
                **self._reader(),
                **({"stopping": self.stopping.summary()} if self.stopping is not None else {}),
            },
        )

    def _write_outputs(self, result: EvaluationResult, temporary: bool) -> None:
        """Each output asked for, each written whole or not at all; a failure leaves the journal
        (and the outputs written before it) in place and says where the rows are."""
        options, failed = self.options, []

        def attempt(path: Path, write: Callable[[], None]) -> None:
            try:
                write()
            except (OSError, EvalcoreError) as exc:
                failed.append(f"{path} ({(exc.strerror or exc) if isinstance(exc, OSError) else exc})")

        if options.parquet:
            from .tables import write_parquet

            attempt(options.samples, lambda: write_parquet(options.samples, result.samples, list(result.metrics)))
        if options.output is not None:
            report = result.to_dict()
            # the rows, relative to the report's folder; none when they lived in a temporary journal
            report["samples_file"] = None if temporary else os.path.relpath(
                os.path.abspath(result.samples_path), os.path.dirname(os.path.abspath(options.output)))
            attempt(options.output, lambda: write_json(options.output, report))
        if options.csv is not None:
            attempt(options.csv, lambda: write_csv(options.csv, list(result.metrics), result.samples))
        if failed:
            raise OutputError(f"could not write {'; '.join(failed)}; the run's rows are kept in "
                              f"{result.samples_path}")


@contextlib.contextmanager
def _older_objects_frozen() -> Iterator[None]:
    """Leave the objects that exist before scoring (modules, the plan) out of the garbage
    collector's passes while records stream through: the full passes that the records'
    objects set off then visit only those. Nothing changes when the program froze objects
    of its own."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _name_of(program: Callable[..., Any] | None) -> str | None:
    if program is None:
        return None
    return f"{getattr(program, '__module__', '?')}:{getattr(program, '__qualname__', type(program).__name__)}"


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def make_executor(plan: Plan, program: Callable[..., Any] | None) -> ChunkExecutor:
    """The executor the run's options name: this machine, or a plugin's (imported only then)."""
    if plan.executor is None:
        return LocalExecutor(plan, program)
    return plan.executor.load()(plan, program)
