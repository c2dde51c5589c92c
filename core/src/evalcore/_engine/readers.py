"""The core's readers: JSONL files (streamed) and Python objects, in chunks.

JSONL is read as bytes and split on ``\\n`` only (JSON text may contain U+2028, U+2029
and U+0085). A line that is not UTF-8, not JSON, nested too deep or otherwise unreadable
is that line's error; every other line is still read. A UTF-8 byte order mark at the
start of the file is skipped.
"""

from __future__ import annotations

import copy
import hashlib
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs
import orjson

from evalcore._contract.chunk import Chunk
from evalcore._contract.errors import InputError
from evalcore._contract.field_map import FieldMap, field_paths
from evalcore._contract.jsonl import dump_json, iter_json_lines, open_lines
from evalcore._contract.records import Record, parse_record
from evalcore._lazy import publish

_SEEN_RECORDS = 100  # how many records' field names are kept to suggest a --map when a field is missing
_SAMPLE_RECORDS = 8  # how many records as read are kept to try a suggested --map on


class FileSource:
    """Records from one file (a base for readers of files: ``chunks`` is theirs). ``field_map`` is
    applied to each record as read; ``seen_fields`` holds the field paths of the first records as read
    and ``sample`` the first few records themselves (for hints when a metric finds a field missing,
    tried on the sample)."""

    def __init__(self, path: str | os.PathLike[str], field_map: FieldMap | None = None) -> None:
        self.path = Path(os.fspath(path))
        self.name = os.fspath(path)
        self.field_map = field_map
        self.seen_fields: set[str] = set()
        self.sample: list[Any] = []

    def inputs(self) -> list[Path]:
        return [self.path]

    def fingerprint(self) -> dict[str, Any]:
        return file_fingerprint(self.path)

    def total(self) -> int | None:
        return None

    def remember(self, data: Any) -> None:
        """Keep a copy of a record as read in ``sample`` (the first few, to try a suggested ``--map`` on)."""
        keep(self.sample, data)


class JsonlSource(FileSource):
    """Records from a JSONL file, read in chunks; ``bytes_read`` says how far reading has come."""

    def __init__(self, path: str | os.PathLike[str], field_map: FieldMap | None = None) -> None:
        super().__init__(path, field_map)
        self.bytes_read = 0

    def size(self) -> int | None:
        """The file's size in bytes (how much there is to read), when it can be known."""
        try:
            return self.path.stat().st_size
        except OSError:
            return None

    def chunks(self, size: int) -> Iterator[Chunk]:
        index = position = start = 0
        records: list[Record] = []
        positions: list[int] = []
        errors: list[InputError] = []
        handle = open_lines(self.path)
        self.bytes_read = 0
        n_read = 0
        for source, lineno, value in iter_json_lines(self.path, handle):
            if position == 0 and type(value) is not dict:
                _refuse_other_formats(self)
            if type(value) is not dict and isinstance(value, InputError):
                errors.append(value)
            else:
                try:
                    if n_read < _SEEN_RECORDS:
                        self.seen_fields.update(field_paths(value))
                        keep(self.sample, value)
                    if self.field_map is not None:
                        value = self.field_map.apply(value, source)
                    records.append(parse_record(value, source, lineno, owned=True))
                    positions.append(position)
                    n_read += 1
                except InputError as exc:
                    errors.append(exc)
                except RecursionError:
                    errors.append(InputError("value nested too deeply", source=source))
            position += 1
            if position - start >= size:  # each line read is a record or an error
                self.bytes_read = handle.tell()
                yield Chunk(index, records, positions, errors)
                index, start, records, positions, errors = index + 1, position, [], [], []
        if position == 0:
            raise InputError("no records: the file is empty; expected JSON lines, one record object per line",
                             source=self.name)
        self.bytes_read = self.size() or 0
        if position > start:
            yield Chunk(index, records, positions, errors)


def keep(sample: list[Any], data: Any) -> None:
    """Add a copy of ``data`` (a record as read) to ``sample`` until it holds :data:`_SAMPLE_RECORDS`."""
    if len(sample) < _SAMPLE_RECORDS:
        sample.append(copy.deepcopy(data))


