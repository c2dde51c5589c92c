"""How the command line shows metrics: listing ids, value scales, costs in dollars, tables that fit."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from evalcore._lazy import publish

from .env import terminal_columns

USD_PER_MSAT = 1e-6  # one millisatoshi at 100 000 US dollars per bitcoin, the rate prices are written at


def listing_id(spec: Any) -> str:
    """The id to show in a listing: defaults left out, a required parameter filled with its first choice.

    A required parameter without choices is shown as ``name=<type>`` so the id says what to write.
    """
    from .identity import canonical_id

    filled: dict[str, Any] = {}
    placeholders: list[str] = []
    for param in spec.params:
        if not param.required:
            continue
        if param.choices:
            filled[param.name] = param.choices[0]
        else:
            placeholders.append(f"{param.name}=<{param.type}>")
    text = canonical_id(spec, spec.bind_params(filled)) if not placeholders else spec.key
    if placeholders:
        text += "(" + ", ".join(placeholders) + ")"
    return text


def required_choices(spec: Any) -> str:
    """``name: a|b|c`` for every required parameter that has choices."""
    return "; ".join(f"{p.name}: {'|'.join(map(str, p.choices))}" for p in spec.params if p.required and p.choices)


def scale(spec: Any) -> str:
    """The value range with its unit, e.g. ``0–100`` or ``≥0 ms``."""
    low, high = spec.value_range
    if low is not None and high is not None:
        text = f"{_number(low)}–{_number(high)}"
    elif low is not None:
        text = f"≥{_number(low)}"
    elif high is not None:
        text = f"≤{_number(high)}"
    else:
        text = "any"
    return f"{text} {spec.unit}".strip()


def dollars(msats: float) -> str:
    """A cost in millisatoshis written in US dollars, e.g. ``$0.00015``."""
    if not msats:
        return "$0"
    return f"${msats * USD_PER_MSAT:.6f}".rstrip("0").rstrip(".")


def table_lines(header: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = (),
                width: int | None = None) -> list[str]:
    """``header``, a rule and ``rows`` as columns two spaces apart, the columns numbered in ``right``
    aligned right; lines wider than ``width`` are cut (the last column first) with …. Every table
    evalcore prints (metrics, listings, comparisons, dry runs) is made here."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, ["-" * w for w in widths], *rows]:
        line = "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        if width and len(line) > width:
            line = line[: max(width - 1, 0)] + "…"
        lines.append(line)
    return lines


def fit_rows(header: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None) -> list[str]:
    """:func:`table_lines` left-aligned and cut to ``width`` (default: the terminal's, when output is one)."""
    return table_lines(header, rows, width=terminal_width() if width is None else width)


def terminal_width() -> int | None:
    """The width of the terminal standard output writes to (``$COLUMNS`` first); ``None`` when not one."""
    if not sys.stdout.isatty():
        return None
    try:
        return int(terminal_columns() or "")
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except OSError:
        return None


def _number(value: float) -> str:
    return f"{value:g}"


publish(globals())
