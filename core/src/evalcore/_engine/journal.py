"""The samples journal: per-record rows streamed to JSONL, resumable after any interruption.

Layout: the first line is a header (``{"evalcore_journal": 2, "checksums": "sha256",
"fingerprint": …, "metrics": …}``) that identifies the run; then, per scored chunk, its rows
(``{"id", "i", "scores", …}``) followed by a checkpoint line (``{"chunk": k, "rows": n,
"sha256": …}``) holding the SHA-256 of every byte of the file before that line. Only rows
followed by their checkpoint count: after ``kill -9`` the rows of a half-written chunk (and a
half-written last line) are cut off when the run resumes, and that chunk is scored again. A
row edited, repeated, added or removed after the run wrote it no longer matches its
checkpoint, and the journal is refused with the line.

While a run writes its journal it holds a lock on it (``flock``), so a second run writing the
same file stops at once; a journal whose header names another run is not written over
unless asked to (``overwrite``).

Journals of format 1 (no checksums) and header-less rows files are still read, for comparing
and reporting, with a :class:`JournalWarning`; they are not resumed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._contract.jsonl import dump_json

from .files import OutputError

FORMAT_VERSION = 2
"""Format 2: checkpoint lines carry a SHA-256 of the file before them. Format 1 had none."""


class ResumeError(EvalcoreError):
    """A journal cannot be resumed: it belongs to another run, is not a journal, or was changed."""


class JournalError(InputError):
    """A journal cannot be read: a line is damaged, or rows were changed after the run wrote them
    (the message names the file and line)."""


class JournalWarning(UserWarning):
    """A journal is read without checks: it has no checksums (format 1, or rows written by hand)."""


_LINE = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    return str(value)


encode_row: Callable[[dict[str, Any]], bytes] = functools.partial(dump_json, default=_default, option=_LINE)
"""One journal line (newline included)."""


def encode_one_metric_rows(ids: Iterable[str], positions: Iterable[int], metric_id: str,
                           scores: Iterable[Any]) -> bytearray:
    """The lines :func:`encode_row` writes for ``{"id", "i", "scores": {metric_id: score}}`` rows,
    byte for byte, with the part after the position encoded once per distinct :class:`Score`
    object (a metric's batch hands one to every record with the same outcome)."""
    tails: dict[int, bytes] = {}
    dumps = orjson.dumps
    lines = bytearray()
    for record_id, position, score in zip(ids, positions, scores):
        tail = tails.get(id(score))
        if tail is None:  # ',"scores":{...}}' and the newline; ``scores`` keeps each object alive
            tail = tails[id(score)] = b',"scores":' + encode_row({metric_id: score.to_dict()})[:-1] + b"}\n"
        try:
            lines += b'{"id":%b,"i":%d%b' % (dumps(record_id), position, tail)
        except TypeError:  # an id that orjson refuses (a lone surrogate): the general encoding
            lines += encode_row({"id": record_id, "i": position, "scores": {metric_id: score.to_dict()}})
    return lines


def encode_rows(rows: Iterable[dict[str, Any]]) -> bytearray:
    """Journal lines. Each is added as soon as it is made: a chunk's lines held as separate
    objects cost more (fresh memory for every one) than the encoding."""
    lines = bytearray()
    for row in rows:
        lines += encode_row(row)
    return lines


def checkpoint_line(index: int, count: int, digest: Any) -> bytes:
    """The checkpoint after a chunk of ``count`` rows; ``digest`` has seen every byte before it."""
    return encode_row({"chunk": index, "rows": count, "sha256": digest.hexdigest()})


def header_line(header: dict[str, Any]) -> bytes:
    """The first line of a journal."""
    return encode_row({"evalcore_journal": FORMAT_VERSION, "checksums": "sha256", **header})


class JournalWriter:
    """Appends each scored chunk (rows, then its checkpoint) and flushes it; ``rows`` counts
    the committed rows (a resumed journal's included).

    The journal is locked from opening until :meth:`close`. ``fresh`` says whether it was
    absent or empty before (a run that fails with no rows removes such a journal).
    """

    def __init__(self, path: Path, header: dict[str, Any], *, resume: bool, overwrite: bool = False) -> None:
        self.path = path
        self.done: list[dict[str, Any]] = []
        # opened without truncating: nothing changes before the lock is held and the header checked
        handle = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o666), "r+b")
        try:
            _lock(handle, path)
            size = os.fstat(handle.fileno()).st_size
            self.fresh = size == 0
            if resume and size:
                committed, self.done, self._digest = read_committed(handle, path, header)
                handle.seek(committed)
                handle.truncate()
            else:
                if size and not overwrite:
                    _refuse_another_run(handle, path, header)
                handle.seek(0)
                handle.truncate()
                first = header_line(header)
                handle.write(first)
                handle.flush()
                self._digest = hashlib.sha256(first)
        except BaseException:
            handle.close()
            raise
        self.rows = len(self.done)
        self._handle = handle

    def write_chunk(self, index: int, lines: bytes | bytearray, count: int) -> None:
        """A chunk's ``count`` rows (journal lines from :func:`encode_row`) and its checkpoint."""
        self._digest.update(lines)
        checkpoint = checkpoint_line(index, count, self._digest)
        self._digest.update(checkpoint)
        self._handle.write(lines)
        self._handle.write(checkpoint)
        self._handle.flush()
        self.rows += count

    def flush(self) -> None:
        if not self._handle.closed:
            self._handle.flush()

    def close(self) -> None:
        """Stop writing and release the lock."""
        if not self._handle.closed:
            self._handle.close()


