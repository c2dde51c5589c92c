"""An SQLite index of a run's journal rows, so a page of records is a query, not a read of the journal.

The index keeps, per journal row, its record id, position, status and byte span in the journal
(the row itself is read from the journal when a record is opened), each metric's ``ok`` value,
and the slices the record's ``example.labels`` name (read from the run's input when it is still
the file the run read). It is built on first open and brought up to date from where it stopped
whenever the journal has grown (a run in progress); a journal that shrank or was replaced is
indexed again. A later row for the same record replaces the earlier (a resumed run).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import attrs
from evalcore.plugin import InputError

from .jsontext import loads

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, inode INTEGER, offset INTEGER NOT NULL,
    header BLOB, input TEXT, input_indexed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rows (
    file INTEGER NOT NULL, rid TEXT NOT NULL, i INTEGER NOT NULL, pos INTEGER NOT NULL, len INTEGER NOT NULL,
    status TEXT NOT NULL, PRIMARY KEY (file, rid));
CREATE INDEX IF NOT EXISTS rows_order ON rows (file, i);
CREATE TABLE IF NOT EXISTS vals (
    file INTEGER NOT NULL, metric TEXT NOT NULL, rid TEXT NOT NULL, value REAL, PRIMARY KEY (file, metric, rid));
CREATE INDEX IF NOT EXISTS vals_order ON vals (file, metric, value);
CREATE TABLE IF NOT EXISTS inputs (
    file INTEGER NOT NULL, rid TEXT NOT NULL, pos INTEGER NOT NULL, len INTEGER NOT NULL, PRIMARY KEY (file, rid));
CREATE TABLE IF NOT EXISTS slices (
    file INTEGER NOT NULL, rid TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS slices_find ON slices (file, key, value);
"""
_BATCH = 20_000
STATUSES = ("ok", "skipped", "error")


@attrs.frozen
class Page:
    """One page of a run's records: how many match, and each one's id, position, status and values."""

    total: int
    rows: list[dict[str, Any]]


