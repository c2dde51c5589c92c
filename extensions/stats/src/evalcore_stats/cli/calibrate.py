"""``evalcore calibrate``: a metric (usually a judge) against human labels."""

from __future__ import annotations

from typing import Any

import click
from evalcore.plugin import (
    CACHE_MODES,
    InputError,
    SettingsCommand,
    echo_json,
    echo_rows,
    open_metric,
    read_records,
    reports_errors,
)


@click.command("calibrate", cls=SettingsCommand)
@click.argument("labels", type=click.Path(dir_okay=False, exists=True))
@click.option("-m", "--metric", "metric_id", required=True, help="The metric (usually a judge) to calibrate.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--cache-mode", type=click.Choice(CACHE_MODES), help="Model-call cache mode of model-backed metrics.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Model-call cache folder.")
@click.option("--allow-code", is_flag=True, default=False,
              help="Let the metric's parameters or the judge settings name Python code as module:attr "
                   "(judge='module:attr') to import and run; without it such a judge is refused, as evaluate "
                   "refuses it.")
@click.pass_context
@reports_errors
def calibrate_command(ctx: click.Context, labels: str, metric_id: str, as_json: bool, cache_mode: str | None,
                      cache_dir: str | None, allow_code: bool, settings: dict[str, dict[str, Any]]) -> None:
    """Compare a metric with human labels (JSONL records with a "label" field). The metric's judge or
    embedding model is chosen as evaluate chooses it: --judge-* / --embedding-* over their environment
    variables."""
    from ..calibrate import calibrate

    record_set = read_records(labels)
    for error in record_set.errors:
        click.echo(f"error: {error}", err=True)
    missing = [r.id for r in record_set.records if "label" not in r.raw]
    if missing:
        raise InputError(f"records without a 'label': {', '.join(missing[:5])}", source=labels, field="label")
    metric = open_metric(metric_id, settings=settings, cache_mode=cache_mode, cache_dir=cache_dir,
                         allow_code=allow_code)
    result = calibrate(metric, record_set.records)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{metric_id}: n={result.n}  agreement={result.agreement:.4f}  kappa={result.kappa:.4f}"
               f"  skipped={result.skipped}  errors={result.errors}")
    echo_rows(("human \\ metric", *map(str, result.labels)),
              [(str(label), *map(str, row)) for label, row in zip(result.labels, result.confusion)])
