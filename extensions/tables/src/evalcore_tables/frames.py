"""DataFrames in: pandas, polars and Arrow tables and Parquet files as records (their libraries stay optional).

A table is checked before a record is read: its column names are distinct strings, every column
``columns=`` names is there, and no two rows have ids that are the same once normalised (``1``,
``"1"`` and ``1.0`` are all the id ``"1"``); each problem is one line naming the columns or ids.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from evalcore.plugin import DataSource, EvalcoreError, InputError, place_columns


def frame_source(data: Any, columns: Mapping[str, str] | None = None, field_map: Any = None) -> DataSource | None:
    """A source over a DataFrame's rows, or ``None`` when ``data`` is not a frame.

    ``columns`` maps record fields to column names (``{"example.query": "question",
    "prediction.response": "answer", "id": "qid"}``); without it, columns named
    ``example.*`` / ``prediction.*`` / ``id`` (or holding whole ``example`` and
    ``prediction`` objects) are used as they are and the others are a flat record's fields
    (placed by name: ``query`` in the example, ``response`` in the prediction). ``field_map``
    then maps each row's fields.
    """
    frame = _frame(data)
    return None if frame is None else _source(frame, columns, field_map, f"<{type(data).__name__}>")


def _source(frame: _Frame, columns: Mapping[str, str] | None, field_map: Any, name: str) -> DataSource:
    columns = dict(columns or {})
    _check_columns(frame, columns, name)
    id_column = columns.get("id", "id" if "id" in frame.names else None)
    if id_column is not None:
        _check_ids(frame.column(id_column), name)
    return DataSource(_Records(frame, columns), name=name, field_map=field_map)


def parquet_source(path: str | os.PathLike[str], columns: Mapping[str, str] | None = None,
                   field_map: Any = None) -> DataSource:
    """Records from a Parquet file (pyarrow: ``pip install "evalcore-tables[parquet]"``)."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise EvalcoreError('reading Parquet needs pyarrow: pip install "evalcore-tables[parquet]"') from None
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read as Parquet: {exc}", source=os.fspath(path)) from None
    frame = _frame(table)
    assert frame is not None
    return _source(frame, columns, field_map, os.fspath(path))


class _Frame:
    """A table's length, column names, rows (as dicts) and one column's values."""

    def __init__(self, rows: Callable[[], Any], length: int, names: list[Any],
                 column: Callable[[str], list[Any]]) -> None:
        self.rows, self.length, self.names, self.column = rows, length, names, column


def _frame(data: Any) -> _Frame | None:
    module = type(data).__module__.split(".")[0]
    if module == "pandas" and hasattr(data, "to_dict") and hasattr(data, "columns"):
        if getattr(data.columns, "nlevels", 1) > 1:
            raise EvalcoreError(f"a DataFrame with MultiIndex columns ({data.columns.nlevels} levels) given as data; "
                                "give one level of names, e.g. frame.columns = ['.'.join(c) for c in frame.columns]")
        return _Frame(lambda: data.to_dict("records"), len(data), list(data.columns), lambda c: data[c].tolist())
    if module == "polars" and hasattr(data, "to_dicts"):
        return _Frame(data.to_dicts, data.height, list(data.columns), lambda c: data[c].to_list())
    if module == "pyarrow" and hasattr(data, "to_pylist") and hasattr(data, "column_names"):
        return _Frame(data.to_pylist, data.num_rows, list(data.column_names), lambda c: data.column(c).to_pylist())
    return None


def _check_columns(frame: _Frame, columns: dict[str, str], name: str) -> None:
    """Column names are distinct strings; each column ``columns`` names is one of them."""
    twice = sorted({str(n) for n in frame.names if frame.names.count(n) > 1})
    if twice:
        raise InputError(f"columns named twice: {', '.join(map(repr, twice))}; rename one of each", source=name)
    odd = [n for n in frame.names if not isinstance(n, str)]
    if odd:
        raise InputError(f"column names must be strings; got {', '.join(map(repr, odd[:5]))}", source=name)
    for field, column in columns.items():
        if column not in frame.names:
            raise InputError(f"columns[{field!r}] names the column {column!r}, which the table lacks "
                             f"(columns: {', '.join(map(repr, frame.names))})", source=name)


def _check_ids(values: list[Any], name: str) -> None:
    """No two rows' ids are the same once normalised (as each record's id is)."""
    first: dict[Any, tuple[int, Any]] = {}
    for row, value in enumerate(values):
        key = _normal_id(value)
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            continue  # not an id: that row's record is rejected, saying why
        key = str(key)
        if key in first:
            row_0, value_0 = first[key]
            raise InputError(f"rows {row_0} and {row} have the same id {key!r} (given as {value_0!r} and {value!r}); "
                             "ids must be unique", source=name, field="id")
        first[key] = (row, value)


def _normal_id(value: Any) -> Any:
    """An id as a record keeps it: a numpy scalar as its Python value, a whole float (a pandas column of
    numbers with gaps) as an int."""
    value = _scalar(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


class _Records:
    """Record dicts built from frame rows as they are read."""

    def __init__(self, frame: _Frame, columns: dict[str, str]) -> None:
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
            record["id"] = _normal_id(record["id"]) if "id" in record else str(index)
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