def _refuse_other_formats(source: JsonlSource) -> None:
    """A file whose first line is not a JSON object may be something else than JSON lines (a JSON
    array, CSV, a TREC file, a report): then it is refused whole, saying what it looks like."""
    from .sniff import not_records

    message = not_records(source.path)
    if message is not None:
        raise InputError(message, source=source.name)


class DataSource:
    """Records from Python objects (:class:`Record` instances or record dicts), each mapped by
    ``field_map`` when given; ``seen_fields`` and ``sample`` as :class:`JsonlSource`'s."""

    def __init__(self, items: Iterable[Any], name: str | None = None, field_map: FieldMap | None = None) -> None:
        self.items = items
        self.name = name or "<data>"
        self.field_map = field_map
        self.seen_fields: set[str] = set()
        self.sample: list[Any] = []

    def inputs(self) -> list[Path]:
        return []

    def fingerprint(self) -> dict[str, Any]:
        digest = hashlib.sha256()
        for item in self.items:
            data = item.to_dict() if isinstance(item, Record) else item
            digest.update(dump_json(data, default=str, option=orjson.OPT_SORT_KEYS))
            digest.update(b"\n")
        return {"input": self.name, "sha256": digest.hexdigest()}

    def total(self) -> int | None:
        return len(self.items) if hasattr(self.items, "__len__") else None

    def chunks(self, size: int) -> Iterator[Chunk]:
        builder = ChunkBuilder(size)
        field_map = self.field_map
        for position, item in enumerate(self.items):
            if isinstance(item, Record) and field_map is not None:
                item = item.to_dict()
            if position < _SEEN_RECORDS:
                data = item.to_dict() if isinstance(item, Record) else item
                self.seen_fields.update(field_paths(data))
                keep(self.sample, data)
            if isinstance(item, Record):
                builder.add(attrs.evolve(item, example=dict(item.example), prediction=dict(item.prediction)),
                            position)
            else:
                try:
                    if field_map is not None:
                        item = field_map.apply(item, f"record {position}")
                except InputError as exc:
                    builder.reject(exc)
                else:
                    builder.add_dict(item, f"record {position}", position, default_id=str(position))
            if builder.full:
                yield builder.take()
        if builder.pending:
            yield builder.take()


class ChunkBuilder:
    """Records and rejected records gathered into chunks of ``size``: ``add`` / ``reject`` each, ``take``
    the chunk when ``full`` (and at the end while ``pending``)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.index = 0
        self._reset()

    def _reset(self) -> None:
        self.records: list[Record] = []
        self.positions: list[int] = []
        self.errors: list[InputError] = []

    def add(self, record: Record, position: int) -> None:
        self.records.append(record)
        self.positions.append(position)

    def reject(self, error: InputError) -> None:
        self.errors.append(error)

    def add_dict(self, data: Any, source: str, position: int, default_id: str | int) -> None:
        """Add the record dict ``data`` (read at ``source``, ``file:line``) once its shape and standard
        fields are checked, or its :class:`InputError` as a rejected record; ``default_id``: the id of a
        record without one."""
        try:
            self.add(parse_record(data, source, default_id), position)
        except InputError as exc:
            self.reject(exc)

    @property
    def full(self) -> bool:
        return len(self.records) + len(self.errors) >= self.size

    @property
    def pending(self) -> bool:
        return bool(self.records or self.errors)

    def take(self) -> Chunk:
        chunk = Chunk(self.index, self.records, self.positions, self.errors)
        self.index += 1
        self._reset()
        return chunk


def file_fingerprint(path: Path) -> dict[str, Any]:
    """Path, size and SHA-256 of a file."""
    try:
        with open(path, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256")
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=os.fspath(path)) from None
    return {"path": os.fspath(path.resolve()), "size": size, "sha256": digest.hexdigest()}


def stdin_source() -> JsonlSource:
    """Records from standard input (``-``), spooled to a temporary file so they can be hashed."""
    import atexit
    import tempfile

    spool = tempfile.NamedTemporaryFile(prefix="evalcore-stdin-", suffix=".jsonl", delete=False)  # noqa: SIM115
    with spool:
        while block := sys.stdin.buffer.read(1 << 20):
            spool.write(block)
    atexit.register(os.unlink, spool.name)
    source = JsonlSource(spool.name)
    source.name = "<stdin>"
    return source


publish(globals())