def _lock(handle: IO[bytes], path: Path) -> None:
    """Hold an exclusive lock on the journal, or fail at once if another run holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise OutputError(f"{os.fspath(path)} is being written by another evalcore run; wait for it to finish, "
                          "or give another path (--samples, -o)") from None
    except OSError:  # a file system without locks (some network mounts): go on unlocked
        return


def _refuse_another_run(handle: IO[bytes], path: Path, header: dict[str, Any]) -> None:
    """Refuse to write over a file that is not a journal, or is another run's journal."""
    handle.seek(0)
    found = _header_of(handle.readline())
    if found is None:
        raise OutputError(f"{os.fspath(path)} exists and is not an evalcore journal; --overwrite replaces it, "
                          "or give another path (--samples, -o)")
    differences = _differences(found.get("fingerprint") or {}, header["fingerprint"])
    if differences:
        raise OutputError(f"{os.fspath(path)} holds the rows of another run ({'; '.join(differences)}); "
                          "--overwrite replaces them, or give another path (--samples, -o); "
                          "--resume continues a journal of the same input, metrics and options")


def _header_of(line: bytes) -> dict[str, Any] | None:
    try:
        found = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return found if isinstance(found, dict) and "evalcore_journal" in found else None


def decode_line(line: bytes) -> Any:
    """One line's JSON; ``NaN``, ``Infinity`` and ``-Infinity`` (as Python's json writes them) are
    read as the floats they stand for, and a lone surrogate escape as that code point (as
    :func:`~evalcore._contract.jsonl.dump_json` writes it). Raises ``ValueError`` for a line that is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            return json.loads(line)
        except RecursionError:
            raise ValueError("nested too deeply to read") from None


class JournalReader:
    """Reads and checks a journal (or a plain JSONL rows file) from an open binary handle.

    :meth:`read_header` first, then :meth:`chunks`. In a journal of format 2 every checkpoint's
    SHA-256 and row count are checked and a record id may appear once; any line that ends in a
    newline and is not a JSON object is an error naming it. Only the last line of a journal may
    be cut off (a run stopped while writing it); rows after the last checkpoint are an
    unfinished chunk and are not returned.
    """

    def __init__(self, handle: IO[bytes], path: Path | str) -> None:
        self.handle = handle
        self.path = os.fspath(path)
        self.header: dict[str, Any] | None = None
        self.version: int | None = None
        self.committed = 0
        self.lineno = 0
        self.digest = hashlib.sha256()
        self.committed_digest = self.digest.copy()

    def read_header(self) -> dict[str, Any] | None:
        first = self.handle.readline()
        found = _header_of(first)
        if found is None:
            self.handle.seek(0)
            return None
        version = found["evalcore_journal"]
        if version not in (1, FORMAT_VERSION):
            raise JournalError(f"journal format {version!r} is not one this evalcore reads (1 or {FORMAT_VERSION}); "
                               "a newer evalcore wrote it", source=f"{self.path}:1")
        self.header, self.version, self.lineno, self.committed = found, version, 1, len(first)
        self.digest.update(first)
        self.committed_digest = self.digest.copy()
        return found

    @property
    def checked(self) -> bool:
        return self.version == FORMAT_VERSION

    def chunks(self) -> Iterator[list[dict[str, Any]]]:
        """The committed rows, one list per chunk (in a file without checkpoints: all its rows)."""
        checked, digest = self.checked, self.digest
        pending: list[dict[str, Any]] = []
        seen: dict[Any, int] = {}
        first = self.lineno + 1
        offset = self.committed
        checkpoints = False
        for line in self.handle:
            self.lineno += 1
            offset += len(line)
            where = f"{self.path}:{self.lineno}"
            if self.version is not None and not line.endswith(b"\n"):
                break  # cut off while it was written: the end of an unfinished chunk
            if not line.strip():
                if checked:
                    raise JournalError("an empty line; the journal was changed after it was written", source=where)
                continue
            try:
                value = decode_line(line)
            except ValueError as exc:
                raise JournalError(f"not a JSON line ({_reason(exc)})", source=where) from None
            if not isinstance(value, dict):
                raise JournalError("not a JSON object", source=where)
            if "chunk" in value and "id" not in value:
                if checked:
                    if value.get("sha256") != digest.hexdigest():
                        raise JournalError(f"the checksum of lines {first}-{self.lineno - 1} does not match: they "
                                           "were changed after the run wrote them (a row edited, added or removed)",
                                           source=where)
                    if value.get("rows") != len(pending):
                        raise JournalError(f"the checkpoint counts {value.get('rows')!r} rows; lines "
                                           f"{first}-{self.lineno - 1} hold {len(pending)}", source=where)
                digest.update(line)
                checkpoints = True
                self.committed, self.committed_digest, first = offset, digest.copy(), self.lineno + 1
                yield pending
                pending = []
                continue
            if "id" not in value or not isinstance(value.get("scores"), dict):
                raise JournalError("a row needs an 'id' and a 'scores' object", source=where)
            if checked:
                try:
                    earlier = seen.setdefault(value["id"], self.lineno)
                except TypeError:
                    raise JournalError(f"the record id {value['id']!r} is not a string", source=where) from None
                if earlier != self.lineno:
                    raise JournalError(f"record {value['id']!r} again (first on line {earlier}); a row was "
                                       "repeated after the run wrote it", source=where)
                digest.update(line)
            pending.append(value)
        if not checkpoints and not checked and pending:
            yield pending  # rows written without checkpoints (by hand, or before they existed): every row counts


def _reason(exc: ValueError) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def read_committed(handle: IO[bytes], path: Path, header: dict[str, Any]) -> tuple[int, list[dict[str, Any]], Any]:
    """The byte length of the journal's committed part, its rows and the SHA-256 over that part;
    refuses another run's journal, a journal without checksums and a changed one."""
    reader = JournalReader(handle, path)
    try:
        found = reader.read_header()
    except JournalError as exc:
        raise ResumeError(f"{exc}; cannot resume from it") from None
    if found is None:
        raise ResumeError(f"{path} is not an evalcore samples journal; cannot resume from it")
    if not reader.checked:
        raise ResumeError(f"{path} has no checksums (journal format {reader.version}, written by an older evalcore), "
                          "so it is not resumed: --overwrite starts afresh, or give another samples file")
    differences = _differences(found.get("fingerprint", {}), header["fingerprint"])
    if differences:
        raise ResumeError(f"{path} belongs to another run ({'; '.join(differences)}); "
                          "start afresh without resume (--overwrite), or give another samples file")
    rows: list[dict[str, Any]] = []
    try:
        for chunk in reader.chunks():
            rows.extend(chunk)
    except JournalError as exc:
        raise ResumeError(f"{exc}; cannot resume from it: --overwrite starts afresh, "
                          "or give another samples file") from None
    return reader.committed, rows, reader.committed_digest


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
    """The committed rows of a journal (or of a plain JSONL rows file), in file order, checked as
    :class:`JournalReader` checks them; a file without checksums is read with a :class:`JournalWarning`."""
    with open(path, "rb") as handle:
        reader = JournalReader(handle, path)
        reader.read_header()
        if not reader.checked:
            kind = f"journal format {reader.version}" if reader.version else "rows without a journal header"
            warnings.warn(JournalWarning(f"{os.fspath(path)} has no checksums ({kind}); its rows are read unchecked"),
                          stacklevel=2)
        for rows in reader.chunks():
            yield from rows


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
            return decode_line(handle.readline())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        offsets = self._index()
        with open(self.path, "rb") as handle:
            for offset in offsets.tolist():
                handle.seek(offset)
                yield decode_line(handle.readline())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, Rows)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"<{len(self)} rows in {os.fspath(self.path)}>"
