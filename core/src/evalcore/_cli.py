"""The ``evalcore`` command line: list, describe, plugins, evaluate, compare, report."""

from __future__ import annotations

import functools
import json
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


def handle_errors(ctx: click.Context, work: Callable[[], Any]) -> Any:
    """Run ``work``, printing evalcore errors as one line (a traceback only with ``--debug``)."""
    try:
        return work()
    except (EvalcoreError, OSError) as exc:
        if ctx.find_root().obj.get("debug"):
            raise
        _fail(str(exc))


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


def _echo_rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *rows]:
        click.echo("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())


def _add_commands() -> None:
    from ._cli_compare import compare_command, report_command
    from ._cli_evaluate import evaluate_command

    main.add_command(evaluate_command)
    main.add_command(compare_command)
    main.add_command(report_command)


_add_commands()
