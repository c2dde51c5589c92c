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
    the page needs no network when it is viewed. The page never replaces a file it was made
    from (a report, the journal a report names) or a special file, and is written through a
    temporary file renamed into place. Returns the path written.
    """
    from evalcore._engine.files import check_output, replacing

    from .page import render

    given = [run for run in (result, *compare_with) if isinstance(run, (str, os.PathLike))]
    probed: set[str] = set()
    check_output(path, "-o", [(run, f"an input of this report (the run {os.fspath(run)})") for run in given],
                 probed=probed)
    if compare_with:
        runs = load_runs([result, *compare_with])
        run, comparison = runs[0], compare(*runs, **options)
    else:
        runs = [load_run(result)]
        run, comparison = runs[0], None
    read = [(file, f"the journal {os.fspath(other.files[0])} names" if k else f"the run {os.fspath(file)}")
            for other in runs for k, file in enumerate(other.files)]
    check_output(path, "-o", [(file, f"an input of this report ({what})") for file, what in read], probed=probed)
    html = render(run, comparison)
    with replacing(path, "w", encoding="utf-8") as handle:
        handle.write(html)
    return os.fspath(path)


publish(globals())
