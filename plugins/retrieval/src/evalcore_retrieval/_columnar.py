"""Qrels and runs given as columns (numpy arrays, a pandas DataFrame, a pyarrow Table) as :class:`TrecData`.

pandas and pyarrow tables are recognised without importing pandas; columns are converted
to pyarrow strings (query and document ids) and a float array (scores, grades).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from evalcore.plugin import InputError

from ._trec import TrecData, build
from ._trec_lines import QRELS, RUN, Columns, Layout, columns_of


def trec_data_from_columns(qrels: Any, run: Any) -> TrecData:
    """:class:`TrecData` from a qrels (``qid, docno, rel``) and a run (``qid, docno, score``) table."""
    columns = {QRELS.kind: _columns(qrels, QRELS), RUN.kind: _columns(run, RUN)}

    def duplicate(layout: Layout, row: int) -> InputError:
        table = columns[layout.kind]
        qid, docno = table.qid(row), table.docno[row]
        return InputError(f"document {docno!r} appears twice in query {qid!r}", source=layout.kind,
                          field=f"row {row}")

    return build(columns[QRELS.kind], columns[RUN.kind], duplicate)


def _columns(table: Any, layout: Layout) -> Columns:
    names = ("qid", "docno", layout.value)
    arrays = _arrays(table, names, layout.kind)
    qid, docno = (pa.chunked_array([_strings(arrays[n], layout.kind, n)]) for n in names[:2])
    value = _numbers(arrays[layout.value], layout.kind, layout.value)
    if not (len(qid) == len(docno) == len(value)):
        raise InputError(f"columns of different lengths: {len(qid)}, {len(docno)}, {len(value)}",
                         source=layout.kind)
    if not len(value):
        raise InputError(f"no rows (expected columns {', '.join(names)})", source=layout.kind)
    return columns_of(qid, docno, value)


def _arrays(table: Any, names: tuple[str, ...], kind: str) -> dict[str, Any]:
    """The named columns of a pyarrow Table, a pandas DataFrame or a mapping of arrays."""
    if isinstance(table, pa.Table) or type(table).__module__.startswith("pandas"):
        available = list(table.column_names if isinstance(table, pa.Table) else table.columns)
    elif isinstance(table, Mapping):
        available = list(table)
    else:
        raise InputError(f"expected a pyarrow Table, a pandas DataFrame or a mapping of columns, got "
                         f"{type(table).__name__}", source=kind)
    missing = [n for n in names if n not in available]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}; has {', '.join(map(str, available))}",
                         source=kind, field=missing[0])
    if isinstance(table, pa.Table):
        return {n: table.column(n) for n in names}
    return {n: table[n] for n in names}


def _strings(values: Any, kind: str, name: str) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):  # combine_chunks copies even a single chunk
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(np.asarray(values) if not isinstance(values, list) else values)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if values.null_count:
        raise InputError("missing value", source=kind, field=f"{name}[{_first_null(values)}]")
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        return values.cast(pa.string())
    if pa.types.is_string(values.type):
        return values
    if pa.types.is_integer(values.type):
        return pc.cast(values, pa.string())
    raise InputError(f"ids must be strings, got {values.type}", source=kind, field=name)


def _numbers(values: Any, kind: str, name: str) -> np.ndarray:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            raise InputError("missing value", source=kind, field=f"{name}[{_first_null(values)}]")
        values = values.to_numpy()
    array = np.asarray(values)
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise InputError(f"values must be numbers, got {array.dtype}", source=kind, field=name)
    array = array.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(array))
    if len(bad):
        raise InputError(f"values must be finite numbers, got {array[bad[0]]}", source=kind,
                         field=f"{name}[{bad[0]}]")
    return array


def _first_null(values: pa.Array | pa.ChunkedArray) -> int:
    return int(np.flatnonzero(pc.is_null(values).to_numpy(zero_copy_only=False))[0])
