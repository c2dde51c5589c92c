"""DataFrames in: pandas, polars and Arrow tables as records (their libraries stay optional)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._contract.field_map import FieldMap, place_columns

from .readers import DataSource


def frame_source(data: Any, columns: Mapping[str, str] | None = None,
                 field_map: FieldMap | None = None) -> DataSource | None:
    """A source over a DataFrame's rows, or ``None`` when ``data`` is not a frame.

    ``columns`` maps record fields to column names (``{"example.query": "question",
    "prediction.response": "answer", "id": "qid"}``); without it, columns named
    ``example.*`` / ``prediction.*`` / ``id`` (or holding whole ``example`` and
    ``prediction`` objects) are used as they are and the others are a flat record's fields
    (placed by name: ``query`` in the example, ``response`` in the prediction). ``field_map``
    then maps each row's fields.
    """
    rows = _frame_rows(data)
    if rows is None:
        return None
    return DataSource(_Records(rows, dict(columns or {})), name=f"<{type(data).__name__}>", field_map=field_map)


def parquet_source(path: str | os.PathLike[str], columns: Mapping[str, str] | None = None,
                   field_map: FieldMap | None = None) -> DataSource:
    """Records from a Parquet file (pyarrow: ``pip install "evalcore-core[parquet]"``)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise EvalcoreError('reading Parquet needs pyarrow: pip install "evalcore-core[parquet]"') from None
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read as Parquet: {exc}", source=os.fspath(path)) from None
    source = frame_source(table, columns, field_map)
    assert source is not None
    source.name = os.fspath(path)
    return source


def _frame_rows(data: Any) -> Any:
    module = type(data).__module__.split(".")[0]
    if module == "pandas" and hasattr(data, "to_dict"):
        return _FrameRows(lambda: data.to_dict("records"), len(data), list(data.columns))
    if module == "polars" and hasattr(data, "to_dicts"):
        return _FrameRows(data.to_dicts, data.height, list(data.columns))
    if module == "pyarrow" and hasattr(data, "to_pylist"):
        return _FrameRows(data.to_pylist, data.num_rows, list(data.column_names))
    return None


class _FrameRows:
    def __init__(self, rows: Any, length: int, names: list[str]) -> None:
        self.rows, self.length, self.names = rows, length, names


class _Records:
    """Record dicts built from frame rows as they are read."""

    def __init__(self, frame: _FrameRows, columns: dict[str, str]) -> None:
        self.frame = frame
        self.columns = columns

    def __len__(self) -> int:
        return self.frame.length

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index, row in enumerate(self.frame.rows()):
            if self.columns:
                record: dict[str, Any] = {"example": {}, "prediction": {}}
                for field, column in self.columns.items():
                    _put(record, field, row[column])
            else:
                record = _as_read(row)
            record.setdefault("id", str(index))
            yield record


def _as_read(row: dict[str, Any]) -> dict[str, Any]:
    """A row without ``columns``: ``example.x`` / ``prediction.x`` columns nested, the others a flat
    record's fields."""
    record: dict[str, Any] = {}
    for name, value in row.items():
        if name.split(".", 1)[0] in ("example", "prediction"):
            _put(record, name, value)
        else:
            record[name] = _scalar(value)
    return place_columns(record)


def _put(record: dict[str, Any], field: str, value: Any) -> None:
    if field in ("example", "prediction") and isinstance(value, Mapping):
        record.setdefault(field, {}).update(value)
        return
    parts = field.split(".")
    if parts[0] not in ("example", "prediction", "id"):
        parts = ["example", *parts]
    target = record
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = _scalar(value)


def _scalar(value: Any) -> Any:
    return value.item() if type(value).__module__ == "numpy" and getattr(value, "ndim", 1) == 0 else value
