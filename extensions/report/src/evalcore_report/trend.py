"""The HTML page of a metric over time (``evalcore runs --trend METRIC --html FILE``).

One self-contained document: the report's style inline, an inline SVG plot of the value and its
95 % interval per run (runs evenly spaced, oldest left), and the table of the points. No script
runs: the Content-Security-Policy is the report's, with the hash of an empty script. Every value
from the data reaches the page through :func:`html.escape` or as a number formatted here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from evalcore.plugin import check_output, replacing

from .page import _inline, _interval, _num, content_security_policy

if TYPE_CHECKING:
    from evalcore import TrendPoint  # evalcore-stats': a run alone is shown without it

WIDTH, HEIGHT, PAD = 760, 260, 44


def write_trend(points: Sequence[TrendPoint], metric_id: str, path: str | os.PathLike[str]) -> str:
    """Write the trend page of ``metric_id`` through a temporary file renamed into place; a path of
    one of the runs it shows is refused. Returns the path written."""
    check_output(path, "--html", [(p.path, f"a run of this page ({p.run})") for p in points])
    with replacing(path, "w", encoding="utf-8") as handle:
        handle.write(render_trend(points, metric_id))
    return os.fspath(path)


def render_trend(points: Sequence[TrendPoint], metric_id: str) -> str:
    """The whole page."""
    style = _inline("report.css", "style")
    title = f"evalcore trend: {metric_id}"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head>"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{content_security_policy(style, '')}\">"
        "<meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{style}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class=\"muted\">{len(points)} runs, oldest first; bars are 95% intervals"
        "; a dashed line marks a change of metric version, across which values may not be comparable.</p>"
        f"<section id=\"trend\"><figure class=\"plot\">{trend_svg(points, metric_id)}</figure></section>"
        f"{_table(points)}</body></html>\n"
    )


def trend_svg(points: Sequence[TrendPoint], metric_id: str) -> str:
    """An SVG line of the values with interval bars; a short note when no run has a value."""
    values = [v for p in points for v in (p.value, *(p.ci or ())) if v is not None and math.isfinite(v)]
    if not values:
        return '<p class="muted">no values to plot</p>'
    low, high = min(values), max(values)
    margin = (high - low) * 0.05 or 0.5
    low, high = low - margin, high + margin
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def x(i: int) -> float:
        return PAD + (plot_w * i / (len(points) - 1) if len(points) > 1 else plot_w / 2)

    def y(v: float) -> float:
        return PAD + plot_h * (high - v) / (high - low)

    parts = [f'<svg class="trend" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
             f'xmlns="http://www.w3.org/2000/svg" font-size="11"><title>{escape(metric_id)} over time</title>',
             f'<line x1="{PAD}" y1="{PAD + plot_h}" x2="{PAD + plot_w}" y2="{PAD + plot_h}" stroke="#6b7585"/>',
             f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{PAD + plot_h}" stroke="#6b7585"/>',
             f'<text x="{PAD - 4}" y="{PAD + 4}" text-anchor="end" fill="#6b7585">{high:.4g}</text>',
             f'<text x="{PAD - 4}" y="{PAD + plot_h}" text-anchor="end" fill="#6b7585">{low:.4g}</text>']
    for i in range(1, len(points)):
        if points[i].metric_version != points[i - 1].metric_version:
            middle = (x(i - 1) + x(i)) / 2
            parts.append(f'<line x1="{middle:.1f}" y1="{PAD}" x2="{middle:.1f}" y2="{PAD + plot_h}" stroke="#c0392b" '
                         f'stroke-dasharray="4 3"><title>metric version {escape(str(points[i - 1].metric_version))}'
                         f' → {escape(str(points[i].metric_version))}</title></line>')
    line = " ".join(f"{x(i):.1f},{y(p.value):.1f}" for i, p in enumerate(points) if p.value is not None)
    parts.append(f'<polyline points="{line}" fill="none" stroke="#2f6fdd" stroke-width="1.5"/>')
    for i, p in enumerate(points):
        if p.ci is not None:
            parts.append(f'<line x1="{x(i):.1f}" y1="{y(p.ci[0]):.1f}" x2="{x(i):.1f}" y2="{y(p.ci[1]):.1f}" '
                         'stroke="#2f6fdd" stroke-opacity="0.5" stroke-width="3"/>')
        if p.value is not None:
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="3.5" fill="#2f6fdd"><title>'
                         f'{escape(p.run)} ({escape(_when(p))}): {p.value:.4f} {_interval(p.ci)}'
                         '</title></circle>')
    first, last = points[0].when.date().isoformat(), points[-1].when.date().isoformat()
    parts += [f'<text x="{x(0):.1f}" y="{HEIGHT - 14}" fill="#6b7585">{first}</text>',
              f'<text x="{x(len(points) - 1):.1f}" y="{HEIGHT - 14}" text-anchor="end" fill="#6b7585">{last}</text>',
              "</svg>"]
    return "".join(parts)


def _when(point: TrendPoint) -> str:
    """When the run started, in ISO 8601 (as ``evalcore runs --json`` writes it)."""
    return str(point.to_dict()["when"])


def _table(points: Sequence[TrendPoint]) -> str:
    rows = "".join(
        f"<tr><td>{escape(p.run)}</td><td>{escape(_when(p))}</td><td class=\"num\">{_num(p.value)}</td>"
        f"<td class=\"num\">{_interval(p.ci)}</td><td class=\"num\">{_num(p.n, 'd')}</td>"
        f"<td>{escape(str(p.metric_version or '–'))}</td><td>{escape(p.input or '–')}</td></tr>"
        for p in points)
    return ("<section id=\"runs\"><h2>Runs</h2><table><thead><tr><th>run</th><th>when (UTC)</th>"
            "<th class=\"num\">value</th><th class=\"num\">95% interval</th><th class=\"num\">n</th>"
            "<th>metric version</th><th>input</th></tr></thead><tbody>" + rows + "</tbody></table></section>")


def _when(point: TrendPoint) -> str:
    """The run's time as the point's JSON gives it (ISO 8601, ``Z`` for UTC)."""
    return str(point.to_dict()["when"])
