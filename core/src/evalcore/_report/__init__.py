"""The self-contained HTML report of a saved run (``evalcore report``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from evalcore._compare import compare, load_run, load_runs
from evalcore._lazy import publish


def write_report(
    result: Any, path: str | os.PathLike[str], *, compare_with: Sequence[Any] = (), **options: Any,
) -> str:
    """Write one HTML file about ``result`` (an EvaluationResult, report or journal path).

    With ``compare_with``, the page also compares those runs with ``result`` as the baseline
    (``options`` are :func:`evalcore.compare`'s). Style, script and plots are inline, so
    the page needs no network when it is viewed. Returns the path written.
    """
    from .page import render

    if compare_with:
        runs = load_runs([result, *compare_with])
        run, comparison = runs[0], compare(*runs, **options)
    else:
        run, comparison = load_run(result), None
    html = render(run, comparison)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(html)
    return os.fspath(path)


publish(globals())
