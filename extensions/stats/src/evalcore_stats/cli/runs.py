"""``evalcore runs``: the history of saved runs in a folder (or a store), and one metric over time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from evalcore.plugin import EvalcoreError, check_output, echo_json, echo_rows, reports_errors

if TYPE_CHECKING:
    from datetime import datetime

    from ..history import RunRecord, TrendPoint


@click.command("runs")
@click.argument("folder", required=False, type=click.Path(file_okay=False, exists=True))
@click.option("--store", type=click.Path(dir_okay=False), metavar="FILE",
              help="A SQLite index of runs: the runs found in FOLDER are added (once each), then every run it "
                   "holds is shown; without FOLDER nothing is searched.")
@click.option("--trend", "metric", metavar="METRIC", help="Show this metric over time, one row per run that has it.")
@click.option("--html", type=click.Path(dir_okay=False), metavar="FILE",
              help="With --trend: write a self-contained HTML page with the plot (needs evalcore-report).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def runs_command(ctx: click.Context, folder: str | None, store: str | None, metric: str | None, html: str | None,
                 as_json: bool) -> None:
    """List the runs (JSON reports of 'evalcore evaluate -o', found recursively) in FOLDER (default: the
    current folder, unless --store is given), oldest first: when, input, metrics and values."""
    from ..history import runs, trend

    if html and not metric:
        raise click.UsageError("--html needs --trend METRIC")
    if folder is None and store is None:
        folder = "."
    if html and store:  # the page's runs are checked where it is written; the store is read here
        check_output(html, "--html", [(store, "the run store")])
    if metric is None:
        records = runs(folder, store=store)
        if as_json:
            echo_json([r.to_dict() for r in records])
        else:
            _print_runs(records)
        return
    points = trend(folder, metric, store=store)
    if html:
        import evalcore

        try:
            evalcore.write_trend(points, points[0].metric, html)
        except ModuleNotFoundError as exc:  # evalcore-report is not installed
            raise EvalcoreError(str(exc)) from None
        click.echo(f"wrote {html}", err=as_json)
    if as_json:
        echo_json([p.to_dict() for p in points])
    else:
        _print_trend(points)


def _print_runs(records: Sequence[RunRecord]) -> None:
    if not records:
        click.echo("no runs found")
        return
    rows = []
    for record in records:
        first = [record.name, _when(record.when, record.time_source), record.input or "-",
                 "-" if record.n_records is None else str(record.n_records)]
        for k, (metric_id, m) in enumerate(record.metrics.items()):
            rows.append([*(first if k == 0 else [""] * len(first)), metric_id, _value(m.value), _ci(m.ci)])
        if not record.metrics:
            rows.append([*first, "-", "-", "-"])
    echo_rows(["run", "when (UTC)", "input", "records", "metric", "value", "95% CI"], rows)


def _print_trend(points: Sequence[TrendPoint]) -> None:
    rows = [[p.run, _when(p.when), _value(p.value), _ci(p.ci), str(p.n), p.metric_version or "-"] for p in points]
    echo_rows(["run", "when (UTC)", "value", "95% CI", "n", "version"], rows)


def _when(when: datetime, source: str = "started") -> str:
    text = f"{when:%Y-%m-%d %H:%M:%S}"
    return text if source == "started" else f"{text} (file time)"


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _ci(ci: tuple[float, float] | None) -> str:
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "-"
