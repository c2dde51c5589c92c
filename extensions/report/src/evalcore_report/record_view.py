"""A plugin's view of one record (``evalcore_record_views``), as plain data the report renders (never HTML).

A view is a title and sections; a section is a heading with, in this order, an optional
paragraph of ``text``, an optional table of ``rows`` (each a list of cells, under optional
``columns``) and an optional ``code`` block (preformatted). Cells are kept as text: a string as
it is, ``None`` as empty, anything else as JSON. Whoever shows a view escapes every string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
from evalcore import Record, SpecError
from evalcore.plugin import RecordViewSpec, get_path


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _rows(rows: Iterable[Any]) -> tuple[tuple[str, ...], ...]:
    if isinstance(rows, (str, bytes, Mapping)):
        raise SpecError(f"a view section's rows are a list of rows (lists of cells); got {type(rows).__name__}")
    out = []
    for row in rows:
        if isinstance(row, (str, bytes, Mapping)) or not isinstance(row, Iterable):
            raise SpecError(f"a view section's row is a list of cells; got {type(row).__name__}")
        out.append(tuple(_text(cell) for cell in row))
    return tuple(out)


@attrs.frozen
class ViewSection:
    """One part of a :class:`RecordView`: a heading with a paragraph, a table and a code block, each optional."""

    heading: str = attrs.field(converter=_text)
    text: str | None = attrs.field(default=None, converter=_optional_text)
    rows: tuple[tuple[str, ...], ...] = attrs.field(default=(), converter=_rows)
    columns: tuple[str, ...] = attrs.field(default=(), converter=lambda c: tuple(map(_text, c)))
    code: str | None = attrs.field(default=None, converter=_optional_text)


def _sections(sections: Iterable[Any]) -> tuple[ViewSection, ...]:
    if isinstance(sections, (str, bytes, Mapping)) or not isinstance(sections, Iterable):
        raise SpecError(f"a view's sections are a list; got {type(sections).__name__}")
    out = []
    for section in sections:
        if isinstance(section, ViewSection):
            out.append(section)
        elif isinstance(section, Mapping):
            try:
                out.append(ViewSection(**section))
            except TypeError as exc:
                raise SpecError(f"a view section is {{heading, text?, rows?, columns?, code?}}: {exc}") from None
        else:
            raise SpecError(f"a view section is a dict {{heading, text?, rows?, columns?, code?}}; "
                            f"got {type(section).__name__}")
    return tuple(out)


@attrs.frozen
class RecordView:
    """What a record view (:class:`~evalcore.plugin.RecordViewSpec`) shows of one record: a ``title`` and ``sections``,
    each a dict ``{"heading": str, "text": str, "rows": [[cell, ...], ...], "columns": [str, ...],
    "code": str}`` where all but ``heading`` are optional. Plain data only: the report escapes it."""

    title: str = attrs.field(converter=_text)
    sections: tuple[ViewSection, ...] = attrs.field(default=(), converter=_sections)

    @classmethod
    def of(cls, value: Any) -> RecordView | None:
        """``value`` as a view: a :class:`RecordView`, a dict of its fields, or ``None`` (nothing to show)."""
        if value is None or isinstance(value, RecordView):
            return value
        if isinstance(value, Mapping):
            try:
                return cls(**value)
            except TypeError as exc:
                raise SpecError(f"a record view is {{title, sections}}: {exc}") from None
        raise SpecError(f"a record view returns a RecordView, a dict or None; got {type(value).__name__}")



def view_of(spec: RecordViewSpec, record: Record) -> RecordView | None:
    """The view ``spec`` gives of ``record`` (``None`` where it does not apply: the record lacks the field
    its ``applies_to`` names, or the view has nothing to show); what the implementation raises propagates."""
    data = {"example": record.example, "prediction": record.prediction}
    if spec.applies_to and get_path(data, spec.applies_to, None) is None:
        return None
    return RecordView.of(spec.load()(record))
