"""``evalcore calibrate``: a metric (usually a judge) against human labels."""

from __future__ import annotations

import click
import evalcore
from evalcore.plugin import InputError, echo_json, echo_rows, read_records, reports_errors


@click.command("calibrate")
@click.argument("labels", type=click.Path(dir_okay=False, exists=True))
@click.option("-m", "--metric", "metric_id", required=True, help="The metric (usually a judge) to calibrate.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def calibrate_command(ctx: click.Context, labels: str, metric_id: str, as_json: bool) -> None:
    """Compare a metric with human labels (JSONL records with a "label" field)."""
    from ..calibrate import calibrate

    record_set = read_records(labels)
    for error in record_set.errors:
        click.echo(f"error: {error}", err=True)
    missing = [r.id for r in record_set.records if "label" not in r.raw]
    if missing:
        raise InputError(f"records without a 'label': {', '.join(missing[:5])}", source=labels, field="label")
    result = calibrate(evalcore.get_metric(metric_id), record_set.records)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"{metric_id}: n={result.n}  agreement={result.agreement:.4f}  kappa={result.kappa:.4f}"
               f"  skipped={result.skipped}  errors={result.errors}")
    echo_rows(("human \\ metric", *map(str, result.labels)),
              [(str(label), *map(str, row)) for label, row in zip(result.labels, result.confusion)])
