"""The lines of a TREC qrels or run file as columns: query ids, document ids and one number each.

The format is trec_eval 10's: fields are separated by ASCII whitespace; qrels lines are
``qid iter docno rel`` (exactly four fields, ``rel`` an integer), run lines
``qid Q0 docno rank score tag`` (six fields or more: the rank and anything after the tag are
ignored). A line whose first field starts with ``#`` is a comment (a ``#`` inside a docno is
part of the docno); blank lines are skipped; a UTF-8 byte order mark at the start is accepted.

Files go through the compiled one-pass scanner (:mod:`._compiled`, no pyarrow), or where it was
not built, through pyarrow's multi-threaded CSV reader when their fields are separated by single spaces.
A file either finds a problem in (or any file in another layout, without the scanner) is read
line by line, which accepts every valid layout and raises :class:`InputError` naming
``file:line`` and the field of the first bad line.
"""

from __future__ import annotations

import codecs
import math
import mmap
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from evalcore.plugin import InputError

from . import _compiled
from ._strings import Strings

if TYPE_CHECKING:
    import pyarrow as pa

_BOM = b"\xef\xbb\xbf"
_BLOCK_SIZE = 16 << 20
Buffer = bytes | mmap.mmap


@dataclass(frozen=True)
class Layout:
    """One TREC file kind: its column names, where qid / docno / value are, and its value type."""

    kind: str
    columns: tuple[str, ...]
    exact: bool  # exactly len(columns) fields, or at least that many
    value: str  # name of the value column

    def describe(self) -> str:
        return " ".join(self.columns)


QRELS = Layout("qrels", ("qid", "iter", "docno", "rel"), exact=True, value="rel")
RUN = Layout("run", ("qid", "Q0", "docno", "rank", "score", "tag"), exact=False, value="score")


@dataclass(frozen=True)
class Columns:
    """A file's data lines in file order: each line's query, its ``docno`` and its ``value``."""

    query: np.ndarray  # int64 per line: an index into qids
    qids: list[str]  # the distinct query ids, in order of first appearance
    docno: Strings
    value: np.ndarray  # int64 relevance grades (qrels) or float64 scores (run)

    def __len__(self) -> int:
        return len(self.value)

    def qid(self, line: int) -> str:
        return self.qids[self.query[line]]


def arrow_indices(rows: np.ndarray) -> pa.Array:
    """``rows`` as an Arrow int64 array, zero-copy (``pa.array`` would import pandas, ~0.5 s)."""
    import pyarrow as pa

    rows = np.ascontiguousarray(rows, np.int64)
    return pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows)])


def columns_of(qid: pa.ChunkedArray, docno: pa.ChunkedArray, value: np.ndarray) -> Columns:
    """:class:`Columns` from pyarrow string columns of query ids and document ids (one per line)."""
    query, qids = _factorize(qid)
    return Columns(query, qids, Strings.from_arrow(docno), value)


