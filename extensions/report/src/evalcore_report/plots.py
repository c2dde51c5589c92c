"""Inline SVG plots: a histogram of per-record values (no script, no library, no network)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

WIDTH, HEIGHT, PAD = 360, 140, 24


def histogram(values: Sequence[float], *, title: str, bins: int = 20) -> str:
    """An SVG histogram of ``values`` with the mean marked; a short note when there are none."""
    array = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if array.size == 0:
        return '<p class="muted">no per-record values to plot</p>'
    low, high = float(array.min()), float(array.max())
    if low == high:
        low, high = low - 0.5, high + 0.5
    counts, edges = np.histogram(array, bins=min(bins, max(1, np.unique(array).size)), range=(low, high))
    plot_w, plot_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    top = max(int(counts.max()), 1)
    bar_w = plot_w / len(counts)
    parts = [f'<svg class="hist" role="img" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>']
    for i, count in enumerate(counts):
        height = plot_h * count / top
        x, y = PAD + i * bar_w, PAD + plot_h - height
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(bar_w - 1, 1):.1f}" height="{height:.1f}">'
                     f'<title>[{edges[i]:.4g}, {edges[i + 1]:.4g}]: {count}</title></rect>')
    mean_x = PAD + plot_w * (float(array.mean()) - low) / (high - low)
    base_y = PAD + plot_h
    parts += [
        f'<line class="axis" x1="{PAD}" y1="{base_y}" x2="{PAD + plot_w}" y2="{base_y}"/>',
        f'<line class="mean" x1="{mean_x:.1f}" y1="{PAD - 4}" x2="{mean_x:.1f}" y2="{base_y}">'
        f'<title>mean {array.mean():.4g}</title></line>',
        f'<text x="{PAD}" y="{HEIGHT - 6}">{low:.4g}</text>',
        f'<text x="{PAD + plot_w}" y="{HEIGHT - 6}" text-anchor="end">{high:.4g}</text>',
        f'<text x="{PAD}" y="{PAD - 8}">n={array.size}, max bin {top}</text>',
        "</svg>",
    ]
    return "".join(parts)
