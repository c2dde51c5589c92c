"""Plugins' views of a record (``evalcore_record_views``), rendered as escaped text in the record's panel.

Every view that applies to a record is shown, in the order the plugins load; a view that raises,
or returns something that is not a view, is one line naming it and the error, never a broken page.
Views are plain data (:class:`~evalcore_report.record_view.RecordView`): every string goes through
:func:`html.escape` here, so a view can never add markup or script to the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from evalcore import Record

from .record_view import view_of
from .records import LONG_TEXT, long_text


def installed_views() -> list[Any]:
    """The record views of the installed plugins (:func:`evalcore.plugin.record_views`)."""
    from evalcore.plugin import record_views

    return record_views()


def plugin_views(record: Record, views: Sequence[Any]) -> str:
    """Each view of ``record`` that applies, as a ``<section class="view">``."""
    parts = []
    for spec in views:
        try:
            view = view_of(spec, record)
        except Exception as exc:  # noqa: BLE001 - a plugin's failure is shown, not raised
            parts.append(f"<p class=\"muted view-error\">the {escape(spec.namespace)} plugin's view "
                         f"{escape(spec.name)} failed: {escape(type(exc).__name__)}: {escape(str(exc))}</p>")
            continue
        if view is not None:
            parts.append(_view(view))
    return "".join(parts)


def _view(view: Any) -> str:
    sections = []
    for section in view.sections:
        body = [f"<h5>{escape(section.heading)}</h5>"]
        if section.text is not None:
            body.append(f"<p>{long_text(section.text)}</p>")
        if section.rows:
            head = ("<thead><tr>" + "".join(f"<th>{escape(c)}</th>" for c in section.columns) + "</tr></thead>"
                    if section.columns else "")
            rows = "".join("<tr>" + "".join(f"<td>{long_text(cell)}</td>" for cell in row) + "</tr>"
                           for row in section.rows)
            body.append(f"<table class=\"view-rows\">{head}<tbody>{rows}</tbody></table>")
        if section.code is not None:
            code = section.code if len(section.code) <= LONG_TEXT else (
                section.code[:LONG_TEXT] + f"\n… ({len(section.code) - LONG_TEXT} more characters)")
            body.append(f"<pre>{escape(code)}</pre>")
        sections.append("".join(body))
    return f"<section class=\"view\"><h4>{escape(view.title)}</h4>{''.join(sections)}</section>"
