"""``evalcore evaluate``: records (JSONL, ``-`` for stdin, or a plugin reader's files) -> report.

Readers, executors, trackers and settings groups that plugins provide (TREC qrels and run files
from evalcore-retrieval, ``--ray-address`` of evalcore-ray, a model's settings) add their options
to this command when it runs, so ``evalcore --help`` loads no plugin.
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from evalcore._contract.cache_settings import CACHE_MODES
from evalcore._contract.errors import EvalcoreError, InputError

from .common import echo_json

EXIT_INPUT = 1
EXIT_NOTHING_SCORED = 2  # every metric scored no record (all skipped or errors)


class _EvaluateCommand(click.Command):
    """Adds the options of the components plugins provide, looked up when the command runs."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        known = {opt for p in params for opt in getattr(p, "opts", [])}
        if not ctx.find_root().obj:
            return params  # building help outside a run
        from .common import registry_of
        from .components import click_options

        extra = click_options(registry_of(ctx.find_root()), ("readers", "executors", "trackers", "settings"),
                              known)
        return params[:-1] + extra + params[-1:]  # keep --help last


@click.command("evaluate", cls=_EvaluateCommand, context_settings={"ignore_unknown_options": False})
@click.argument("data", required=False, type=click.Path(allow_dash=True))  # a folder: the reader says so
@click.option("-m", "--metric", "metric_ids", multiple=True, required=True, help="Metric id (repeatable).")
@click.option("--reader", "reader_name",
              help="Read DATA with this plugin reader (its first file option), e.g. --reader otel for traces.")
@click.option("--program", help="module:callable producing a prediction from each example.")
@click.option("--allow-code", is_flag=True, default=False,
              help="Let a metric parameter or setting that names Python code as module:attr (judge='module:attr') "
                   "import and run it; without it such a parameter is refused.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the JSON report here.")
@click.option("--samples", type=click.Path(dir_okay=False),
              help="The per-record rows journal (JSONL), streamed as records finish (default: beside -o or --csv, "
                   "result.json -> result.rows.jsonl; without them a new file in the temporary folder).")
