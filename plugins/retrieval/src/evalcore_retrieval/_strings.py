"""A column of strings in Arrow's large-string layout, held without importing pyarrow.

The compiled scanner fills one directly from a file's bytes; pyarrow is imported only where a
column is converted to or from Arrow (:meth:`Strings.arrow`, :meth:`Strings.from_arrow`), which
the readers without the scanner and the exact matching of document ids do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


class Strings:
    """String ``i`` is the UTF-8 ``data[offsets[i]:offsets[i + 1]]`` (``offsets``: int64, one more than strings)."""

    __slots__ = ("offsets", "data", "_arrow")

    def __init__(self, offsets: np.ndarray, data: Any, arrow: pa.ChunkedArray | None = None) -> None:
        self.offsets = np.ascontiguousarray(offsets, np.int64)
        self.data = data  # bytes, bytearray or a pyarrow Buffer
        self._arrow = arrow

    @classmethod
    def from_arrow(cls, strings: pa.ChunkedArray | pa.Array) -> Strings:
        """The strings of a pyarrow (large) string array, sharing its bytes."""
        import pyarrow as pa

        chunked = strings if isinstance(strings, pa.ChunkedArray) else pa.chunked_array([strings])
        array = chunked.combine_chunks() if chunked.num_chunks != 1 else chunked.chunk(0)
        kind = np.int64 if pa.types.is_large_string(array.type) else np.int32
        _, offsets, data = array.buffers()
        starts = np.frombuffer(offsets, kind)[array.offset:array.offset + len(array) + 1] if len(array) else [0]
        return cls(starts, b"" if data is None else data, chunked)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, row: int) -> str:
        return str(memoryview(self.data)[self.offsets[row]:self.offsets[row + 1]], "utf-8")

    def take(self, rows: np.ndarray) -> list[str]:
        """The strings at ``rows`` as Python strings."""
        rows = np.asarray(rows, np.int64)
        view = memoryview(self.data)
        return [str(view[a:b], "utf-8") for a, b in zip(self.offsets[rows].tolist(), self.offsets[rows + 1].tolist())]

    def to_pylist(self) -> list[str]:
        return self.take(np.arange(len(self)))

    def arrow(self) -> pa.ChunkedArray:
        """The strings as a pyarrow large-string column (sharing the bytes; made once)."""
        if self._arrow is None:
            import pyarrow as pa

            array = pa.LargeStringArray.from_buffers(len(self), pa.py_buffer(self.offsets), pa.py_buffer(self.data))
            self._arrow = pa.chunked_array([array])
        return self._arrow