class RowIndex:
    """The index database (``path``); safe to share between the server's threads."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    # -- building ------------------------------------------------------------------------

    def refresh(self, journal: str) -> int:
        """Index what ``journal`` gained since the last call; the number of records it holds."""
        with self._lock:
            file_id = self._file(journal)
            self._input(file_id)
            return int(self._db.execute("SELECT count(*) FROM rows WHERE file = ?", (file_id,)).fetchone()[0])

    def _file(self, journal: str) -> int:
        try:
            info = os.stat(journal)
        except OSError as exc:
            raise InputError(f"cannot read the run's journal: {exc.strerror or exc}", source=journal) from None
        found = self._db.execute("SELECT id, inode, offset FROM files WHERE path = ?", (journal,)).fetchone()
        if found is not None and (found[1] != info.st_ino or found[2] > info.st_size):
            self._drop(found[0])
            found = None
        if found is None:
            file_id = self._db.execute("INSERT INTO files (path, inode, offset) VALUES (?, ?, 0)",
                                       (journal, info.st_ino)).lastrowid
            offset = 0
        else:
            file_id, offset = found[0], found[2]
        if info.st_size > offset:
            self._read(int(file_id), journal, offset)
        return int(file_id)

    def _drop(self, file_id: int) -> None:
        for table in ("rows", "vals", "inputs", "slices"):
            self._db.execute(f"DELETE FROM {table} WHERE file = ?", (file_id,))  # noqa: S608 - fixed names
        self._db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def _read(self, file_id: int, journal: str, offset: int) -> None:
        with open(journal, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next refresh
        rows, vals, header = [], [], None
        start, count = 0, self._db.execute("SELECT count(*) FROM rows WHERE file = ?", (file_id,)).fetchone()[0]
        self._db.execute("BEGIN")
        try:
            while start < end:
                stop = data.index(b"\n", start)
                line = data[start:stop]
                position, start = offset + start, stop + 1
                try:
                    row = loads(line)
                except ValueError:
                    continue  # the engine refuses a damaged line on resume; the list shows what it can
                if not isinstance(row, Mapping):
                    continue
                if "evalcore_journal" in row:
                    header = line
                    continue
                scores = row.get("scores")
                if "id" not in row or not isinstance(scores, Mapping):
                    continue  # a checkpoint line
                rid = str(row["id"])
                order = row.get("i")
                rows.append((file_id, rid, order if isinstance(order, int) else count, position, len(line),
                             _status(scores)))
                count += 1
                vals.extend((file_id, metric, rid, _ok_value(score)) for metric, score in scores.items())
                if len(rows) >= _BATCH:
                    self._write(rows, vals)
                    rows, vals = [], []
            self._write(rows, vals)
            if header is not None:
                self._db.execute("UPDATE files SET header = ? WHERE id = ?", (header, file_id))
            self._db.execute("UPDATE files SET offset = ? WHERE id = ?", (offset + end, file_id))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _write(self, rows: list[tuple[Any, ...]], vals: list[tuple[Any, ...]]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?, ?, ?)", rows)
        self._db.executemany("INSERT OR REPLACE INTO vals VALUES (?, ?, ?, ?)", vals)

    def _input(self, file_id: int) -> None:
        """Index the positions and label slices of the run's input, once, where it is unchanged."""
        header, done = self._db.execute("SELECT header, input_indexed FROM files WHERE id = ?", (file_id,)).fetchone()
        if done or header is None:
            return
        path, sha = recorded_input(loads(header))
        if path is None or not os.path.isfile(path) or (sha is not None and _sha256(path) != sha):
            return
        self._db.execute("BEGIN")
        positions, slices = [], []
        for rid, position, length, labels in _input_lines(path):
            positions.append((file_id, rid, position, length))
            slices.extend((file_id, rid, str(k), v if isinstance(v, str) else str(v)) for k, v in labels.items())
        self._db.executemany("INSERT OR REPLACE INTO inputs VALUES (?, ?, ?, ?)", positions)
        self._db.executemany("INSERT INTO slices VALUES (?, ?, ?, ?)", slices)
        self._db.execute("UPDATE files SET input = ?, input_indexed = 1 WHERE id = ?", (path, file_id))
        self._db.execute("COMMIT")

    # -- reading -------------------------------------------------------------------------

    def page(self, journal: str, *, metric: str | None = None, low: float | None = None, high: float | None = None,
             status: str | None = None, label: tuple[str, str] | None = None, sort: str | None = None,
             descending: bool = False, offset: int = 0, limit: int = 50) -> Page:
        """The records of ``journal`` that pass the filters (``metric`` value within ``low``..``high``, a
        record ``status``, a ``label`` slice), ordered by ``sort`` (a metric; default: record order)."""
        if status is not None and status not in STATUSES:
            raise InputError(f"status {status!r} is none of {', '.join(STATUSES)}", field="status")
        with self._lock:
            file_id = self._file_id(journal)
            joins, where, args = [], ["r.file = ?"], [file_id]
            if metric is not None and (low is not None or high is not None):
                joins.append("JOIN vals f ON f.file = r.file AND f.rid = r.rid AND f.metric = ?")
                args.insert(0, metric)
                if low is not None:
                    where.append("f.value >= ?")
                    args.append(low)
                if high is not None:
                    where.append("f.value <= ?")
                    args.append(high)
            if status is not None:
                where.append("r.status = ?")
                args.append(status)
            if label is not None:
                where.append("r.rid IN (SELECT rid FROM slices WHERE file = ? AND key = ? AND value = ?)")
                args += [file_id, *label]
            order = "r.i"
            if sort is not None:
                joins.append("LEFT JOIN vals s ON s.file = r.file AND s.rid = r.rid AND s.metric = ?")
                args.insert(len(joins) - 1, sort)
                order = f"s.value IS NULL, s.value {'DESC' if descending else 'ASC'}, r.i"
            elif descending:
                order = "r.i DESC"
            base = f"FROM rows r {' '.join(joins)} WHERE {' AND '.join(where)}"
            total = self._db.execute(f"SELECT count(*) {base}", args).fetchone()[0]  # noqa: S608 - built from fixed parts
            found = self._db.execute(f"SELECT r.rid, r.i, r.status {base} ORDER BY {order} LIMIT ? OFFSET ?",  # noqa: S608
                                     [*args, limit, offset]).fetchall()
            values: dict[str, dict[str, float | None]] = {rid: {} for rid, _, _ in found}
            if found:
                marks = ",".join("?" * len(found))
                for rid, metric_id, value in self._db.execute(
                        f"SELECT rid, metric, value FROM vals WHERE file = ? AND rid IN ({marks})",  # noqa: S608
                        [file_id, *values]):
                    values[rid][metric_id] = value
        return Page(total=int(total), rows=[{"id": rid, "i": i, "status": st, "values": values[rid]}
                                            for rid, i, st in found])

    def row(self, journal: str, rid: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The journal row of record ``rid`` and its input record (``None`` where the input is not indexed)."""
        with self._lock:
            file_id = self._file_id(journal)
            found = self._db.execute("SELECT pos, len FROM rows WHERE file = ? AND rid = ?", (file_id, rid)).fetchone()
            if found is None:
                raise InputError("no such record in the run", field=rid)
            source = self._db.execute(
                "SELECT files.input, inputs.pos, inputs.len FROM inputs JOIN files ON files.id = inputs.file "
                "WHERE inputs.file = ? AND inputs.rid = ?", (file_id, rid)).fetchone()
        row = loads(_span(journal, *found))
        record = loads(_span(*source)) if source is not None else None
        return row, record if isinstance(record, dict) else None

    def metrics(self, journal: str) -> list[str]:
        """The metric ids of the journal's rows."""
        with self._lock:
            return [m for (m,) in self._db.execute("SELECT DISTINCT metric FROM vals WHERE file = ?",
                                                   (self._file_id(journal),))]

    def slices(self, journal: str) -> dict[str, list[str]]:
        """The label slices of the run's records: each label name with its values."""
        with self._lock:
            found: dict[str, list[str]] = {}
            for key, value in self._db.execute("SELECT DISTINCT key, value FROM slices WHERE file = ? "
                                               "ORDER BY key, value LIMIT 1000", (self._file_id(journal),)):
                found.setdefault(key, []).append(value)
        return found

    def ids(self, journal: str, after: int = -1, limit: int = 1000) -> list[tuple[int, str]]:
        """Positions and ids of the records after position ``after``, in record order."""
        with self._lock:
            return self._db.execute("SELECT i, rid FROM rows WHERE file = ? AND i > ? ORDER BY i LIMIT ?",
                                    (self._file_id(journal), after, limit)).fetchall()

    def _file_id(self, journal: str) -> int:
        found = self._db.execute("SELECT id FROM files WHERE path = ?", (journal,)).fetchone()
        if found is None:
            raise InputError("the run's journal is not indexed yet", source=journal)
        return int(found[0])


def recorded_input(header: Any) -> tuple[str | None, str | None]:
    """The input path and SHA-256 a journal header's fingerprint names (``None`` where it names none)."""
    fingerprint = header.get("fingerprint") if isinstance(header, Mapping) else None
    source = fingerprint.get("input") if isinstance(fingerprint, Mapping) else None
    if isinstance(source, Mapping) and isinstance(source.get("path"), str):
        sha = source.get("sha256")
        return source["path"], sha if isinstance(sha, str) else None
    return None, None


def _input_lines(path: str) -> Iterator[tuple[str, int, int, Mapping[str, Any]]]:
    position = 0
    with open(path, "rb") as handle:
        for number, line in enumerate(handle):
            length = len(line)
            try:
                item = loads(line)
            except ValueError:
                item = None
            if isinstance(item, Mapping):
                example = item.get("example")
                labels = example.get("labels") if isinstance(example, Mapping) else None
                yield (str(item.get("id", number)), position, length,
                       labels if isinstance(labels, Mapping) else {})
            position += length


def _span(path: str, position: int, length: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(position)
        return handle.read(length)


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _status(scores: Mapping[str, Any]) -> str:
    found = {s.get("status", "ok") if isinstance(s, Mapping) else "ok" for s in scores.values()}
    return "error" if "error" in found else "skipped" if "skipped" in found else "ok"


def _ok_value(score: Any) -> float | None:
    if not isinstance(score, Mapping):
        return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
    value = score.get("value")
    if score.get("status", "ok") != "ok" or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value else None
