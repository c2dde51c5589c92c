"""The report's arena section: each pair's win rate with its interval and the Bradley–Terry ratings."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from html import escape
from typing import Any

from evalcore.plugin import InputError


def arena_data(arena: Any) -> dict[str, Any] | None:
    """An arena as plain data: :func:`evalcore.arena`'s result, its ``to_dict()``, or the JSON file of it
    (``evalcore arena --json``)."""
    if arena is None:
        return None
    if isinstance(arena, (str, os.PathLike)):
        try:
            with open(arena, encoding="utf-8") as handle:
                arena = json.load(handle)
        except (OSError, ValueError) as exc:
            raise InputError(f"not an arena's JSON: {exc}", source=os.fspath(arena)) from None
    data = arena.to_dict() if hasattr(arena, "to_dict") else arena
    if not isinstance(data, Mapping) or not {"pairs", "ratings", "options"} <= set(data):
        raise InputError("an arena has pairs, ratings and options (evalcore arena --json)", field="arena")
    return dict(data)


def _cell(value: Any, spec: str) -> str:
    return "-" if not isinstance(value, (int, float)) else format(value, spec)


def _interval(ci: Any, spec: str) -> str:
    return "-" if not ci else f"[{_cell(ci[0], spec)}, {_cell(ci[1], spec)}]"


def arena_section(data: Mapping[str, Any] | None) -> str:
    """The win rates (ties as half) and, over three or more systems, the arena table of ratings."""
    if data is None:
        return ""
    level = f"{100 * float(data['options']['confidence']):g} %"
    pairs = "".join(
        f"<tr><td>{escape(str(p['system']))}</td><td>{escape(str(p['against']))}</td>"
        f"<td class=\"num\">{_cell(p['n'], 'd')}</td>"
        f"<td class=\"num\">{_cell(p['wins'], 'd')}/{_cell(p['ties'], 'd')}/{_cell(p['losses'], 'd')}</td>"
        f"<td class=\"num\">{_cell(p['win_rate'], '.3f')}</td><td class=\"num\">{_interval(p['ci'], '.3f')}</td></tr>"
        for p in data["pairs"])
    ratings = "".join(
        f"<tr><td class=\"num\">{rank}</td><td>{escape(str(r['system']))}</td>"
        f"<td class=\"num\">{_cell(r['rating'], '.0f')}</td><td class=\"num\">{_interval(r['ci'], '.0f')}</td></tr>"
        for rank, r in enumerate(data["ratings"], 1))
    notes = "".join(f"<li class=\"muted\">{escape(str(n))}</li>" for n in data.get("notes") or ())
    return (f"<section id=\"arena\"><h2>Arena: {escape(str(data.get('metric', '')))}</h2>"
            f"<p class=\"muted\">Win rate of each system against another, ties as half, with {level} percentile "
            "bootstrap intervals over the records.</p><table><thead><tr><th>system</th><th>against</th>"
            "<th class=\"num\">n</th><th class=\"num\">W/T/L</th><th class=\"num\">win rate</th>"
            f"<th class=\"num\">{level} interval</th></tr></thead><tbody>{pairs}</tbody></table>"
            + (f"<h3>Bradley–Terry ratings</h3><p class=\"muted\">Elo scale: 1000 at the geometric mean strength, "
               f"400 points per factor 10; {level} intervals from refitting on bootstrap resamples.</p>"
               "<table><thead><tr><th class=\"num\">rank</th><th>system</th><th class=\"num\">rating</th>"
               f"<th class=\"num\">{level} interval</th></tr></thead><tbody>{ratings}</tbody></table>"
               if ratings else "")
            + (f"<ul>{notes}</ul>" if notes else "") + "</section>")
