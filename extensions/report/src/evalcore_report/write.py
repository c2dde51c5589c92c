"""Writing the report of a saved run: :func:`evalcore.write_report`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import evalcore
from evalcore.plugin import InputError, check_output, load_runs, replacing

from .arena_section import arena_data
from .inputs import recorded_input
from .page import render


def write_report(
    result: Any, path: str | os.PathLike[str], *, compare_with: Sequence[Any] = (), records: int = 1000,
    inputs: Any = None, labels: Any = None, labels_metric: Sequence[str] | None = None, comparison: Any = None,
    arena: Any = None, **options: Any,
) -> str:
    """Write one HTML file about ``result`` (an EvaluationResult, report or journal path).

    The page shows each record's input, reference, prediction, documents and scores (judge
    rationale included), read back from the input the run names (or ``inputs``: a path or the
    records, where that file moved), for at most ``records`` records: all of them, or those with
    errors and skips and the worst of each metric. With ``compare_with``, the page also compares
    those runs with ``result`` as the baseline, record by record side by side (``options`` are
    :func:`evalcore.compare`'s; ``comparison``, the :class:`~evalcore.Comparison` of these runs
    already made, is shown instead of comparing them again). With ``labels`` (one labels file or
    mapping for every run, or a sequence of one per run), the page explains per metric what the labels corrected:
    the prediction-powered estimate of ``result``'s mean, or of each difference (:func:`evalcore.ppi`), for
    the metrics the labels name or ``labels_metric``.
    With ``arena`` (:func:`evalcore.arena`'s result, or the JSON file ``evalcore arena --json`` prints),
    the page shows each pair's win rate with its interval and the Bradley–Terry ratings.
    Style, script and plots are inline, so the page needs no network when it is viewed. The page
    never replaces a file it was made from (a report, the journal a report names) or a special
    file, and is written through a temporary file renamed into place. Returns the path written.
    """
    given = [run for run in (result, *compare_with) if isinstance(run, (str, os.PathLike))]
    probed: set[str] = set()
    named = [(run, f"an input of this report (the run {os.fspath(run)})") for run in given]
    if isinstance(inputs, (str, os.PathLike)):
        named.append((inputs, f"an input of this report (the records {os.fspath(inputs)})"))
    check_output(path, "-o", named, probed=probed)
    if compare_with:
        runs = load_runs([result, *compare_with])
        run, comparison = runs[0], comparison if comparison is not None else evalcore.compare(*runs, **options)
    else:
        if comparison is not None:
            raise InputError("a comparison is shown with the runs it compares: give them as compare_with",
                             field="comparison")
        runs = load_runs([result])
        run, comparison = runs[0], None
    read = [(file, f"the journal {os.fspath(other.files[0])} names" if k else f"the run {os.fspath(file)}")
            for other in runs for k, file in enumerate(other.files)]
    read += [(data, f"the records {other.name} scored") for other in runs
             if (data := recorded_input(other)[0]) is not None and os.path.exists(data)]
    check_output(path, "-o", [(file, f"an input of this report ({what})") for file, what in read], probed=probed)
    estimates = [] if labels is None else (
        evalcore.ppi_differences(run, runs[1:], labels, metrics=labels_metric, alpha=options.get("alpha", 0.05))
        if compare_with
        else [evalcore.ppi(run, labels if isinstance(labels, (str, os.PathLike, Mapping)) else _one(labels),
                  metrics=labels_metric, alpha=options.get("alpha", 0.05))])
    html = render(run, comparison, others=runs[1:], records=records, inputs=inputs, ppi=estimates,
                  arena=arena_data(arena))
    # a lone surrogate read from JSON ("\ud800") is written as its escape, which the page's script reads back
    with replacing(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(html)
    return os.fspath(path)


def _one(labels: Sequence[Any]) -> Any:
    if len(labels) != 1:
        raise InputError(f"one run: give its labels once, not {len(labels)} times", field="labels")
    return labels[0]