@click.option("--csv", type=click.Path(dir_okay=False), help="Write per-record values (CSV).")
@click.option("--resume", is_flag=True, help="Continue an interrupted run from its journal (--samples, or beside -o).")
@click.option("--overwrite", is_flag=True, help="Replace a journal that holds another run's rows.")
@click.option("--concurrency", default=32, show_default=True, type=click.IntRange(min=1))
@click.option("--chunk-size", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Records read and scored together (memory is bounded by it).")
@click.option("--executor", default="local", show_default=True, metavar="NAME",
              help="Where chunks are scored: local, or an executor a plugin provides (ray from evalcore-ray).")
@click.option("--timeout-s", type=click.FloatRange(min=0, min_open=True),
              help="Per-sample time limit for every metric (default: each metric's own).")
@click.option("--failure-score", type=float, help="Count errors with this value in the aggregates.")
@click.option("--max-errors", type=click.FloatRange(min=0),
              help="Stop after this many errors (or this fraction if < 1).")
@click.option("--threshold", type=float, help="Run truth metrics only where the proxy score reaches this.")
@click.option("--rollouts", default=1, show_default=True, type=click.IntRange(min=1),
              help="Program runs per example (needs --program).")
@click.option("--aggregate", "aggregate_by", default="mean", show_default=True,
              type=click.Choice(["mean", "median", "min", "max", "trimmed_mean"]))
@click.option("--trim", default=0.1, show_default=True, type=float, help="Fraction cut per end (trimmed_mean).")
@click.option("--budget-msats", type=click.IntRange(min=0), help="Never spend more than this (millisatoshis).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Bootstrap seed.")
@click.option("--target-ci-width", type=click.FloatRange(min=0, min_open=True),
              help="Score records in a seeded random order (--seed) and stop once every metric's anytime-valid "
                   "confidence sequence is narrower than this.")
@click.option("--baseline", type=click.Path(dir_okay=False, exists=True),
              help="A finished run (its JSON report or samples journal) to pair this run's records with "
                   "(--until-decided).")
@click.option("--until-decided", is_flag=True,
              help="Score records in a seeded random order and stop once every metric's anytime-valid confidence "
                   "sequence for the difference from --baseline excludes 0.")
@click.option("--dry-run", is_flag=True, help="Print the calls and estimated tokens and cost; call nothing.")
@click.option("--cache-mode", metavar="|".join(CACHE_MODES),
              help="Model-call cache mode of model-backed metrics.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Model-call cache folder.")
@click.option("--map", "field_map", multiple=True, metavar="NEW=OLD",
              help="Read the record field NEW from the input's field OLD (repeatable), e.g. --map "
                   "reference_answer=answer or --map example.reference_answer=gold.text.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of the table.")
@click.option("--per-query", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write each record's values as trec_eval -q does (measure, query, value; - for stdout).")
@click.option("--labels", type=click.Path(dir_okay=False, exists=True),
              help='JSONL of {"id": ..., "label": number, "metric"?: ID} on some records: adds the prediction-powered '
                   "estimate of each labelled metric beside its mean and the labelled records' mean.")
@click.option("--labels-metric", "labels_metric", multiple=True, metavar="METRIC",
              help='The metric --labels are for (repeatable; default: the labels\' "metric" field, or the only '
                   "per-record metric of the run).")
@click.option("--log-to", metavar="TRACKER",
              help="Also log the run to a tracker a plugin provides, e.g. mlflow (evalcore-mlflow) or wandb "
                   "(evalcore-wandb): parameters, each metric with its interval, the rows and the HTML report.")
@click.pass_context
def evaluate_command(ctx: click.Context, data: str | None, metric_ids: Sequence[str], program: str | None,
                     dry_run: bool, as_json: bool, max_errors: float | None, per_query: str | None,
                     **options: Any) -> None:
    """Evaluate metrics over JSONL records (or a plugin reader's files, e.g. TREC --qrels/--run)."""
    from .common import handle_errors

    handle_errors(ctx, lambda: _evaluate(ctx, data, metric_ids, program, dry_run, as_json, max_errors, per_query,
                                         options))


def _evaluate(ctx: click.Context, data: str | None, metric_ids: Sequence[str], program: str | None,
              dry_run: bool, as_json: bool, max_errors: float | None, per_query: str | None,
              options: dict[str, Any]) -> None:
    from evalcore._contract.field_map import map_arguments

    from .common import keep_loaded, registry_of
    from .components import group_options, take_options

    registry = registry_of(ctx.find_root())
    options["tracker_options"] = take_options(registry, "trackers", options["log_to"], options)
    options["executor_options"] = take_options(registry, "executors", options["executor"], options)
    options["settings"] = group_options(registry, options)  # --GROUP-model M -> settings={GROUP: {"model": M}}
    options["field_map"] = map_arguments(options["field_map"]) or None  # --map NEW=OLD -> {NEW: OLD}
    reader_name = options.pop("reader_name", None)
    if reader_name is not None:
        options[_first_file_option(registry, reader_name, data)] = data
        data = None
    source = _reader_source(registry, options)
    # the engine loads once a reader's source is made: one that reads ahead (TREC files) reads meanwhile
    from evalcore._engine.entry import evaluate, make_source, without_unscored_warning

    if source is not None and data is not None:
        raise EvalcoreError(f"give either a JSONL file or the {source.name} reader's files, not both")
    if source is None and data is None:
        raise EvalcoreError("nothing to evaluate: give a JSONL file (- for standard input) or a reader's files")
    if source is None:
        source = make_source(data, None, None, None, field_map=options["field_map"])
    names = [m for metric_id in metric_ids for m in registry.expand(metric_id)]
    metrics = [registry.create(name) for name in names]
    if dry_run:
        from evalcore._engine.dry_run import format_plan, plan
        from evalcore._engine.options import make_options, run_context

        context = run_context(make_options(registry, **_run_options(options)), registry)
        for metric in metrics:
            metric.join(context)
        estimate = plan(source, metrics, chunk_size=options["chunk_size"])
        echo_json(estimate) if as_json else click.echo(format_plan(estimate))
        return
    loaded = _load_program(program) if program else None
    if per_query not in (None, "-"):
        _check_per_query(per_query, source, options)
    created = None
    if not options["resume"] and not any(options.get(name) for name in ("output", "samples", "csv")):
        created = options["samples"] = _new_journal()  # the command always keeps its rows
    keep_loaded(ctx)
    try:
        with without_unscored_warning():  # the table says why a metric scored nothing
            result = evaluate(source, metrics, program=loaded, registry=registry,
                              max_errors=int(max_errors) if max_errors is not None and max_errors >= 1 else max_errors,
                              **options)
    except BaseException:
        if created is not None and os.path.isfile(created) and not os.path.getsize(created):
            os.unlink(created)  # made for this run, which ended before it wrote anything
        raise
    rows_at = os.fspath(result.samples_path)
    for error in result.rejected[:20]:
        click.echo(f"error: {error}", err=True)
    if len(result.rejected) > 20:
        click.echo(f"error: … and {len(result.rejected) - 20} more rejected records", err=True)
    if per_query is not None:
        from evalcore._engine.files import replacing
        from evalcore._engine.per_query import write_per_query

        pairs = [(n.split("/")[-1], m) for n, m in zip(names, metrics)]
        if per_query == "-":
            write_per_query(click.get_text_stream("stdout"), pairs, result.samples, result.metrics)
        else:
            try:
                with replacing(per_query, "w", encoding="utf-8") as out:
                    write_per_query(out, pairs, result.samples, result.metrics)
            except OSError as exc:
                raise EvalcoreError(f"could not write {per_query} ({exc.strerror or exc}); "
                                    f"the run's rows are kept in {rows_at}") from None
    if as_json:
        echo_json(result.to_dict())
    elif per_query != "-":
        click.echo(result.table() + (f"\n\n{result.ppi.table()}" if result.ppi is not None else ""))
        click.echo(f"\n{len(result.samples)} records from {source.name}"
                   + (f", {len(result.rejected)} rejected" if result.rejected else "") + f"; rows in {rows_at}")
    else:
        click.echo(f"rows in {rows_at}", err=True)
        for verdict in result.verdict or ():  # the table, which holds them, went nowhere
            click.echo(f"verdict: {verdict['text']}", err=True)
    if result.stopped and not _stopped_by_rule(result):
        click.echo(f"warning: {result.stopped}; partial results kept", err=True)
        if result.stopped.startswith("interrupted"):
            click.echo(f"to finish the run: {_resume_command(rows_at, given=created is None)}", err=True)
    if result.logged_to is not None:
        click.echo(f"logged to {result.logged_to}", err=True)
    if result.metrics and not result.stopped and all(m.value is None for m in result.metrics.values()):
        click.echo("error: no metric scored any record; the reasons are under the table", err=True)
        sys.exit(EXIT_NOTHING_SCORED)
    if result.rejected or (result.stopped and not _stopped_by_rule(result)):
        sys.exit(EXIT_INPUT)


def _run_options(options: dict[str, Any]) -> dict[str, Any]:
    """The command's options that :class:`~evalcore._engine.options.RunOptions` holds (a dry run
    checks them as a run would, and builds the same run context)."""
    from evalcore._engine.run_hooks import EXTRA_OWNERS

    return {k: v for k, v in options.items() if k not in ("log_to", "tracker_options", *EXTRA_OWNERS)}


def _stopped_by_rule(result: Any) -> bool:
    """Whether the run ended because its stopping rule (``--target-ci-width``, ``--until-decided``) was met."""
    rule = result.provenance.get("stopping")
    return bool(rule and result.stopped and result.stopped == rule.get("reason"))


def _resume_command(journal: str, *, given: bool) -> str:
    """The command line that continues this interrupted run from ``journal`` (named in it unless the
    command's own -o, --csv or --samples lead there)."""
    args = list(sys.argv[1:])
    if not given:
        args += ["--samples", journal]
    if "--resume" not in args:
        args.append("--resume")
    return shlex.join(["evalcore", *args])


def _new_journal() -> str:
    """A new journal file in the temporary folder (``evalcore-run-<time>-<random>.rows.jsonl``), kept
    after the run and named in its output: a run without -o or --samples keeps its rows there."""
    import tempfile
    import time

    handle, name = tempfile.mkstemp(prefix=f"evalcore-run-{time.strftime('%Y%m%dT%H%M%S')}-", suffix=".rows.jsonl")
    os.close(handle)
    return name


def _check_per_query(path: str, source: Any, options: dict[str, Any]) -> None:
    """``--per-query FILE`` is an output too: not an input, not another output, not a special file."""
    from pathlib import Path

    from evalcore._engine.files import check_output
    from evalcore._engine.options import make_options

    taken: list[tuple[Any, str]] = [(p, "an input file") for p in source.inputs()]
    journal = make_options(**{k: options.get(k) for k in ("output", "samples", "csv")}).journal
    taken += [(options[name], f"the --{name} file") for name in ("output", "samples", "csv") if options.get(name)]
    if journal is not None:
        taken.append((journal, "the rows journal"))
    check_output(Path(path), "--per-query", taken)


def _first_file_option(registry: Any, name: str, data: str | None) -> str:
    """Where ``--reader NAME`` puts DATA: the named reader's first file option."""
    readers = {reader.name: reader for reader in registry.readers()}
    if name not in readers:
        known = ", ".join(sorted(readers)) or "none installed"
        raise EvalcoreError(f"--reader: no reader named {name!r} (readers: {known})")
    if data is None:
        raise EvalcoreError(f"--reader {name}: give the file to read")
    return next(o.dest for o in readers[name].options if o.kind == "path")


def _reader_source(registry: Any, options: dict[str, Any]) -> Any:
    """The source of the plugin reader whose file options were all given (every reader's options
    are removed from ``options``). Readers may share an option, such as ``--run``: the reader
    chosen is the one whose files are all given and whose options cover everything given."""
    readers = registry.readers()
    given = {}
    for reader in readers:
        for option in reader.options:
            value = options.pop(option.dest, None)
            if value is not None:
                given[option.dest] = value
    if not given:
        return None
    named = [r for r in readers if any(o.dest in given for o in r.options)]
    complete = [r for r in named if all(o.dest in given for o in r.options if o.kind == "path")]
    if not complete:
        required = [o for o in named[0].options if o.kind == "path"]
        raise EvalcoreError(f"{' and '.join(o.flag for o in required)} go together")
    covering = [r for r in complete if set(given) <= {o.dest for o in r.options}]
    if len(covering) != 1:
        raise EvalcoreError("give the files of one reader only")
    return covering[0].open(**{o.dest: given.get(o.dest) for o in covering[0].options})


def _load_program(spec: str) -> Callable[..., Any]:
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise EvalcoreError(f"--program must be 'module:callable'; got {spec!r}")
    sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise EvalcoreError(f"cannot import program module {module_name!r}: {exc}") from None
    for part in attr.split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise InputError(f"{spec} is not callable")
    return target
