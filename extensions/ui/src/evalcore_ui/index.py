"""An index of a run's journal rows (SQLite or PostgreSQL), so a page of records is a query, not a read of the journal.

Each journal gets its own table: one line per record, keyed by the record's position, with its id,
status, byte span in the journal (the row itself is read from the journal when a record is
opened) and per metric a column holding its ``ok`` value, indexed for sorting and ranges, and one
holding the judge's uncertainty about it (``evalcore_ui.active.uncertainty``, what a queue in
active order draws by), read in the same pass. The run's input, when it is still the file the run
read, adds each record's byte span in it and the slices its ``example.labels`` name (each slice
entry keeps the record's position, so a page of a slice walks the slice's index in record order).
The index is built on first open and brought up to date from where it stopped whenever the journal
has grown (a run in progress); a journal that shrank or was replaced is indexed again. A later row
for the same record replaces the earlier (a resumed run).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import attrs
from evalcore.plugin import InputError

from .active import uncertainty
from .db import Database, connect, layout, set_layout
from .jsontext import loads

_FILES = """
CREATE TABLE IF NOT EXISTS files (
    id {serial}, path TEXT UNIQUE NOT NULL, inode BIGINT, "offset" BIGINT NOT NULL,
    metrics TEXT NOT NULL DEFAULT '[]', header TEXT, input TEXT, input_indexed INTEGER NOT NULL DEFAULT 0,
    slices TEXT NOT NULL DEFAULT '{{}}', records BIGINT NOT NULL DEFAULT 0)
"""
_TABLES = """
CREATE TABLE rows_{n} (i {key}, rid TEXT NOT NULL, status TEXT NOT NULL, pos BIGINT NOT NULL, len BIGINT NOT NULL);
CREATE UNIQUE INDEX rows_{n}_rid ON rows_{n} (rid);
CREATE TABLE inputs_{n} (rid TEXT PRIMARY KEY, pos BIGINT, len BIGINT){by_key};
CREATE TABLE slices_{n} (key TEXT NOT NULL, value TEXT NOT NULL, rid TEXT NOT NULL, i BIGINT,
                         PRIMARY KEY (rid, key)){by_key}
"""
_PER_JOURNAL = ("rows", "inputs", "slices")
_BATCH = 20_000
_VERSION = 3
"""The index's layout; an index of another is built again (it is derived from the journals alone)."""
STATUSES = ("ok", "skipped", "error")


@attrs.frozen
class Page:
    """One page of a run's records: how many match, and each one's id, position, status and values."""

    total: int
    rows: list[dict[str, Any]]


