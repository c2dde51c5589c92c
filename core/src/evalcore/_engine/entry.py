"""The entry points: ``evaluate`` / ``aevaluate`` check everything, then hand over to a run."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from evalcore._contract.chunk import Source
from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._contract.field_map import FieldMap
from evalcore._lazy import publish
from evalcore._registry.registry import Registry, default_registry

from .diagnose import warn_if_unscored
from .options import RunOptions, check_paths, make_options, run_context
from .plan import MetricLike, Plan, bind_metrics, resolve_executor
from .programs import adapt_program
from .readers import DataSource, JsonlSource, stdin_source
from .result import EvaluationResult
from .run import Run

_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("evalcore_quiet_unscored", default=False)


def evaluate(data: Any = None, metrics: Sequence[MetricLike] | MetricLike = (), **options: Any) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult`.

    ``data`` is a JSONL path (``"-"`` for standard input), a list of record dicts or
    :class:`~evalcore.Record`, a reader's source, or omitted in favour of ``examples=``
    with ``predictions=`` (or ``program=``). See :func:`aevaluate` for every option.
    """
    quiet = _QUIET.get()
    token = _QUIET.set(True)  # the warning is given here, where it names the caller's line
    try:
        result = _run_sync(data, metrics, options)
    finally:
        _QUIET.reset(token)
    if not quiet:
        warn_if_unscored(result.metrics, stacklevel=3)
    return result


@contextlib.contextmanager
def without_unscored_warning() -> Iterator[None]:
    """Inside, :func:`evaluate` gives no :class:`~evalcore.NothingScoredWarning` (for callers that say why
    themselves, or score one example at a time)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def _run_sync(data: Any, metrics: Sequence[MetricLike] | MetricLike, options: dict[str, Any]) -> EvaluationResult:
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

    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,))  # the caller's context
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
      (``{"example.query": "question", "prediction.response": "answer"}``); without it, the
      columns are a flat record's fields.
    * ``field_map`` — ``{NEW: OLD}``: copy each record's field ``OLD`` (a dotted path into the
      record as read) to ``NEW`` (``reference_answer``, ``response``, ``query`` or a path such as
      ``example.labels.scenario``) before metrics see it; the ``--map NEW=OLD`` of the command line.
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
    * ``tiers`` — ``{metric id: "proxy" | "truth"}``: run a metric in another tier than its spec's.
    * ``threshold`` — truth metrics run only for records whose mean proxy score reaches
      it; other records keep the proxy score and record the skip.
    * ``budget_msats`` — a sample is scored only if its estimated cost fits in what
      remains (a :class:`~evalcore.Budget` may be shared across runs).
    * ``timeout_s`` — per-sample time limit for every metric (default: each metric's own,
      set for model-backed and execution metrics); a sample past it is an ``error``.
    * ``allow_code`` — let a metric parameter or setting that names Python code as ``"module:attr"``
      (``judge='module:attr'``) import it; without it such a parameter is a one-line
      :class:`~evalcore.ParameterError` and nothing is imported. A callable passed itself needs no
      allowance.
    * ``cache_mode`` / ``cache_dir`` — the model-call cache of model-backed metrics
      (``readwrite``, ``readonly``, ``refresh`` or ``off``; default ``$EVALCORE_CACHE_MODE``,
      else ``readwrite``, in ``$EVALCORE_CACHE_DIR`` or ``~/.cache/evalcore``).
    * a settings group's name — its settings for this run: each plugin may declare named groups
      of run settings (``evalcore plugins`` lists them), given as a keyword named after the group
      with a mapping, e.g. ``GROUP={"model": "m"}``. They reach every metric that reads the group,
      where a metric's own parameter of the same name wins; unset keys come from the environment
      variables the group declares, read as the run starts.
    * ``output`` / ``csv`` — the JSON report (aggregates, provenance, where the rows are) and a
      CSV of values.
    * ``samples`` — the per-record rows journal (JSONL), streamed as chunks finish; by default
      beside the report or CSV (``result.json`` -> ``result.rows.jsonl``), and with neither a
      temporary file removed with the result. ``resume=True`` continues an interrupted run from
      it, scoring only what is missing; another run's journal is not written over unless
      ``overwrite=True``.
    * ``executor`` — ``"local"`` (default, this machine) or an executor a plugin provides, such as
      ``"ray"`` from evalcore-ray; ``executor_options`` are its own options (``{"address": ...}``),
      which may also be given as ``<executor>_<option>`` (``ray_address=...``).
    * ``seed``, ``n_boot``, ``confidence`` — the bootstrap interval.
    * ``target_ci_width`` — score the records in an order drawn with ``seed`` and stop once every
      metric's anytime-valid confidence sequence (at ``confidence``) is narrower than this; the
      report's ``stopped`` says when, ``provenance["stopping"]`` holds each sequence's interval.
    * ``baseline`` with ``until_decided=True`` — pair each record with a finished run's value
      (an :class:`EvaluationResult`, or ``{metric id: {record id: value}}``) and stop, in the
      same seeded order, once every metric's confidence sequence for the mean difference
      (this run − baseline) excludes 0.
    """
    started = time.time()
    registry = registry or default_registry()
    run_options = make_options(registry, **options)
    source = make_source(data, examples, predictions, program, columns, field_map=run_options.field_map)
    check_paths(run_options, source.inputs())
    _check_parquet(run_options)
    if run_options.rollouts > 1 and program is None:
        raise EvalcoreError("rollouts > 1 needs a program that produces the predictions")
    if program is not None:
        program = adapt_program(program, registry)
    context = run_context(run_options, registry)
    executor = resolve_executor(run_options, registry)
    bound, created_from = bind_metrics(metrics, registry, context, run_options.tiers)
    plan = Plan(bound, run_options, context, created_from, executor)
    try:
        result = await Run(plan, source, program, started).execute()
    finally:
        for metric in plan.metrics:
            metric.close()
    if not _QUIET.get():
        warn_if_unscored(result.metrics, stacklevel=3)
    return result


