"""The options of :func:`evalcore.compare` on the command line, for every command that compares runs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from evalcore._lazy import publish

TESTS = ("bootstrap", "randomization", "ttest", "wilcoxon", "fisher")
_NAMES = ("metrics", "tests", "n_resamples", "seed", "correction", "alpha", "intersect", "allow_version_mismatch")


def comparison_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options of :func:`evalcore.compare` (``-m``, ``--test``, ``--resamples``, ``--seed``,
    ``--correction``, ``--alpha``, ``--intersect``, ``--allow-version-mismatch``) to a click command,
    which receives them as one keyword argument ``comparison``: a dict of :func:`evalcore.compare`'s
    keyword arguments (``metrics`` and ``tests`` are ``None`` where not given)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {name: kwargs.pop(name) for name in _NAMES}
        given["metrics"], given["tests"] = list(given["metrics"]) or None, list(given["tests"]) or None
        return fn(*args, comparison=given, **kwargs)

    options = [
        click.option("-m", "--metric", "metrics", multiple=True,
                     help="Only this metric (repeatable; default: every metric the runs share)."),
        click.option("--test", "tests", multiple=True, type=click.Choice(TESTS),
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


publish(globals())