class RowIndex:
    """The index database at ``where`` (an SQLite file's path or a ``postgresql://`` URL); safe to
    share between the server's threads, and between servers sharing a PostgreSQL database."""

    def __init__(self, where: str) -> None:
        self._db: Database = connect(where)
        self._sql = self._db.dialect
        with self._db.setting_up():
            if layout(self._db, "index") != _VERSION:  # an index of another layout (or none)
                for table in self._db.tables():
                    if table == "files" or table.partition("_")[0] in _PER_JOURNAL and table[-1].isdigit():
                        self._db.execute(f'DROP TABLE "{table}"')
                set_layout(self._db, "index", _VERSION)
            self._db.execute(_FILES.format(serial=self._sql.serial))
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    # -- building ------------------------------------------------------------------------

    def refresh(self, journal: str) -> int:
        """Index what ``journal`` gained since the last call; the number of records it holds."""
        with self._lock:
            with self._db.writing("files"):
                before = self._db.execute("SELECT id, input_indexed FROM files WHERE path = ?", (journal,)).fetchone()
                file_id = self._file(journal)
                self._input(file_id)
                records, indexed = self._db.execute("SELECT records, input_indexed FROM files WHERE id = ?",
                                                    (file_id,)).fetchone()
            if self._sql.vacuum and (before is None or tuple(before) != (file_id, indexed)):  # after a bulk load
                self._db.execute(f"VACUUM ANALYZE rows_{file_id}, slices_{file_id}")
            return int(records)

    def _file(self, journal: str) -> int:
        try:
            info = os.stat(journal)
        except OSError as exc:
            raise InputError(f"cannot read the run's journal: {exc.strerror or exc}", source=journal) from None
        found = self._db.execute('SELECT id, inode, "offset" FROM files WHERE path = ?', (journal,)).fetchone()
        if found is not None and (found[1] != info.st_ino or found[2] > info.st_size):
            self._drop(found[0])
            found = None
        if found is None:
            file_id = int(self._db.execute('INSERT INTO files (path, inode, "offset") VALUES (?, ?, 0) RETURNING id',
                                           (journal, info.st_ino)).fetchone()[0])
            self._db.script(_TABLES.format(n=file_id, key=self._sql.key, by_key=self._sql.by_key))
            offset = 0
        else:
            file_id, offset = int(found[0]), found[2]
        if info.st_size > offset:
            self._read(file_id, journal, offset)
        return file_id

    def _drop(self, file_id: int) -> None:
        for table in _PER_JOURNAL:
            self._db.execute(f"DROP TABLE IF EXISTS {table}_{file_id}")
        self._db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def _read(self, file_id: int, journal: str, offset: int) -> None:
        with open(journal, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next refresh
        metrics = self._metrics(file_id)
        columns = {m: n for n, m in enumerate(metrics)}
        fresh = not metrics
        count = self._db.execute(f"SELECT count(*) FROM rows_{file_id}").fetchone()[0]  # noqa: S608
        batch: list[tuple[Any, ...]] = []
        start = 0
        linked = bool(self._db.execute("SELECT input_indexed FROM files WHERE id = ?", (file_id,)).fetchone()[0])
        flush = lambda: self._flush(file_id, len(columns), batch, linked)  # noqa: E731
        while start < end:
            stop = data.index(b"\n", start)
            line = data[start:stop]
            position, start = offset + start, stop + 1
            try:
                row = loads(line)
            except ValueError:
                continue  # the engine refuses a damaged line on resume; the list shows what it can
            if type(row) is not dict:
                continue
            if "evalcore_journal" in row:
                self._db.execute("UPDATE files SET header = ? WHERE id = ?",
                                 (line.decode("utf-8", "replace"), file_id))
                for metric in row.get("metrics") or {}:
                    self._add_metric(file_id, columns, str(metric))
                continue
            scores = row.get("scores")
            if "id" not in row or type(scores) is not dict:
                continue  # a checkpoint line
            new = [m for m in scores if m not in columns]
            if new:
                flush()
                for metric in new:
                    self._add_metric(file_id, columns, metric)
            values: list[float | None] = [None] * (2 * len(columns))  # each metric's value and uncertainty
            status = "ok"
            for metric, score in scores.items():
                value, state = _ok_value(score)
                if value is not None:
                    values[2 * columns[metric]: 2 * columns[metric] + 2] = value, uncertainty(score)
                if state != "ok" and status != "error":
                    status = state
            order = row.get("i")
            batch.append((order if type(order) is int else count, str(row["id"]), status, position, len(line),
                          *values))
            count += 1
            if len(batch) >= _BATCH:
                flush()
        flush()
        if fresh:
            for n in range(len(columns)):
                self._db.execute(f"CREATE INDEX IF NOT EXISTS rows_{file_id}_m{n} ON rows_{file_id} (m{n})")
            self._db.execute(f"CREATE INDEX IF NOT EXISTS rows_{file_id}_status ON rows_{file_id} (status)")
        self._db.execute(f'UPDATE files SET "offset" = ?, metrics = ?, records = (SELECT count(*) FROM rows_{file_id}) '
                         "WHERE id = ?", (offset + end, json.dumps(list(columns)), file_id))

    def _add_metric(self, file_id: int, columns: dict[str, int], metric: str) -> None:
        if metric in columns:
            return
        n = columns[metric] = len(columns)
        self._db.execute(f"ALTER TABLE rows_{file_id} ADD COLUMN m{n} DOUBLE PRECISION")
        self._db.execute(f"ALTER TABLE rows_{file_id} ADD COLUMN u{n} DOUBLE PRECISION")
        if self._db.execute(f"SELECT count(*) FROM rows_{file_id}").fetchone()[0]:  # noqa: S608
            self._db.execute(f"CREATE INDEX rows_{file_id}_m{n} ON rows_{file_id} (m{n})")

    def _flush(self, file_id: int, width: int, batch: list[tuple[Any, ...]], linked: bool) -> None:
        """Keep ``batch``'s rows (a later row of a record replaces its earlier one); where the input's
        slices are indexed (``linked``), give them the rows' positions."""
        if not batch:
            return
        columns = ["i", "status", "pos", "len", *(f"{c}{n}" for n in range(width) for c in "mu")]
        update = ", ".join(f"{c} = excluded.{c}" for c in columns)
        # one statement changes a row once
        latest = {row[1]: row + (None,) * (5 + 2 * width - len(row)) for row in batch}
        self._db.insert(f"rows_{file_id}", ["rid", *columns], [(r[1], r[0], *r[2:]) for r in latest.values()],
                        f"ON CONFLICT (rid) DO UPDATE SET {update}")
        if linked:
            self._db.executemany(f"UPDATE slices_{file_id} SET i = ? WHERE rid = ?",  # noqa: S608
                                 [row[:2] for row in batch])
        batch.clear()

    def _input(self, file_id: int) -> None:
        """Index the positions and label slices of the run's input, once, where it is unchanged."""
        header, done = self._db.execute("SELECT header, input_indexed FROM files WHERE id = ?", (file_id,)).fetchone()
        if done or header is None:
            return
        path, sha = recorded_input(loads(header))
        if path is None or not os.path.isfile(path) or (sha is not None and _sha256(path) != sha):
            return
        positions, slices = [], []
        for rid, position, length, labels in _input_lines(path):
            positions.append((rid, position, length))
            slices.extend((str(k), v if isinstance(v, str) else json.dumps(v), rid) for k, v in labels.items())
        self._db.insert(f"inputs_{file_id}", ["rid", "pos", "len"], list({p[0]: p for p in positions}.values()),
                        "ON CONFLICT (rid) DO UPDATE SET pos = excluded.pos, len = excluded.len")
        self._db.insert(f"slices_{file_id}", ["key", "value", "rid"], list({s[::2]: s for s in slices}.values()),
                        "ON CONFLICT DO NOTHING")
        self._db.execute(f"UPDATE slices_{file_id} SET i = r.i FROM rows_{file_id} r "  # noqa: S608
                         f"WHERE r.rid = slices_{file_id}.rid")
        self._db.execute(f"CREATE INDEX slices_{file_id}_i ON slices_{file_id} (key, value, i)")
        found: dict[str, list[str]] = {}
        for key, value in self._db.execute(f"SELECT DISTINCT key, value FROM slices_{file_id} "  # noqa: S608
                                           "ORDER BY key, value LIMIT 1000"):
            found.setdefault(key, []).append(value)
        self._db.execute("UPDATE files SET input = ?, input_indexed = 1, slices = ? WHERE id = ?",
                         (path, json.dumps(found), file_id))

    # -- reading -------------------------------------------------------------------------

    def page(self, journal: str, *, metric: str | None = None, low: float | None = None, high: float | None = None,
             status: str | None = None, label: tuple[str, str] | None = None, sort: str | None = None,
             descending: bool = False, offset: int = 0, limit: int = 50) -> Page:
        """The records of ``journal`` that pass the filters (``metric`` value within ``low``..``high``, a
        record ``status``, a ``label`` slice), ordered by ``sort`` (a metric, records without a value
        last; default: record order)."""
        if status is not None and status not in STATUSES:
            raise InputError(f"status {status!r} is none of {', '.join(STATUSES)}", field="status")
        with self._lock:
            file_id = self._file_id(journal)
            metrics = self._metrics(file_id)
            source, where, args, position = f"rows_{file_id} r", ["TRUE"], [], "r.i"
            if label is not None:  # the slice's entries in record order (its index), each joined to its row
                source += f" JOIN slices_{file_id} s ON s.i = r.i AND s.key = ? AND s.value = ?"
                args += list(label)
                position = "s.i"
            if metric is not None and (low is not None or high is not None):
                column = _column(metrics, metric, "metric")
                for bound, sign in ((low, ">="), (high, "<=")):
                    if bound is not None:
                        where.append(f"r.{column} {sign} ?")
                        args.append(bound)
            if status is not None:
                where.append("r.status = ?")
                args.append(status)
            test = " AND ".join(where)
            if label is None and len(where) == 1:  # every record: counted when indexed
                total = self._db.execute("SELECT records FROM files WHERE id = ?", (file_id,)).fetchone()[0]
            elif label is not None and len(where) == 1:  # the slice alone: counted in its index
                total = self._db.execute(f"SELECT count(i) FROM slices_{file_id} "  # noqa: S608
                                         "WHERE key = ? AND value = ?", label).fetchone()[0]
            else:
                total = self._db.execute(f"SELECT count(*) FROM {source} WHERE {test}", args).fetchone()[0]  # noqa: S608
            shown = ", ".join(["r.i", "r.rid", "r.status", *(f"r.m{n}" for n in range(len(metrics)))])
            if sort is None:
                found = self._db.execute(f"SELECT {shown} FROM {source} WHERE {test} "  # noqa: S608
                                         f"ORDER BY {position} {'DESC' if descending else ''} LIMIT ? OFFSET ?",
                                         [*args, limit, offset]).fetchall()
            else:
                found = self._sorted(source, shown, test, args, "r." + _column(metrics, sort, "sort"), position,
                                     descending, offset, limit)
        return Page(total=int(total), rows=[{"id": rid, "i": i, "status": st, "values": dict(zip(metrics, vals,
                                                                                                  strict=True))}
                                            for i, rid, st, *vals in found])

    def _sorted(self, source: str, shown: str, test: str, args: list[Any], column: str, position: str,
                descending: bool, offset: int, limit: int) -> list[tuple[Any, ...]]:
        """Records with a value ordered by it (through its index), then those without, in record order
        (``position``)."""
        valued = f"{test} AND {column} IS NOT NULL"
        found = self._db.execute(f"SELECT {shown} FROM {source} WHERE {valued} "  # noqa: S608
                                 f"ORDER BY {column} {'DESC' if descending else 'ASC'}, {position} LIMIT ? OFFSET ?",
                                 [*args, limit, offset]).fetchall()
        if len(found) < limit:
            before = offset if found else max(0, offset - self._db.execute(
                f"SELECT count(*) FROM {source} WHERE {valued}", args).fetchone()[0])  # noqa: S608
            found += self._db.execute(f"SELECT {shown} FROM {source} WHERE {test} AND {column} IS NULL "  # noqa: S608
                                      f"ORDER BY {position} LIMIT ? OFFSET ?",
                                      [*args, limit - len(found), 0 if found else before]).fetchall()
        return found

    def row(self, journal: str, rid: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The journal row of record ``rid`` and its input record (``None`` where the input is not indexed)."""
        with self._lock:
            file_id = self._file_id(journal)
            found = self._db.execute(f"SELECT pos, len FROM rows_{file_id} WHERE rid = ?", (rid,)).fetchone()  # noqa: S608
            if found is None:
                raise InputError("no such record in the run", field=rid)
            source = self._db.execute(f"SELECT files.input, i.pos, i.len FROM inputs_{file_id} i "  # noqa: S608
                                      "JOIN files ON files.id = ? WHERE i.rid = ?", (file_id, rid)).fetchone()
        row = loads(_span(journal, *found))
        record = loads(_span(*source)) if source is not None else None
        return row, record if isinstance(record, dict) else None

    def judged(self, journal: str, metric: str) -> list[tuple[str, float, float | None]]:
        """Id, ``ok`` value of ``metric`` and the judge's uncertainty about it, of each record with a
        value, in record order."""
        with self._lock:
            file_id = self._file_id(journal)
            metrics = self._metrics(file_id)
            if metric not in metrics:
                return []
            n = metrics.index(metric)
            return self._db.execute(f"SELECT rid, m{n}, u{n} FROM rows_{file_id} "  # noqa: S608
                                    f"WHERE m{n} IS NOT NULL ORDER BY i").fetchall()

    def metrics(self, journal: str) -> list[str]:
        """The metric ids of the journal's rows."""
        with self._lock:
            return self._metrics(self._file_id(journal))

    def slices(self, journal: str) -> dict[str, list[str]]:
        """The label slices of the run's records: each label name with its values."""
        with self._lock:
            found = self._db.execute("SELECT slices FROM files WHERE id = ?", (self._file_id(journal),)).fetchone()
        return json.loads(found[0])

    def ids(self, journal: str, after: int = -1, limit: int = 1000) -> list[tuple[int, str]]:
        """Positions and ids of the records after position ``after``, in record order."""
        with self._lock:
            return self._db.execute(f"SELECT i, rid FROM rows_{self._file_id(journal)} WHERE i > ? "  # noqa: S608
                                    "ORDER BY i LIMIT ?", (after, limit)).fetchall()

    def _metrics(self, file_id: int) -> list[str]:
        return json.loads(self._db.execute("SELECT metrics FROM files WHERE id = ?", (file_id,)).fetchone()[0])

    def _file_id(self, journal: str) -> int:
        found = self._db.execute("SELECT id FROM files WHERE path = ?", (journal,)).fetchone()
        if found is None:
            raise InputError("the run's journal is not indexed yet", source=journal)
        return int(found[0])


def recorded_input(header: Any) -> tuple[str | None, str | None]:
    """The input path and SHA-256 a journal header's fingerprint names (``None`` where it names none)."""
    fingerprint = header.get("fingerprint") if isinstance(header, dict) else None
    source = fingerprint.get("input") if isinstance(fingerprint, dict) else None
    if isinstance(source, dict) and isinstance(source.get("path"), str):
        sha = source.get("sha256")
        return source["path"], sha if isinstance(sha, str) else None
    return None, None


def _column(metrics: list[str], metric: str, field: str) -> str:
    if metric not in metrics:
        raise InputError(f"the run has no metric {metric!r}", field=field)
    return f"m{metrics.index(metric)}"


def _input_lines(path: str) -> Iterator[tuple[str, int, int, dict[str, Any]]]:
    position = 0
    with open(path, "rb") as handle:
        for number, line in enumerate(handle):
            length = len(line)
            try:
                item = loads(line)
            except ValueError:
                item = None
            if type(item) is dict:
                example = item.get("example")
                labels = example.get("labels") if type(example) is dict else None
                yield str(item.get("id", number)), position, length, labels if type(labels) is dict else {}
            position += length


def _span(path: str, position: int, length: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(position)
        return handle.read(length)


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _ok_value(score: Any) -> tuple[float | None, str]:
    """A score's value where its status is ``ok`` (else ``None``), and its status."""
    if type(score) is not dict:
        ok = type(score) in (int, float)
        return (float(score) if ok else None), "ok"
    status = score.get("status", "ok")
    value = score.get("value")
    if status != "ok" or type(value) not in (int, float) or value != value:
        return None, status
    return float(value), status