def make_source(data: Any, examples: Any, predictions: Any, program: Any,
                columns: dict[str, str] | None = None, *, field_map: dict[str, str] | None = None) -> Source:
    """The reader for what was given (JSONL, ``.csv`` / ``.tsv``, ``.parquet``, a table, Python
    records), mapping each record by ``field_map`` (``{NEW: OLD}``, see :mod:`evalcore._contract.field_map`)."""
    if data is not None and examples is not None:
        raise EvalcoreError("pass data or examples, not both")
    mapping = FieldMap(field_map) if field_map else None
    if isinstance(data, Source) and not isinstance(data, (str, os.PathLike)):
        given = getattr(data, "field_map", None)
        if mapping is not None and (given is None or given.to_json() != mapping.to_json()):
            raise EvalcoreError(f"field_map (--map) applies to JSONL, CSV and Parquet files, tables and Python "
                                f"records, not to {data.name}: its reader makes the records itself")
        return data
    if isinstance(data, str) and data == "-":
        source = stdin_source()
        source.field_map = mapping
        return source
    if isinstance(data, (str, os.PathLike)):
        if os.path.isdir(data):
            raise InputError("is a folder; expected a file of records: JSON lines (one record object per line), "
                             ".csv, .tsv or .parquet", source=os.fspath(data))
        suffix = os.path.splitext(os.fspath(data))[1].lower()
        if suffix == ".parquet":
            from .frames import parquet_source

            return parquet_source(data, columns, mapping)
        if suffix in (".csv", ".tsv"):
            from .csv_reader import CsvSource

            return CsvSource(data, mapping)
        return JsonlSource(data, mapping)
    if data is not None:
        from .frames import frame_source

        return frame_source(data, columns, mapping) or DataSource(
            data if isinstance(data, Sequence) else list(data), field_map=mapping)
    if examples is None:
        raise EvalcoreError("nothing to evaluate: pass data, or examples (with predictions or a program)")
    if predictions is None and program is None:
        raise EvalcoreError("examples need predictions or a program that produces them")
    from evalcore._contract.records import pair_items

    return DataSource(pair_items(examples, predictions), field_map=mapping)


def _check_parquet(options: RunOptions) -> None:
    samples = options.samples
    if samples is not None and (options.samples_format == "parquet" or samples.suffix == ".parquet"):
        import importlib.util

        if importlib.util.find_spec("pyarrow") is None:
            raise EvalcoreError('Parquet samples need pyarrow: pip install "evalcore-core[parquet]"')


publish(globals())
