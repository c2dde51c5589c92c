"""Data that a plugin's reader reads: a file by its suffix (``.csv``, ``.parquet``), an object by the
module of its type (a pandas DataFrame). JSONL files and Python records are the core's own."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from evalcore._contract.chunk import Source
from evalcore._contract.components import ReaderSpec
from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._registry.registry import default_registry

_TABLE_MODULES = ("pandas", "polars", "pyarrow")
_INSTALL = "tables (CSV, TSV, Parquet, DataFrames) are read by evalcore-tables: pip install evalcore-tables"


def file_source(path: str | os.PathLike[str], columns: Mapping[str, str] | None = None,
                field_map: Any = None) -> Source:
    """The source of the installed reader of ``path``'s suffix."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    reader = _reader("suffixes", suffix)
    if reader is None:
        raise InputError(f"no installed reader reads {suffix} files; {_INSTALL}", source=os.fspath(path))
    return reader.read(path, columns, field_map)


def csv_source(path: str | os.PathLike[str], field_map: Any = None) -> Source:
    """The source of a ``.csv`` / ``.tsv`` file (:func:`file_source` without ``columns``)."""
    return file_source(path, None, field_map)


def object_source(data: Any, columns: Mapping[str, str] | None = None, field_map: Any = None) -> Source | None:
    """The source of the installed reader of ``data``'s kind, or ``None`` when no reader reads it."""
    module = type(data).__module__.partition(".")[0]
    if module == "builtins":  # lists, tuples, generators of records: the core's own
        return None
    reader = _reader("objects", module)
    if reader is None:
        if module in _TABLE_MODULES:
            raise EvalcoreError(f"a {module} {type(data).__name__} given as data: {_INSTALL}")
        return None
    return reader.read(data, columns, field_map)


def _reader(attribute: str, value: str) -> ReaderSpec | None:
    found = [r for r in default_registry().components("readers") if value in getattr(r, attribute, ())]
    return found[0] if found else None
