"""``evalcore compare``: saved runs against a baseline, record by record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
from evalcore.plugin import echo_json, reports_errors

from .options import comparison_options


@click.command("compare")
@click.argument("baseline", type=click.Path(dir_okay=False, exists=True))
@click.argument("systems", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@comparison_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--sequential", is_flag=True,
              help="Also give each difference's anytime-valid confidence sequence (valid however often the runs "
                   "were looked at while records were added).")
@click.option("--labels", "labels", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help='JSONL of {"id": ..., "label": number} on some records: adds the prediction-powered estimate of '
                   "each difference (once for every run, or once per run: BASELINE's, then each system's).")
@click.option("--labels-metric", "labels_metric", multiple=True, metavar="METRIC",
              help='The metric --labels are for (repeatable; default: the labels\' "metric" field, or the runs\' '
                   "only per-record metric).")
@click.option("--log-to", metavar="TRACKER",
              help="Also log the comparison to a tracker a plugin provides, e.g. mlflow (evalcore-mlflow): a run "
                   "with the report, and a nested run per system with the differences and p-values.")
@click.pass_context
@reports_errors
def compare_command(ctx: click.Context, baseline: str, systems: Sequence[str], as_json: bool, log_to: str | None,
                    sequential: bool, labels: Sequence[str], labels_metric: Sequence[str],
                    comparison: dict[str, Any]) -> None:
    """Compare saved runs (JSON reports or samples journals) with a baseline, record by record."""
    from ..compare import compare
    from ..comparing import comparison_tracker, log_comparison
    from ..ppi import ppi_differences

    metrics = comparison["metrics"]
    estimates = ppi_differences(baseline, systems, labels, metrics=list(labels_metric) or None,
                                alpha=comparison["alpha"]) if labels else None
    tracker = comparison_tracker(log_to, None)
    if tracker is None:
        result = compare(baseline, *systems, **comparison)
    else:
        result, where = log_comparison(tracker, baseline, systems, comparison)
        click.echo(f"logged to {where}", err=True)
    found = None
    if sequential:
        from ..sequential import sequence_differences, sequence_lines

        found = sequence_differences(baseline, *systems, metrics=metrics, seed=comparison["seed"])
    if as_json:
        echo_json({**result.to_dict(), **({"sequential": found} if found is not None else {}),
                   **({"ppi": [e.to_dict() for e in estimates]} if estimates is not None else {})})
    else:
        click.echo(result.table())
        if found is not None:
            click.echo("\n" + "\n".join(sequence_lines(found, 0.95)))
        for estimate in estimates or ():
            click.echo("\n" + estimate.table())
