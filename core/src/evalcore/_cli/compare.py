"""``evalcore compare`` and ``evalcore report``: commands over saved runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from .common import echo_json, reports_errors

_TESTS = ("bootstrap", "randomization", "ttest", "wilcoxon", "fisher")


def _comparison_options(fn: Any) -> Any:
    """Options shared by ``compare`` and ``report --compare``."""
    options = [
        click.option("-m", "--metric", "metrics", multiple=True,
                     help="Only this metric (repeatable; default: every metric the runs share)."),
        click.option("--test", "tests", multiple=True, type=click.Choice(_TESTS),
                     help="Test to run (repeatable; the first that applies decides the markers). "
                          "Default: all, bootstrap first."),
        click.option("--resamples", "n_resamples", type=click.IntRange(min=1),
                     help="Resamples / trials for every resampling test (default: 1000 bootstrap, "
                          "10000 randomization and Fisher)."),
        click.option("--seed", default=0, show_default=True, type=int, help="Seed of every resampling test."),
        click.option("--correction", default="holm", show_default=True,
                     type=click.Choice(["holm", "bonferroni", "none"]),
                     help="Multiple-comparison correction across metrics and systems."),
        click.option("--alpha", default=0.05, show_default=True, type=float,
                     help="Significance level of the corrected p-values."),
        click.option("--intersect", is_flag=True,
                     help="Compare on the records the runs share (default: different records are an error)."),
        click.option("--allow-version-mismatch", is_flag=True,
                     help="Compare a metric the runs computed by different metric versions or non-identity "
                          "parameters (default: an error naming them)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _compare_kwargs(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "metrics": list(options["metrics"]) or None, "tests": list(options["tests"]) or None,
        "n_resamples": options["n_resamples"], "seed": options["seed"], "correction": options["correction"],
        "alpha": options["alpha"], "intersect": options["intersect"],
        "allow_version_mismatch": options["allow_version_mismatch"],
    }


@click.command("compare")
@click.argument("baseline", type=click.Path(dir_okay=False, exists=True))
@click.argument("systems", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@_comparison_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--sequential", is_flag=True,
              help="Also give each difference's anytime-valid confidence sequence (valid however often the runs "
                   "were looked at while records were added).")
@click.option("--labels", "labels", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help='JSONL of {"id": ..., "label": number} on some records: adds the prediction-powered estimate of '
                   "each difference (once for every run, or once per run: BASELINE's, then each system's).")
@click.option("--log-to", metavar="TRACKER",
              help="Also log the comparison to a tracker a plugin provides, e.g. mlflow (evalcore-mlflow): a run "
                   "with the report, and a nested run per system with the differences and p-values.")
@click.pass_context
@reports_errors
def compare_command(ctx: click.Context, baseline: str, systems: Sequence[str], as_json: bool, log_to: str | None,
                    sequential: bool, labels: Sequence[str], **options: Any) -> None:
    """Compare saved runs (JSON reports or samples journals) with a baseline, record by record."""
    from evalcore._compare import compare
    from evalcore._compare.ppi import ppi_differences
    from evalcore._track.comparing import comparison_tracker, log_comparison

    estimates = ppi_differences(baseline, systems, labels, metrics=list(options["metrics"]) or None,
                                alpha=options["alpha"]) if labels else None
    tracker = comparison_tracker(log_to, None)
    if tracker is None:
        result = compare(baseline, *systems, **_compare_kwargs(options))
    else:
        result, where = log_comparison(tracker, baseline, systems, _compare_kwargs(options))
        click.echo(f"logged to {where}", err=True)
    found = None
    if sequential:
        from evalcore._compare.sequential import sequence_differences, sequence_lines

        found = sequence_differences(baseline, *systems, metrics=list(options["metrics"]) or None,
                                     seed=options["seed"])
    if as_json:
        echo_json({**result.to_dict(), **({"sequential": found} if found is not None else {}),
                   **({"ppi": [e.to_dict() for e in estimates]} if estimates is not None else {})})
    else:
        click.echo(result.table())
        if found is not None:
            click.echo("\n" + "\n".join(sequence_lines(found, 0.95)))
        for estimate in estimates or ():
            click.echo("\n" + estimate.table())


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
@_comparison_options
@click.pass_context
@reports_errors
def report_command(ctx: click.Context, result: str, others: Sequence[str], history: str | None, output: str,
                   records: int, inputs: str | None, labels: Sequence[str], **options: Any) -> None:
    """Write one self-contained HTML page about a saved run (and its comparison with others)."""
    from evalcore._compare.history import locate
    from evalcore._report import write_report

    first, *rest = locate([result, *others], history)
    write_report(first, output, compare_with=rest, records=records, inputs=inputs, labels=list(labels) or None,
                 **_compare_kwargs(options))
    click.echo(f"wrote {output}")
