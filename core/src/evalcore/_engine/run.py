"""The evaluation pipeline: reader -> chunks -> executor -> journal + tally -> summary -> report."""

from __future__ import annotations

import asyncio
import os
import platform
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .._errors import EvalcoreError, InputError
from .._output import write_csv, write_json
from .._registry import Registry, default_registry
from .._summary import MetricSummary, summarise
from .._version import __version__
from .accumulate import Tally
from .chunk import Chunk, Source
from .context import RunContext
from .executors import make_executor
from .journal import JournalWriter, Rows
from .options import RunOptions, check_paths, make_options
from .plan import MetricLike, Plan, bind_metrics
from .progress import RunProgress
from .readers import DataSource, JsonlSource, stdin_source
from .result import EvaluationResult
from .score import ChunkResult


def evaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), **options: Any) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult`.

    ``data`` is a JSONL path (``"-"`` for standard input), a list of record dicts or
    :class:`~evalcore.Record`, a reader's source, or omitted in favour of ``examples=``
    with ``predictions=`` (or ``program=``). See :func:`aevaluate` for every option.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
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
    metrics: Sequence[MetricLike] | MetricLike = (),
    *,
    examples: Iterable[Any] | None = None,
    predictions: Iterable[Any] | None = None,
    program: Callable[..., Any] | None = None,
    columns: dict[str, str] | None = None,
    registry: Registry | None = None,
    **options: Any,
) -> EvaluationResult:
    """Evaluate asynchronously. The options:

    * ``columns`` — for a pandas / polars / Arrow table: record field -> column name
      (``{"example.query": "question", "prediction.response": "answer"}``).
    * ``program`` — callable (sync or async) mapping an example to a prediction; with
      ``rollouts`` > 1 it runs that many times per example and each metric's per-record
      value is the ``aggregate_by`` (mean, median, min, max, trimmed_mean with ``trim``)
      of the rollouts, with their spread in the details.
    * ``concurrency`` (8) — samples scored at once (async metrics on the event loop, sync
      ones in that many worker threads, each taking a slice of a chunk).
    * ``chunk_size`` (1000) — records read and scored together; memory is bounded by it.
    * ``progress`` — a progress bar (default: when stderr is a terminal).
    * ``failure_score`` — when set, errors count with this value in the aggregates
      (DSPy's behaviour); by default they are excluded and counted in ``n_errors``.
    * ``max_errors`` — an error count, or a fraction (< 1) of the records; when exceeded
      the run stops and returns (and saves) what finished.
    * ``threshold`` — truth metrics run only for records whose mean proxy score reaches
      it; other records keep the proxy score and record the skip.
    * ``budget_msats`` — a sample is scored only if its estimated cost fits in what
      remains (a :class:`~evalcore.Budget` may be shared across runs).
    * ``timeout_s`` — per-sample time limit for every metric (default: each metric's own,
      set for model-backed and execution metrics); a sample past it is an ``error``.
    * ``cache_mode`` / ``cache_dir`` — the model-call cache of judge and embedding metrics.
    * ``samples`` — the per-record rows journal (JSONL), streamed as chunks finish;
      ``resume=True`` continues an interrupted run from it, scoring only what is missing.
    * ``output`` / ``csv`` — the JSON report (aggregates, provenance) and a CSV of values.
    * ``executor`` — ``"local"`` (default) or ``"ray"`` (with ``ray_address``).
    * ``seed``, ``n_boot``, ``confidence`` — the bootstrap interval.
    """
    started = time.time()
    run_options = make_options(**options)
    source = make_source(data, examples, predictions, program, columns)
    check_paths(run_options, source.inputs())
    _check_parquet(run_options)
    if run_options.rollouts > 1 and program is None:
        raise EvalcoreError("rollouts > 1 needs a program that produces the predictions")
    context = RunContext(cache_mode=run_options.cache_mode, cache_dir=run_options.cache_dir,  # type: ignore[arg-type]
                         budget=run_options.budget, timeout_s=run_options.timeout_s, seed=run_options.seed,
                         executor=run_options.executor)
    bound, created_from = bind_metrics(metrics, registry or default_registry(), context)
    plan = Plan(bound, run_options, context, created_from)
    return await _Run(plan, source, program, started).execute()


def make_source(data: Any, examples: Any, predictions: Any, program: Any,
                columns: dict[str, str] | None = None) -> Source:
    """The reader for what was given."""
    if data is not None and examples is not None:
        raise EvalcoreError("pass data or examples, not both")
    if isinstance(data, Source) and not isinstance(data, (str, os.PathLike)):
        return data
    if isinstance(data, str) and data == "-":
        return stdin_source()
    if isinstance(data, (str, os.PathLike)):
        return JsonlSource(data)
    if data is not None:
        from .frames import frame_source

        return frame_source(data, columns) or DataSource(data if isinstance(data, Sequence) else list(data))
    if examples is None:
        raise EvalcoreError("nothing to evaluate: pass data, or examples (with predictions or a program)")
    if predictions is None and program is None:
        raise EvalcoreError("examples need predictions or a program that produces them")
    from .._records import pair_items

    return DataSource(pair_items(examples, predictions))


class _Run:
    """One run: feeds chunks to the executor and their results to the journal and the tally."""

    def __init__(self, plan: Plan, source: Source, program: Callable[..., Any] | None, started: float) -> None:
        self.plan = plan
        self.source = source
        self.program = program
        self.started = started
        self.options = plan.options
        self.tally = Tally(plan.metrics)
        self.rejected: list[InputError] = []
        self.seen_ids: set[int] = set()
        self.stopped: str | None = None
        self.error_limit = self.options.error_limit(source.total())
        self.progress = RunProgress(self.options.progress, total=source.total())

    async def execute(self) -> EvaluationResult:
        path, temporary = self._journal_path()
        journal = JournalWriter(path, self._header(temporary), resume=self.options.resume)
        executor = make_executor(self.plan, self.program)
        try:
            self.tally.add_rows(journal.done)
            done = {row.get("i") for row in journal.done}
            self.seen_ids = {hash(row["id"]) for row in journal.done}
            self.progress.start(already=len(done))
            try:
                await executor.run(self._chunks(done), lambda result: self._record(journal, result))
            except (KeyboardInterrupt, asyncio.CancelledError):
                self.stopped = "interrupted; the report covers the records that finished"
        finally:
            executor.close()
            journal.close()
        try:
            result = self._result(path)
        finally:
            self.progress.stop()
        if temporary:
            weakref.finalize(result, _unlink, path)
        self._write_outputs(result)
        return result

    # -- feeding ---------------------------------------------------------------------

    def _chunks(self, done: set[int]) -> Iterator[Chunk]:
        for chunk in self.source.chunks(self.options.chunk_size):
            self.rejected.extend(chunk.errors)
            chunk = self._without_duplicates(chunk.without(done) if done else chunk)
            self.progress.read(len(chunk.records) + len(chunk.errors))
            if chunk.records:
                yield chunk

    def _without_duplicates(self, chunk: Chunk) -> Chunk:
        keep = []
        for i, record in enumerate(chunk.records):
            key = hash(record.id)
            if key in self.seen_ids:
                self.rejected.append(InputError(f"duplicate record id {record.id!r}",
                                                source=f"{record.source} (record {record.id!r})", field="id"))
            else:
                self.seen_ids.add(key)
                keep.append(i)
        if len(keep) == len(chunk.records):
            return chunk
        dropped = {chunk.positions[i] for i in range(len(chunk.records)) if i not in set(keep)}
        return chunk.without(dropped)

    def _record(self, journal: JournalWriter, result: ChunkResult) -> bool:
        rows = result.rows
        if self.error_limit is not None and self.tally.n_errors + result.n_errors > self.error_limit:
            rows, states = self._until_limit(rows, result.states)
            self.stopped = f"stopped after {self.error_limit + 1} errors (max_errors={self.error_limit})"
            self.tally.add_rows(rows, states)
        else:
            self.tally.add_chunk(result.positions, result.columns, result.states, result.n_errors)
        journal.write_chunk(result.index, rows)
        self.progress.scored(len(rows), self.tally.n_errors)
        return self.stopped is None

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
        samples = self.options.samples
        if samples is not None and self._parquet:
            return samples.with_name(samples.name + ".journal.jsonl"), False
        if samples is not None:
            return samples, False
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
            "metrics": self._metric_provenance(),
        }

    def _metric_provenance(self) -> dict[str, Any]:
        return {
            m.id: {"metric_version": m.spec.version, "distribution": m.origin.distribution,
                   "distribution_version": m.origin.version, "granularity": m.spec.granularity.value,
                   "direction": m.spec.direction.value, "params": dict(m.params)}
            for m in self.plan.metrics
        }

    def _summaries(self) -> dict[str, MetricSummary]:
        summaries = {}
        for metric_id, tally in self.tally.metrics.items():
            self.progress.summarising(metric_id)
            values, status = tally.ordered()
            summaries[metric_id] = summarise(
                tally.metric, values, status, cost_msats=tally.cost_msats, states=tally.ordered_states(),
                failure_score=self.options.failure_score, seed=self.options.seed, n_boot=self.options.n_boot,
                confidence=self.options.confidence,
            )
        return summaries

    def _result(self, path: Path) -> EvaluationResult:
        if not self.tally.n_records and self.rejected and not self.stopped:
            raise self.rejected[0]
        options = self.options
        return EvaluationResult(
            metrics=self._summaries(), samples=Rows(path), rejected=self.rejected, stopped=self.stopped,
            samples_path=path,
            provenance={
                "evalcore_version": __version__,
                "python": platform.python_version(),
                "platform": platform.platform(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
                "duration_s": round(time.time() - self.started, 3),
                "input": self.source.name,
                "n_records": self.tally.n_records + len(self.rejected),
                "n_finished": self.tally.n_records,
                "budget": self.plan.context.budget.to_dict(),
                "executor": options.executor,
                "resumed": options.resume,
                "options": {"seed": options.seed, "n_boot": options.n_boot, "confidence": options.confidence,
                            "threshold": options.threshold, "rollouts": options.rollouts,
                            "aggregate_by": options.aggregate_by, "failure_score": options.failure_score,
                            "chunk_size": options.chunk_size, "concurrency": options.concurrency},
                "metrics": self._metric_provenance(),
            },
        )

    @property
    def _parquet(self) -> bool:
        samples = self.options.samples
        return samples is not None and (self.options.samples_format == "parquet" or samples.suffix == ".parquet")

    def _write_outputs(self, result: EvaluationResult) -> None:
        if self._parquet:
            from .tables import write_parquet

            write_parquet(self.options.samples, result.samples, list(result.metrics))
        if self.options.output is not None:
            write_json(self.options.output, result.to_dict())
        if self.options.csv is not None:
            write_csv(self.options.csv, list(result.metrics), result.samples)


def _check_parquet(options: RunOptions) -> None:
    samples = options.samples
    if samples is not None and (options.samples_format == "parquet" or samples.suffix == ".parquet"):
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise EvalcoreError('Parquet samples need pyarrow: pip install "evalcore-core[parquet]"')


def _name_of(program: Callable[..., Any] | None) -> str | None:
    if program is None:
        return None
    return f"{getattr(program, '__module__', '?')}:{getattr(program, '__qualname__', type(program).__name__)}"


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
