"""``evalcore gate``: pass/fail rules over a saved run, for CI jobs (exit 0 all hold, 1 a rule fails)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import click
from evalcore.plugin import check_output, echo_json, load_run, replacing, reports_errors

from ..result import TEST_NAMES

EXIT_FAILED = 1


@click.command("gate")
@click.argument("result", type=click.Path(dir_okay=False, exists=True))
@click.option("--min", "minimums", multiple=True, metavar="METRIC=VALUE",
              help="The metric's value must be at least VALUE (repeatable).")
@click.option("--max", "maximums", multiple=True, metavar="METRIC=VALUE",
              help="The metric's value must be at most VALUE (repeatable).")
@click.option("--baseline", type=click.Path(dir_okay=False, exists=True),
              help="A saved run to compare with, for --no-worse.")
@click.option("--no-worse", "no_worse", multiple=True, metavar="METRIC",
              help="The metric must not be significantly worse than in --baseline (repeatable; paired tests "
                   "and correction as in 'evalcore compare').")
@click.option("--alpha", default=0.05, show_default=True, type=float,
              help="Significance level of the corrected p-values of --no-worse.")
@click.option("--test", "tests", multiple=True, type=click.Choice(tuple(TEST_NAMES)),
              help="Test to run for --no-worse (repeatable; the first that applies decides). Default: all.")
@click.option("--correction", default="holm", show_default=True, type=click.Choice(["holm", "bonferroni", "none"]),
              help="Multiple-comparison correction across the --no-worse metrics.")
@click.option("--resamples", "n_resamples", type=click.IntRange(min=1), help="Resamples / trials of every "
              "resampling test (default: 1000 bootstrap, 10000 randomization and Fisher).")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of every resampling test.")
@click.option("--intersect", is_flag=True, help="Compare on the records both runs hold.")
@click.option("--markdown", type=click.Path(dir_okay=False, allow_dash=True), metavar="FILE",
              help="Append a markdown summary (a table) to FILE, as GitHub Actions' $GITHUB_STEP_SUMMARY "
                   "expects; '-' prints it.")
@click.option("--junit", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write JUnit XML to FILE: one test case per rule.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of lines.")
@click.pass_context
@reports_errors
def gate_command(ctx: click.Context, result: str, minimums: Sequence[str], maximums: Sequence[str],
                 baseline: str | None, no_worse: Sequence[str], markdown: str | None, junit: str | None,
                 as_json: bool, **options: Any) -> None:
    """Check a saved run against rules; exit 0 when every rule holds, 1 when one fails, 2 on bad input.

    \b
    evalcore gate result.json --min overlap/token_f1=0.70 --max system/mean_latency=800
    evalcore gate result.json --baseline base.json --no-worse retrieval/ndcg@10
    """
    from ..gate import gate, parse_bound

    _check_outputs({"--markdown": markdown if markdown != "-" else None, "--junit": junit}, [result, baseline])
    outcome = gate(result, at_least=dict(parse_bound(t) for t in minimums),
                   at_most=dict(parse_bound(t) for t in maximums), baseline=baseline, no_worse=list(no_worse),
                   tests=list(options.pop("tests")) or None, **options)
    if as_json:
        echo_json(outcome.to_dict())
    else:  # with --markdown -, standard output is the markdown alone (for >> "$GITHUB_STEP_SUMMARY")
        click.echo(outcome.text(), err=markdown == "-")
    if markdown == "-":
        click.echo(outcome.markdown(), nl=False)
    elif markdown:
        with open(markdown, "a", encoding="utf-8") as handle:  # appended to, as a CI step summary is
            handle.write(outcome.markdown())
    if junit:
        with replacing(junit, "w", encoding="utf-8") as handle:
            handle.write(outcome.junit())
    if not outcome.passed:
        sys.exit(EXIT_FAILED)


def _check_outputs(outputs: dict[str, str | None], runs: Sequence[str | None]) -> None:
    """Refuse an output that is a run read here, the journal it names or the records it scored, a special
    file, or the other output."""
    read: list[tuple[str, str]] = []
    for given in runs:
        if given is not None:
            run = load_run(given)
            read += [(file, f"the run {given}" if k == 0 else f"the journal {given} names")
                     for k, file in enumerate(run.files or (given,))]
            data = run.provenance.get("input")
            if isinstance(data, str) and os.path.isfile(data):
                read.append((data, f"the records {given} scored"))
    named = [(path, option) for option, path in outputs.items() if path]
    probed: set[str] = set()
    for k, (path, option) in enumerate(named):
        others = [(other, f"the file of {what}") for other, what in named[:k]]
        check_output(path, option, [*read, *others], probed=probed)
