"""The options of a paired comparison of saved runs, for the commands that compare them
(``evalcore compare``; ``evalcore report --compare`` through :func:`evalcore.plugin.comparison_options`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

COMPARISON_TESTS = ("bootstrap", "randomization", "ttest", "wilcoxon", "fisher")


def comparison_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options of a paired comparison of saved runs to a click command (``-m``, ``--test``,
    ``--resamples``, ``--seed``, ``--correction``, ``--alpha``, ``--intersect``,
    ``--allow-version-mismatch``); the command receives them as one keyword argument, ``comparison``:
    the keyword arguments of :func:`evalcore.compare`."""

    @functools.wraps(fn)
    def wrapper(*args: Any, metrics: Sequence[str], tests: Sequence[str], n_resamples: int | None, seed: int,
                correction: str, alpha: float, intersect: bool, allow_version_mismatch: bool, **kwargs: Any) -> Any:
        comparison = {"metrics": list(metrics) or None, "tests": list(tests) or None, "n_resamples": n_resamples,
                      "seed": seed, "correction": correction, "alpha": alpha, "intersect": intersect,
                      "allow_version_mismatch": allow_version_mismatch}
        return fn(*args, comparison=comparison, **kwargs)

    options = [
        click.option("-m", "--metric", "metrics", multiple=True,
                     help="Only this metric (repeatable; default: every metric the runs share)."),
        click.option("--test", "tests", multiple=True, type=click.Choice(COMPARISON_TESTS),
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
        wrapper = option(wrapper)
    return wrapper
