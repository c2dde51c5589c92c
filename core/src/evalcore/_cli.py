"""The ``evalcore`` command line: list, describe, plugins, evaluate."""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from ._errors import EvalcoreError, InputError
from ._registry import STRICT_ENV, Registry

EXIT_INPUT = 1
EXIT_ERROR = 2


def _fail(message: str, code: int = EXIT_ERROR) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print evalcore errors as one line (a traceback only with ``--debug``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except (EvalcoreError, OSError) as exc:
            if ctx.obj.get("debug"):
                raise
            _fail(str(exc))

    return wrapper


def _registry(ctx: click.Context) -> Registry:
    return ctx.obj["registry"]


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@click.group()
@click.option("--strict", is_flag=True, help=f"Fail if any plugin fails to load (also {STRICT_ENV}=1).")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.version_option(package_name="evalcore-core")
@click.pass_context
def main(ctx: click.Context, strict: bool, debug: bool) -> None:
    """Evaluation metrics for ML, LLM, RAG and agent systems."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["registry"] = Registry(strict=True if strict else None)


@main.command("list")
@click.option("--family", help="Only metrics of this family or namespace.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@_handle_errors
def list_command(ctx: click.Context, family: str | None, as_json: bool) -> None:
    """List installed metrics."""
    registry = _registry(ctx)
    infos = registry.metrics(family)
    if as_json:
        _echo_json([info.to_dict() for info in infos])
    else:
        rows = [(info.default_id, f"{info.origin.distribution} {info.origin.version}".strip(),
                 info.spec.family, ("CONFLICT: " if info.conflicts_with else "") + info.spec.summary)
                for info in infos]
        _echo_rows(("id", "distribution", "family", "summary"), rows)
    failed = [p for p in registry.plugins() if not p.ok]
    if failed:
        click.echo(f"note: {len(failed)} plugin(s) did not load cleanly; run 'evalcore plugins'", err=True)


@main.command()
@click.argument("metric_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@_handle_errors
def describe(ctx: click.Context, metric_id: str, as_json: bool) -> None:
    """Show everything known about one metric."""
    info = _registry(ctx).describe(metric_id)
    data = info.to_dict()
    if as_json:
        _echo_json(data)
        return
    click.echo(f"{data['id']}  ({data['distribution']} {data['version']}, metric version "
               f"{data['metric_version']})")
    click.echo(f"  {data['summary']}")
    if data["description"]:
        click.echo("")
        for line in data["description"].splitlines():
            click.echo(f"  {line}")
    click.echo("")
    for key in ("family", "target", "tier", "direction", "range", "granularity", "deterministic",
                "cost_msats", "inputs", "requires", "env", "implementation"):
        click.echo(f"  {key + ':':<15}{data[key]}")
    if data["params"]:
        click.echo("  params:")
        for param in data["params"]:
            flags = " (identity)" if param["identity"] else ""
            choices = f" one of {param['choices']}" if param["choices"] else ""
            click.echo(f"    {param['name']}: {param['type']} = {param['default']!r}{choices}{flags}"
                       f"  {param['description']}".rstrip())


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@_handle_errors
def plugins(ctx: click.Context, as_json: bool) -> None:
    """List discovered plugins with their load status."""
    infos = _registry(ctx).plugins()
    if as_json:
        _echo_json([p.to_dict() for p in infos])
        return
    rows = [(p.name, p.distribution, p.version, p.status.value,
             p.error or f"{len(p.metrics)} metrics") for p in infos]
    _echo_rows(("plugin", "distribution", "version", "status", "metrics / error"), rows)


@main.command()
@click.argument("data", required=False, type=click.Path(dir_okay=False))
@click.option("-m", "--metric", "metric_ids", multiple=True, required=True, help="Metric id (repeatable).")
@click.option("--qrels", type=click.Path(dir_okay=False), help="TREC qrels file (qid 0 docno rel).")
@click.option("--run", "run_file", type=click.Path(dir_okay=False),
              help="TREC run file (qid Q0 docno rank score tag).")
@click.option("--program", help="module:callable producing a prediction from each example.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the JSON report here.")
@click.option("--samples", type=click.Path(dir_okay=False), help="Stream per-record rows (JSONL) here.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write per-record values (CSV).")
@click.option("--concurrency", default=8, show_default=True, type=click.IntRange(min=1))
@click.option("--failure-score", type=float, help="Count errors with this value in the aggregates.")
@click.option("--max-errors", type=float, help="Stop after this many errors (or this fraction if < 1).")
@click.option("--threshold", type=float, help="Run truth metrics only where the proxy score reaches this.")
@click.option("--rollouts", default=1, show_default=True, type=click.IntRange(min=1),
              help="Program runs per example (needs --program).")
@click.option("--aggregate", "aggregate_by", default="mean", show_default=True,
              type=click.Choice(["mean", "median", "min", "max", "trimmed_mean"]))
@click.option("--trim", default=0.1, show_default=True, type=float, help="Fraction cut per end (trimmed_mean).")
@click.option("--budget-msats", type=click.IntRange(min=0), help="Never spend more than this (millisatoshis).")
@click.option("--seed", default=0, show_default=True, type=int, help="Bootstrap seed.")
@click.option("--dry-run", is_flag=True, help="Print the calls and estimated tokens and cost; call nothing.")
@click.option("--cache-mode", type=click.Choice(["readwrite", "readonly", "refresh", "off"]),
              help="Model-call cache mode (sets EVALCORE_CACHE_MODE).")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Model-call cache folder (EVALCORE_CACHE_DIR).")
@click.option("--progress/--no-progress", default=None, help="Progress line (default: on a terminal).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of the table.")
@click.pass_context
@_handle_errors
def evaluate(ctx: click.Context, data: str | None, metric_ids: Sequence[str], qrels: str | None,
             run_file: str | None, program: str | None, output: str | None, samples: str | None,
             csv_path: str | None, dry_run: bool, as_json: bool, max_errors: float | None,
             cache_mode: str | None, cache_dir: str | None, **options: Any) -> None:
    """Evaluate metrics over JSONL records (or TREC qrels and run files)."""
    import attrs

    from ._evaluate import evaluate as run_evaluation
    from ._plan import format_plan, plan
    from ._records import read_records, records_from_data

    registry = _registry(ctx)
    if (qrels is None) != (run_file is None):
        raise EvalcoreError("--qrels and --run go together")
    if qrels is not None:
        if data is not None:
            raise EvalcoreError("give either a JSONL file or --qrels/--run, not both")
        from .trec import read_qrels, read_run, records_from_trec

        record_set = attrs.evolve(records_from_data(records_from_trec(read_qrels(qrels), read_run(run_file))),
                                  source=f"{qrels} + {run_file}")
    elif data is not None:
        record_set = read_records(data)
    else:
        raise EvalcoreError("nothing to evaluate: give a JSONL file, or --qrels and --run")
    for error in record_set.errors:
        click.echo(f"error: {error}", err=True)
    if not record_set.records:
        sys.exit(EXIT_INPUT)
    for variable, value in (("EVALCORE_CACHE_MODE", cache_mode), ("EVALCORE_CACHE_DIR", cache_dir)):
        if value is not None:
            os.environ[variable] = value
    metrics = [registry.create(m) for metric_id in metric_ids for m in registry.expand(metric_id)]
    if dry_run:
        estimate = plan(record_set.records, metrics)
        _echo_json(estimate) if as_json else click.echo(format_plan(estimate))
        return
    result = run_evaluation(
        record_set, metrics, program=_load_program(program) if program else None,
        output=output, samples=samples, csv=csv_path, registry=registry,
        max_errors=int(max_errors) if max_errors is not None and max_errors >= 1 else max_errors,
        **options,
    )
    if as_json:
        _echo_json(result.to_dict())
    else:
        click.echo(result.table())
        click.echo(f"\n{len(result.samples)} records from {record_set.source}"
                   + (f", {len(record_set.errors)} rejected" if record_set.errors else ""))
    if result.stopped:
        click.echo(f"warning: {result.stopped}; partial results kept", err=True)
    if record_set.errors or result.stopped:
        sys.exit(EXIT_INPUT)


@main.command()
@click.argument("labels", type=click.Path(dir_okay=False, exists=True))
@click.option("-m", "--metric", "metric_id", required=True, help="The metric (usually a judge) to calibrate.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@_handle_errors
def calibrate(ctx: click.Context, labels: str, metric_id: str, as_json: bool) -> None:
    """Compare a metric with human labels (JSONL records with a "label" field)."""
    from ._records import read_records
    from .judge import calibrate as run_calibration

    record_set = read_records(labels)
    for error in record_set.errors:
        click.echo(f"error: {error}", err=True)
    missing = [r.id for r in record_set.records if "label" not in r.raw]
    if missing:
        raise InputError(f"records without a 'label': {', '.join(missing[:5])}", source=labels, field="label")
    items = [(dict(r.example), dict(r.prediction), r.raw["label"]) for r in record_set.records]
    try:
        result = run_calibration(_registry(ctx).create(metric_id), items)
    except ValueError as exc:
        raise EvalcoreError(str(exc)) from None
    if as_json:
        _echo_json(result.to_dict())
        return
    click.echo(f"{metric_id}: n={result.n}  agreement={result.agreement:.4f}  kappa={result.kappa:.4f}"
               f"  skipped={result.skipped}  errors={result.errors}")
    _echo_rows(("human \\ metric", *map(str, result.labels)),
               [(str(label), *map(str, row)) for label, row in zip(result.labels, result.confusion)])


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


def _echo_rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        click.echo("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
