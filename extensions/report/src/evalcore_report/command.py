"""``evalcore report``: the page of a saved run, on the command line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
import evalcore
from evalcore.plugin import comparison_options


@click.command("report")
@click.argument("result", type=click.Path(dir_okay=False))
@click.option("--compare", "others", multiple=True, type=click.Path(dir_okay=False),
              help="Another run to compare with RESULT (repeatable).")
@click.option("--history", type=click.Path(exists=True), metavar="FOLDER|STORE",
              help="Where RESULT and --compare may name runs instead of files: a folder of runs or a "
                   "'runs --store' file (a name, or the start of only one, as 'evalcore runs' lists them).")
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@click.option("--records", "records", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Records the page holds at most for reading one by one: all, or those with errors and skips "
                   "and the worst of each metric.")
@click.option("--input", "inputs", type=click.Path(dir_okay=False, exists=True),
              help="The records RESULT scored (JSONL), where the input it names has moved or changed.")
@click.option("--labels", "labels", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help='JSONL of {"id": ..., "label": number} on some records: the page says per metric what the labels '
                   "correct (once for every run, or once per run: RESULT's, then each --compare's).")
@click.option("--labels-metric", "labels_metric", multiple=True, metavar="METRIC",
              help='The metric --labels are for (repeatable; default: the labels\' "metric" field, or the run\'s '
                   "only per-record metric).")
@click.option("--arena", type=click.Path(dir_okay=False, exists=True),
              help="An arena's JSON (evalcore arena --json): the page shows each pair's win rate with its interval "
                   "and the Bradley-Terry ratings.")
@comparison_options
def report_command(result: str, others: Sequence[str], history: str | None, output: str, records: int,
                   inputs: str | None, labels: Sequence[str], labels_metric: Sequence[str], arena: str | None,
                   comparison: dict[str, Any]) -> None:
    """Write one self-contained HTML page about a saved run (and its comparison with others)."""
    from .write import write_report

    first, *rest = evalcore.locate_runs([result, *others], history)
    write_report(first, output, compare_with=rest, records=records, inputs=inputs, labels=list(labels) or None,
                 labels_metric=list(labels_metric) or None, arena=arena, **comparison)
    click.echo(f"wrote {output}")
