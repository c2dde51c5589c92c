"""The samples journal: per-record rows streamed to JSONL, resumable after any interruption.

Layout: the first line is a header (``{"evalcore_journal": 1, "fingerprint": …, "metrics": …}``)
that identifies the run; then, per scored chunk, its rows (``{"id", "i", "scores", …}``)
followed by a checkpoint line (``{"chunk": k, "rows": n}``). Only rows followed by
their checkpoint count: after ``kill -9`` the rows of a half-written chunk (and a
half-written last line) are cut off when the run resumes, and that chunk is scored again.
"""

from __future__ import annotations

import functools
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from evalcore._contract.errors import EvalcoreError

FORMAT_VERSION = 1


class ResumeError(EvalcoreError):
    """A journal cannot be resumed: it belongs to another run or is not a journal."""


_LINE = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    return str(value)


encode_row: Callable[[dict[str, Any]], bytes] = functools.partial(orjson.dumps, default=_default, option=_LINE)
"""One journal line (newline included)."""


def encode_rows(rows: Iterable[dict[str, Any]]) -> bytearray:
    """Journal lines. Each is added as soon as it is made: a chunk's lines held as separate
    objects cost more (fresh memory for every one) than the encoding."""
    lines = bytearray()
    for row in rows:
        lines += encode_row(row)
    return lines


class JournalWriter:
    """Appends each scored chunk (rows, then its checkpoint) and flushes it; ``rows`` counts
    the committed rows (a resumed journal's included)."""

    def __init__(self, path: Path, header: dict[str, Any], *, resume: bool) -> None:
        self.path = path
        self.done: list[dict[str, Any]] = []
        if resume and path.exists() and path.stat().st_size:
            committed, self.done = read_committed(path, header)
            self.rows = len(self.done)
            self._handle = open(path, "r+b")  # noqa: SIM115 - closed in close()
            self._handle.truncate(committed)
            self._handle.seek(committed)
        else:
            self.rows = 0
            self._handle = open(path, "wb")  # noqa: SIM115
            self._handle.write(encode_row({"evalcore_journal": FORMAT_VERSION, **header}))
            self._handle.flush()

    def write_chunk(self, index: int, lines: bytes | bytearray, count: int) -> None:
        """A chunk's ``count`` rows (journal lines from :func:`encode_row`) and its checkpoint."""
        self._handle.write(lines)
        self._handle.write(encode_row({"chunk": index, "rows": count}))
        self._handle.flush()
        self.rows += count

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()


def read_committed(path: Path, header: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """The byte length of the journal's committed part and its rows; refuses another run's journal."""
    committed, rows, pending = 0, [], []
    with open(path, "rb") as handle:
        first = handle.readline()
        try:
            found = orjson.loads(first)
        except orjson.JSONDecodeError:
            found = None
        if not isinstance(found, dict) or found.get("evalcore_journal") != FORMAT_VERSION:
            raise ResumeError(f"{path} is not an evalcore samples journal; cannot resume from it")
        differences = _differences(found.get("fingerprint", {}), header["fingerprint"])
        if differences:
            raise ResumeError(f"{path} belongs to another run ({'; '.join(differences)}); "
                              "start afresh without resume, or give another samples file")
        committed = len(first)
        offset = committed
        for line in handle:
            offset += len(line)
            if not line.endswith(b"\n"):
                break  # a half-written last line
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                break
            if "chunk" in value and "id" not in value:
                rows.extend(pending)
                pending = []
                committed = offset
            else:
                pending.append(value)
    return committed, rows


def _differences(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    """What differs between two fingerprints, in words."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        name = f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(_differences(a, b, f"{name}."))
        elif a is None or b is None:
            out.append(f"{name} {'added' if a is None else 'removed'}")
        else:
            out.append(f"{name} was {_brief(a)}, now {_brief(b)}")
    return out


def _brief(value: Any) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."


def iter_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The committed rows of a journal (or of a plain JSONL rows file), in file order."""
    pending: list[dict[str, Any]] = []
    checkpoints = False
    with open(path, "rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                break
            if "evalcore_journal" in value:
                continue
            if "chunk" in value and "id" not in value:
                checkpoints = True
                yield from pending
                pending = []
            else:
                pending.append(value)
    if not checkpoints:
        yield from pending  # a rows file without checkpoints: every row counts


def _position(line: bytes, default: int) -> int:
    """A row's ``"i"`` without parsing the whole line (``,"i":`` cannot occur inside the id
    string before it: a quote there is escaped)."""
    at = line.find(b',"i":')
    if at < 0:
        return default
    end = at + 5
    while line[end:end + 1].isdigit():
        end += 1
    return int(line[at + 5:end])


class Rows(Sequence[dict[str, Any]]):
    """The rows of a journal in input order, read from disk when asked for (not held in memory).

    Keeps one byte offset per row (made on first access); indexing reads that row's line.
    ``count``, when the writer knows it, answers ``len`` without reading the journal.
    """

    def __init__(self, path: Path, count: int | None = None) -> None:
        self.path = path
        self._count = count
        self._offsets: Any = None

    def _index(self) -> Any:
        """The committed rows' line offsets, in input order (an integer array)."""
        if self._offsets is None:
            import numpy as np

            positions, starts = array("q"), array("q")
            pending_positions, pending_starts = array("q"), array("q")
            offset = 0
            with open(self.path, "rb") as handle:
                for line in handle:
                    start, offset = offset, offset + len(line)
                    if line.startswith(b'{"chunk"'):
                        positions.extend(pending_positions)
                        starts.extend(pending_starts)
                        del pending_positions[:], pending_starts[:]
                    elif line.startswith(b'{"id"'):
                        pending_positions.append(_position(line, len(positions) + len(pending_positions)))
                        pending_starts.append(start)
            order = np.argsort(np.frombuffer(positions, dtype=np.int64), kind="stable")
            self._offsets = np.frombuffer(starts, dtype=np.int64)[order]
        return self._offsets

    def __len__(self) -> int:
        return self._count if self._count is not None else len(self._index())

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]  # type: ignore[return-value]
        offset = int(self._index()[index])
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            return orjson.loads(handle.readline())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        offsets = self._index()
        with open(self.path, "rb") as handle:
            for offset in offsets.tolist():
                handle.seek(offset)
                yield orjson.loads(handle.readline())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, Rows)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"<{len(self)} rows in {os.fspath(self.path)}>"
