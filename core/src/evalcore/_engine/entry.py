"""The one assembly of a run: :func:`evaluate` / :func:`aevaluate`, which the Python API and
``evalcore evaluate`` both call.

Every option is a typed keyword, checked in one place (:func:`~evalcore._engine.options.make_options`
builds :class:`~evalcore._engine.options.RunOptions`), before any record is read: the cache mode,
the field map, the settings groups, the executor and its options, the tracker and its options,
the labels. Options that plugins add go through typed mappings: ``executor_options``,
``tracker_options``, and each settings group as a keyword named after it (``GROUP={...}``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import os
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any, ParamSpec

import attrs

from evalcore._contract.budget import Budget
from evalcore._contract.cache_settings import CacheMode
from evalcore._contract.chunk import Source
from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._contract.field_map import FieldMap
from evalcore._lazy import publish
from evalcore._registry.registry import Registry, default_registry

from .diagnose import warn_if_unscored
from .options import RunOptions, SamplesFormat, check_paths, make_options, run_context
from .plan import MetricLike, Plan, bind_metrics, resolve_executor
from .programs import adapt_program
from .readers import DataSource, JsonlSource, stdin_source
from .result import EvaluationResult
from .run import Run
from .run_hooks import EXTRA_OWNERS, check_extras, finish_extras
from .stats import AggregateMethod
from .trackers import open_tracker

_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("evalcore_quiet_unscored", default=False)
_P = ParamSpec("_P")
PathLike = str | os.PathLike[str]


def evaluate(
    data: Any = None,
    metrics: Sequence[MetricLike] | MetricLike = (),
    *,
    examples: Iterable[Any] | None = None,
    predictions: Iterable[Any] | None = None,
    program: Callable[..., Any] | None = None,
    columns: Mapping[str, str] | None = None,
    field_map: Mapping[str, str] | None = None,
    concurrency: int = 32,
    chunk_size: int = 1000,
    progress: bool | None = None,
    failure_score: float | None = None,
    max_errors: int | float | None = None,
    tiers: Mapping[str, str] | None = None,
    threshold: float | None = None,
    rollouts: int = 1,
    aggregate_by: AggregateMethod = "mean",
    trim: float = 0.1,
    budget_msats: int | Budget | None = None,
    timeout_s: float | None = None,
    allow_code: bool = False,
    cache_mode: CacheMode | None = None,
    cache_dir: PathLike | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    output: PathLike | None = None,
    csv: PathLike | None = None,
    samples: PathLike | None = None,
    samples_format: SamplesFormat = "jsonl",
    resume: bool = False,
    overwrite: bool = False,
    executor: str = "local",
    executor_options: Mapping[str, Any] | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    confidence: float = 0.95,
    target_ci_width: float | None = None,
    baseline: Any = None,
    until_decided: bool = False,
    log_to: str | None = None,
    tracker_options: Mapping[str, Any] | None = None,
    labels: PathLike | Mapping[str, Any] | None = None,
    labels_metric: str | Sequence[str] | None = None,
    registry: Registry | None = None,
    **groups: Mapping[str, Any],
) -> EvaluationResult:
    """Evaluate ``metrics`` over ``data`` and return an :class:`EvaluationResult` (:func:`aevaluate`
    is the same run for code inside an event loop: ``await evalcore.aevaluate(...)``). The options:

    * ``data`` — a JSONL path (``"-"`` for standard input), ``.csv`` / ``.tsv`` / ``.parquet``, a
      list of record dicts or :class:`~evalcore.Record`, a pandas / polars / Arrow table, a reader's
      source; or omitted in favour of ``examples=`` with ``predictions=`` (or ``program=``).
    * ``columns`` — for a table: record field -> column name
      (``{"example.query": "question", "prediction.response": "answer"}``); without it, the
      columns are a flat record's fields.
    * ``field_map`` — ``{NEW: OLD}``: copy each record's field ``OLD`` (a dotted path into the
      record as read) to ``NEW`` (``reference_answer``, ``response``, ``query`` or a path such as
      ``example.labels.scenario``) before metrics see it; the ``--map NEW=OLD`` of the command line.
    * ``program`` — callable (sync or async) mapping an example to a prediction, or a program of a
      kind a plugin adapts (a DSPy module); with ``rollouts`` > 1 it runs that many times per example
      and each metric's per-record value is the ``aggregate_by`` (mean, median, min, max,
      trimmed_mean with ``trim``) of the rollouts, with their spread in the details.
    * ``concurrency`` (32) — samples scored at once (async metrics on the event loop, sync
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
    * ``settings`` — ``{GROUP: {setting: value}}``, the run settings of the settings groups
      plugins declare (``evalcore plugins`` lists them); a group may also be given as a keyword
      named after it, ``GROUP={"model": "m"}``. They reach every metric that reads the group, where
      a metric's own parameter of the same name wins; unset keys come from the environment
      variables the group declares, read as the run starts. An unknown group is an error.
    * ``output`` / ``csv`` — the JSON report (aggregates, provenance, where the rows are) and a
      CSV of values.
    * ``samples`` — the per-record rows journal (JSONL, or Parquet with ``samples_format``),
      streamed as chunks finish; by default beside the report or CSV
      (``result.json`` -> ``result.rows.jsonl``), and with neither a temporary file removed with the
      result. ``resume=True`` continues an interrupted run from it, scoring only what is missing;
      another run's journal is not written over unless ``overwrite=True``.
    * ``executor`` — ``"local"`` (default, this machine) or an executor a plugin provides, such as
      ``"ray"`` from evalcore-ray; ``executor_options`` are its own options by name
      (``{"address": ...}``, the ``--ray-address`` of the command line).
    * ``seed``, ``n_boot``, ``confidence`` — the bootstrap interval.
    * ``target_ci_width`` — score the records in an order drawn with ``seed`` and stop once every
      metric's anytime-valid confidence sequence (at ``confidence``) is narrower than this; the
      report's ``stopped`` says when, ``provenance["stopping"]`` holds each sequence's interval.
    * ``baseline`` with ``until_decided=True`` — pair each record with a finished run's value
      (an :class:`EvaluationResult`, or ``{metric id: {record id: value}}``) and stop, in the
      same seeded order, once every metric's confidence sequence for the mean difference
      (this run − baseline) excludes 0.
    * ``log_to`` — the name of a tracker a plugin provides (``"mlflow"`` from evalcore-mlflow,
      ``"wandb"`` from evalcore-wandb), opened before any record is scored: the finished run is
      logged there (parameters, each aggregate with its interval, the rows and the HTML report)
      and ``result.logged_to`` says where; ``tracker_options`` are the tracker's own options.
    * ``labels`` — trusted labels on some records (a JSONL file of ``{"id": ..., "label": number}``
      lines, each optionally naming its ``"metric"``, or a mapping of record id to number, on the
      metric's scale) and ``labels_metric``, the metric id(s) of lines that name none (needed when
      the run has several per-record metrics), read before the run: ``result.ppi`` (and the
      ``"ppi"`` section of the JSON report) holds, for each labelled metric, its mean, the
      labelled records' mean and the prediction-powered estimate with their intervals
      (:func:`evalcore.ppi`, from evalcore-stats).
    * ``registry`` — the plugins to use (default: the installed ones).
    """
    arguments = dict(locals())  # exactly the arguments given
    quiet = _QUIET.get()
    token = _QUIET.set(True)  # the warning is given here, where it names the caller's line
    try:
        run = _Assembly(arguments)
        result = run.finish(_run_sync(run.score))
    finally:
        _QUIET.reset(token)
    if not quiet:
        warn_if_unscored(result.metrics, stacklevel=2)
    return result


class _Assembly:
    """The run :func:`evaluate`'s ``arguments`` ask for. Made in the caller's thread: every option is
    checked, the tracker opened and the labels read before any record is scored (a wrong tracker
    address or a bad labels file costs no scoring); :meth:`finish` logs in that thread too (a
    tracker may keep its run per thread: MLflow does), while :meth:`score` runs on an event loop."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.registry = arguments["registry"] or default_registry()
        given = {name: value for name, value in arguments.items() if name in _RUN_OPTIONS}
        self.options = make_options(self.registry, **given, **arguments["groups"])
        self.tracker = open_tracker(arguments["log_to"], arguments["tracker_options"], self.registry)
        self.extras = {name: arguments[name] for name in EXTRA_OWNERS}
        check_extras(self.registry, self.options, self.extras)

    async def score(self) -> EvaluationResult:
        """Read, score and summarise the records."""
        started, arguments, options, registry = time.time(), self.arguments, self.options, self.registry
        program = arguments["program"]
        source = make_source(arguments["data"], arguments["examples"], arguments["predictions"], program,
                             arguments["columns"], field_map=options.field_map)
        check_paths(options, source.inputs())
        _check_parquet(options)
        if options.rollouts > 1 and program is None:
            raise EvalcoreError("rollouts > 1 needs a program that produces the predictions")
        if program is not None:
            program = adapt_program(program, registry)
        context = run_context(options, registry)
        chosen = resolve_executor(options, registry)
        bound, created_from = bind_metrics(arguments["metrics"], registry, context, options.tiers)
        plan = Plan(bound, options, context, created_from, chosen)
        try:
            return await Run(plan, source, program, started, registry).execute()
        finally:
            for metric in plan.metrics:
                metric.close()

    def finish(self, result: EvaluationResult) -> EvaluationResult:
        """``result`` with what plugins add from the extra options (the labels' prediction-powered
        estimates), logged to the tracker."""
        result = finish_extras(self.registry, result, self.options, self.extras)
        if self.tracker is not None:
            result = attrs.evolve(result, logged_to=self.tracker.log_evaluation(result))
        return result


_RUN_OPTIONS = frozenset(field.name for field in attrs.fields(RunOptions)) | {"budget_msats"}
"""The keywords of :func:`evaluate` that :class:`RunOptions` holds."""


def _awaitable(run: Callable[_P, EvaluationResult]) -> Callable[_P, Coroutine[Any, Any, EvaluationResult]]:
    """``run`` (:func:`evaluate`) for code inside an event loop: the same arguments, awaited."""
    signature = inspect.signature(run)

    @functools.wraps(run)
    async def aevaluate(*args: _P.args, **kwargs: _P.kwargs) -> EvaluationResult:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        run = _Assembly(dict(bound.arguments))
        result = run.finish(await run.score())
        if not _QUIET.get():
            warn_if_unscored(result.metrics, stacklevel=2)
        return result

    aevaluate.__name__ = aevaluate.__qualname__ = "aevaluate"
    aevaluate.__doc__ = ("Evaluate as :func:`evaluate` does, awaitable: ``await evalcore.aevaluate(...)`` inside an "
                         "event loop.\n\nThe options are :func:`evaluate`'s:"
                         + (run.__doc__ or "").partition("The options:")[2])
    return aevaluate


aevaluate = _awaitable(evaluate)


@contextlib.contextmanager
def without_unscored_warning() -> Iterator[None]:
    """Inside, :func:`evaluate` gives no :class:`~evalcore.NothingScoredWarning` (for callers that say why
    themselves, or score one example at a time)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def _run_sync(start: Callable[[], Coroutine[Any, Any, EvaluationResult]]) -> EvaluationResult:
    """What ``start()`` returns, run on a new event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(start())
    # Called from inside an event loop (a notebook): run on a private loop in a thread.
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(start())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=contextvars.copy_context().run, args=(target,))  # the caller's context
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def make_source(data: Any, examples: Any, predictions: Any, program: Any,
                columns: Mapping[str, str] | None = None, *, field_map: Mapping[str, str] | None = None) -> Source:
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
            from .formats import file_source as parquet_source

            return parquet_source(data, columns, mapping)
        if suffix in (".csv", ".tsv"):
            from .formats import csv_source as CsvSource

            return CsvSource(data, mapping)
        return JsonlSource(data, mapping)
    if data is not None:
        from .formats import object_source as frame_source

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
