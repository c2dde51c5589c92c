"""The report's prediction-powered section: per metric, what the labels corrected and by how much."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any


def ppi_section(estimates: Sequence[Any]) -> str:
    """One line per metric (and per difference of two runs) of :func:`evalcore.ppi`'s results,
    as each entry words it."""
    if not estimates:
        return ""
    parts = []
    for estimate in estimates:
        level = f"{100 * (1 - estimate.options['alpha']):g} %"
        what = (f"the difference {estimate.runs[1]} − {estimate.runs[0]}" if len(estimate.runs) == 2
                else estimate.runs[0])
        items = [f"<li class=\"ppi\">{escape(entry.line())}</li>" for entry in estimate.entries]
        items += [f"<li class=\"muted\">{escape(note)}</li>" for note in estimate.notes]
        parts.append(f"<h3>{escape(what)} ({level} intervals)</h3><ul>{''.join(items)}</ul>")
    return ("<section id=\"ppi\"><h2>Prediction-powered estimates</h2><p class=\"muted\">"
            f"{escape(estimates[0].explanation)} (Angelopoulos et al., \"Prediction-powered inference\", 2023; "
            "PPI++ weight.)</p>" + "".join(parts) + "</section>")