def _factorize(strings: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Codes (int64, in first-appearance order) and the distinct values of ``strings``.

    Files are grouped by query, so only the first line of each group is looked up.
    """
    import pyarrow.compute as pc

    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64), []
    starts = np.concatenate([[0], np.flatnonzero(pc.not_equal(strings[1:], strings[:-1]).to_numpy(
        zero_copy_only=False)) + 1])
    # dictionary codes are given in order of first appearance
    heads = strings.take(arrow_indices(starts)).combine_chunks().dictionary_encode()
    head_codes = heads.indices.to_numpy().astype(np.int64)
    return np.repeat(head_codes, np.diff(np.append(starts, len(strings)))), heads.dictionary.to_pylist()


class _Unusual(Exception):
    """The fast reader cannot take this file as it is; read it line by line."""


def read_columns(data: Buffer, name: str, layout: Layout) -> Columns:
    """The data lines of ``data`` (the bytes of file ``name``) as columns."""
    try:
        columns = _scan(data, layout) if _compiled.scanner else _read_fast(data, layout)
    except _Unusual:
        columns = read_slowly(data, name, layout)
    if not len(columns):
        raise InputError(f"no {layout.kind} lines (expected '{layout.describe()}')", source=name)
    return columns


def read_slowly(data: Buffer, name: str, layout: Layout, find_duplicates: bool = False) -> Columns:
    """Read line by line, checking every line: the reference behaviour, and the error finder.

    A (query, document) pair repeated within the file is an error only with ``find_duplicates``
    (the readers leave repeats to :func:`._pairs.judge`, after both files' lines are checked).
    """
    import pyarrow as pa

    body = bytes(data[len(_BOM):] if data[:len(_BOM)] == _BOM else data)
    width = len(layout.columns)
    integer = layout.kind == "qrels"
    qids: list[str] = []
    docnos: list[str] = []
    values: list[float] = []
    seen: dict[str, set[str]] = {}
    for lineno, line in enumerate(body.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        source = f"{name}:{lineno}"
        if len(fields) < width or (layout.exact and len(fields) > width):
            raise InputError(f"expected {width} columns '{layout.describe()}', got {len(fields)}",
                             source=source, field="columns")
        text = [_decode(field, layout.columns[min(i, width - 1)], source) for i, field in enumerate(fields)]
        qid, docno = text[0], text[2]
        value = _integer(text[3], source) if integer else _score(text[4], source)
        if find_duplicates:
            docs = seen.setdefault(qid, set())
            if docno in docs:
                raise InputError(f"document {docno!r} appears twice in query {qid!r}", source=source, field="docno")
            docs.add(docno)
        qids.append(qid)
        docnos.append(docno)
        values.append(value)
    dtype = np.int64 if integer else np.float64
    return columns_of(pa.chunked_array([pa.array(qids, pa.string())]),
                      pa.chunked_array([pa.array(docnos, pa.string())]), np.array(values, dtype))


def _decode(field: bytes, column: str, source: str) -> str:
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 ({exc.reason} at byte {exc.start})", source=source,
                         field=column) from None


def _integer(text: str, source: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(f"relevance must be an integer, got {text!r:.40}", source=source, field="rel") from None


def _score(text: str, source: str) -> float:
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"score must be a number, got {text!r:.40}", source=source, field="score") from None
    if not math.isfinite(score):
        raise InputError(f"score must be a finite number, got {text!r:.40}", source=source, field="score")
    return score


def _scan(body: Buffer, layout: Layout) -> Columns:
    """The compiled scanner's columns; :class:`_Unusual` where it finds a line it does not take."""
    assert _compiled.scanner is not None
    scanned = _compiled.scanner.scan(body, layout.kind == "qrels")
    if scanned is None:
        raise _Unusual
    query, qids, offsets, docnos, values, high_bytes = scanned
    if high_bytes:
        _check_utf8(body, 0)
    value_type = np.int64 if layout.kind == "qrels" else np.float64
    return Columns(np.frombuffer(query, np.int64), qids, Strings(np.frombuffer(offsets, np.int64), docnos),
                   np.frombuffer(values, value_type))


def _read_fast(body: Buffer, layout: Layout) -> Columns:
    """pyarrow's CSV reader on single-space separated lines; :class:`_Unusual` for anything else."""
    import pyarrow as pa
    import pyarrow.csv as csv

    start = _data_start(body)
    _check_plain(body, start)
    qid, docno, value = layout.columns[0], layout.columns[2], layout.value
    value_type = pa.int64() if layout.kind == "qrels" else pa.float64()
    try:
        table = csv.read_csv(
            pa.py_buffer(body)[start:],
            read_options=csv.ReadOptions(column_names=list(layout.columns), block_size=_BLOCK_SIZE),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False, ignore_empty_lines=True),
            convert_options=csv.ConvertOptions(
                include_columns=[qid, docno, value], null_values=[], strings_can_be_null=False,
                column_types={qid: pa.string(), docno: pa.string(), value: value_type}, check_utf8=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise _Unusual from None  # a wrong column count or a bad number: found and named line by line
    values = table.column(value).to_numpy()
    if layout.kind == "run" and not np.isfinite(values).all():
        raise _Unusual
    return columns_of(table.column(qid), table.column(docno), values)


def _check_plain(body: Buffer, start: int) -> None:
    """:class:`_Unusual` unless the lines from ``start`` on are what the fast reader reads as trec_eval does."""
    if any(body.find(c, start) >= 0 for c in (b"\t", b"\x0b", b"\x0c")):
        raise _Unusual  # other whitespace than single spaces
    octets = np.frombuffer(body, np.uint8)[start:]
    if body.find(b"#", start) >= 0:
        hashes = np.flatnonzero(octets == ord("#"))
        if (octets[hashes[hashes > 0] - 1] == ord("\n")).any():
            raise _Unusual  # a comment line after the data started
    if body.find(b"\r", start) >= 0:
        returns = np.flatnonzero(octets == ord("\r"))
        if returns[-1] + 1 == len(octets) or (octets[returns + 1] != ord("\n")).any():
            raise _Unusual  # a lone carriage return separates fields in trec_eval, lines in pyarrow
    if len(octets) and octets.max() >= 0x80:
        _check_utf8(body, start)


def _check_utf8(body: Buffer, start: int) -> None:
    """:class:`_Unusual` unless the bytes from ``start`` on are valid UTF-8."""
    try:
        codecs.decode(memoryview(body)[start:], "utf-8")
    except UnicodeDecodeError:
        raise _Unusual from None


def _data_start(body: Buffer) -> int:
    """Where the first data line starts, after a byte order mark and leading comment or blank lines."""
    start = len(_BOM) if body[:len(_BOM)] == _BOM else 0
    while True:
        stop = body.find(b"\n", start)
        line = bytes(body[start:] if stop < 0 else body[start:stop])
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
        if stop < 0:
            return len(body)
        start = stop + 1
    if line[:1].isspace():
        raise _Unusual  # an indented first line: let the line reader judge it
    return start


def file_bytes(path: str | os.PathLike[str]) -> tuple[str, Buffer]:
    """The name to report for ``path`` and its bytes (memory-mapped)."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            try:
                return name, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # an empty file cannot be mapped
                return name, b""
    except OSError as exc:
        raise InputError(f"cannot read the file ({exc.strerror})", source=name) from None


def first_error(name: str, layout: Layout) -> InputError:
    """The error of the first bad line of file ``name``, found by reading it line by line."""
    read_slowly(file_bytes(name)[1], name, layout, find_duplicates=True)
    return InputError(f"the {layout.kind} file changed while it was read", source=name)
