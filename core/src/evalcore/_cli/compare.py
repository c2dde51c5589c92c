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
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _compare_kwargs(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "metrics": list(options["metrics"]) or None, "tests": list(options["tests"]) or None,
        "n_resamples": options["n_resamples"], "seed": options["seed"], "correction": options["correction"],
        "alpha": options["alpha"], "intersect": options["intersect"],
    }


@click.command("compare")
@click.argument("baseline", type=click.Path(dir_okay=False, exists=True))
@click.argument("systems", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@_comparison_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def compare_command(ctx: click.Context, baseline: str, systems: Sequence[str], as_json: bool,
                    **options: Any) -> None:
    """Compare saved runs (JSON reports or samples journals) with a baseline, record by record."""
    from evalcore._compare import compare

    result = compare(baseline, *systems, **_compare_kwargs(options))
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(result.table())


@click.command("report")
@click.argument("result", type=click.Path(dir_okay=False, exists=True))
@click.option("--compare", "others", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Another run to compare with RESULT (repeatable).")
@click.option("-o", "--output", default="report.html", show_default=True, type=click.Path(dir_okay=False),
              help="The HTML file to write.")
@_comparison_options
@click.pass_context
@reports_errors
def report_command(ctx: click.Context, result: str, others: Sequence[str], output: str, **options: Any) -> None:
    """Write one self-contained HTML page about a saved run (and its comparison with others)."""
    from evalcore._report import write_report

    write_report(result, output, compare_with=others, **_compare_kwargs(options))
    click.echo(f"wrote {output}")
