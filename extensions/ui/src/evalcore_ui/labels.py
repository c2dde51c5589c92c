"""Annotation queues and their labels, in SQLite (WAL) or PostgreSQL: several annotators label at once.

A queue labels the records of one run, for a metric (the labels then estimate it: pass/fail as
1/0, a 1–N scale, or a number in its range) or by a free rubric (pass/fail, a 1–N scale,
categories); every label keeps who gave it, when, and an optional comment. A label given again
by the same annotator replaces theirs. Skipped records come back once the others are labelled.

A queue for a metric may be in ``active`` order (see :mod:`evalcore_ui.active`): its records are
drawn one at a time with recorded probabilities, and every draw is kept (queue, order, record,
probability, time) beside the labels. Each label is one row per queue, record and annotator (a
unique key, written in one transaction with the skip it ends); the draws of a queue are numbered
by one writer at a time.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
from evalcore.plugin import InputError

from .db import Database, connect

KINDS = ("pass_fail", "scale", "categories")
ORDERS = ("run", "active")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS queues (
    name TEXT PRIMARY KEY, run TEXT NOT NULL, metric TEXT, kind TEXT NOT NULL, scale INTEGER,
    categories TEXT, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS labels (
    queue TEXT NOT NULL, rid TEXT NOT NULL, annotator TEXT NOT NULL, label TEXT NOT NULL, comment TEXT,
    at TEXT NOT NULL, PRIMARY KEY (queue, rid, annotator));
CREATE TABLE IF NOT EXISTS skips (
    queue TEXT NOT NULL, rid TEXT NOT NULL, annotator TEXT NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (queue, rid, annotator));
CREATE TABLE IF NOT EXISTS draws (
    queue TEXT NOT NULL, seq INTEGER NOT NULL, rid TEXT NOT NULL, p DOUBLE PRECISION NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (queue, seq))
"""
_MAX_DRAWS = 10_000


@attrs.frozen
class Queue:
    """A queue: its name, the run it labels, the metric its labels are for (or ``None``), and its rubric."""

    name: str
    run: str
    metric: str | None
    kind: str
    scale: int | None = None
    categories: tuple[str, ...] = ()
    order: str = "run"

    def check(self, label: Any) -> str:
        """``label`` as stored (text), or an :class:`InputError` naming what the rubric takes."""
        text = str(label).strip()
        if self.kind == "categories":
            if text not in self.categories:
                raise InputError(f"{text!r} is none of the categories {', '.join(self.categories)}", field="label")
            return text
        allowed = ("0", "1") if self.kind == "pass_fail" else tuple(str(n) for n in range(1, (self.scale or 0) + 1))
        if text not in allowed:
            raise InputError(f"{text!r}: the {self.kind.replace('_', '/')} rubric takes {', '.join(allowed)}",
                             field="label")
        return text

    def to_dict(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "categories": list(self.categories)}


class LabelStore:
    """The queues and labels database at ``where`` (an SQLite file's path or a ``postgresql://`` URL);
    safe to share between the server's threads, and between servers sharing the database."""

    def __init__(self, where: str) -> None:
        self._db: Database = connect(where)
        with self._db.setting_up():
            self._db.script(_SCHEMA)
            columns = {column[0] for column in self._db.execute("SELECT * FROM queues LIMIT 0").description}
            if "ordering" not in columns:
                self._db.execute("ALTER TABLE queues ADD COLUMN ordering TEXT NOT NULL DEFAULT 'run'")
        self._lock = threading.Lock()

    def close(self) -> None:
        self._db.close()

    def open_queue(self, name: str, run: str, kind: str, metric: str | None = None, scale: int | None = None,
                   categories: Sequence[str] = (), order: str = "run") -> Queue:
        """Open (create) a queue; opening one that exists with the same rubric returns it. ``order``:
        ``run`` (record order) or ``active`` (drawn where a label narrows the metric's estimate most)."""
        if not name.strip():
            raise InputError("a queue needs a name", field="name")
        if kind not in KINDS:
            raise InputError(f"rubric {kind!r} is none of {', '.join(KINDS)}", field="kind")
        if kind == "scale" and not (isinstance(scale, int) and 2 <= scale <= 9):
            raise InputError("a scale rubric needs scale between 2 and 9 (labels 1..scale, one key each)",
                             field="scale")
        if order not in ORDERS:
            raise InputError(f"order {order!r} is none of {', '.join(ORDERS)}", field="order")
        if order == "active" and (not metric or kind == "categories"):
            raise InputError("active order needs a metric and labels that are numbers (pass/fail or a scale)",
                             field="order")
        cats = tuple(str(c).strip() for c in categories if str(c).strip())
        if kind == "categories" and not 2 <= len(set(cats)) == len(cats) <= 9:
            raise InputError("a categories rubric needs 2 to 9 distinct categories (one key each)",
                             field="categories")
        queue = Queue(name=name.strip(), run=run, metric=metric or None, kind=kind,
                      scale=scale if kind == "scale" else None, categories=cats if kind == "categories" else (),
                      order=order)
        with self._lock:  # the first to open it makes it; who opens it at the same time gets that one
            self._db.execute("INSERT INTO queues (name, run, metric, kind, scale, categories, created, ordering) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
                             (queue.name, run, queue.metric, kind, queue.scale, json.dumps(list(queue.categories)),
                              _now(), order))
            existing = self._queue(queue.name)
        if existing != queue:
            raise InputError("a queue of that name exists with another run or rubric", field="name")
        return queue

    def queues(self) -> list[Queue]:
        with self._lock:
            return [_queue(row) for row in self._db.execute("SELECT * FROM queues ORDER BY created")]

    def queue(self, name: str) -> Queue:
        with self._lock:
            found = self._queue(name)
        if found is None:
            raise InputError("no such queue", field=name)
        return found

    def label(self, queue: Queue, rid: str, annotator: str, label: Any, comment: str | None = None) -> None:
        """Keep ``annotator``'s ``label`` (checked against the rubric) of record ``rid``."""
        value = queue.check(label)
        who = _annotator(annotator)
        with self._lock, self._db.writing():
            self._db.execute("INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (queue, rid, annotator) "
                             "DO UPDATE SET label = excluded.label, comment = excluded.comment, at = excluded.at",
                             (queue.name, rid, who, value, comment or None, _now()))
            self._db.execute("DELETE FROM skips WHERE queue = ? AND rid = ? AND annotator = ?", (queue.name, rid, who))

    def skip(self, queue: Queue, rid: str, annotator: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO skips VALUES (?, ?, ?, ?) "
                             "ON CONFLICT (queue, rid, annotator) DO UPDATE SET at = excluded.at",
                             (queue.name, rid, _annotator(annotator), _now()))

    def next_record(self, queue: Queue, annotator: str, ids: Callable[[int], list[tuple[int, str]]]) -> str | None:
        """The next record for ``annotator``: the first in run order neither labelled nor skipped by
        them, else the first they skipped; ``None`` when they labelled every record.
        ``ids(after)`` gives the run's (position, id) pairs after a position."""
        who = _annotator(annotator)
        with self._lock:
            done = {r for (r,) in self._db.execute("SELECT rid FROM labels WHERE queue = ? AND annotator = ?",
                                                   (queue.name, who))}
            skipped = [r for (r,) in self._db.execute(
                "SELECT rid FROM skips WHERE queue = ? AND annotator = ? ORDER BY at", (queue.name, who))]
        passed = done | set(skipped)
        for rid in walk_ids(ids):
            if rid not in passed:
                return rid
        return skipped[0] if skipped else None

    def next_drawn(self, queue: Queue, annotator: str, draw: Callable[[], tuple[str, float]],
                   ids: Collection[str]) -> str | None:
        """The next record of an active queue for ``annotator``: the first drawn record nobody has
        labelled and they have not skipped, else a new draw from ``ids`` (recorded; a draw of a
        labelled record costs no label and is kept too), else the first drawn record they skipped;
        ``None`` when every record is labelled."""
        who = _annotator(annotator)
        with self._lock, self._db.writing("draws"):  # one writer numbers the draws at a time
            labelled = {r for (r,) in self._db.execute("SELECT rid FROM labels WHERE queue = ?", (queue.name,))}
            skipped = {r for (r,) in self._db.execute("SELECT rid FROM skips WHERE queue = ? AND annotator = ?",
                                                      (queue.name, who))}
            drawn = [r for (r,) in self._db.execute("SELECT rid FROM draws WHERE queue = ? ORDER BY seq",
                                                    (queue.name,))]
            waiting = [r for r in drawn if r not in labelled]
            for rid in waiting:
                if rid not in skipped:
                    return rid
            if all(rid in labelled or rid in skipped for rid in ids):
                return waiting[0] if waiting else None
            for _ in range(_MAX_DRAWS):
                rid, p = draw()
                self._db.execute("INSERT INTO draws VALUES (?, (SELECT coalesce(max(seq), -1) + 1 FROM draws "
                                 "WHERE queue = ?), ?, ?, ?)", (queue.name, queue.name, rid, p, _now()))
                if rid not in labelled and rid not in skipped:
                    return rid
                if rid not in labelled:
                    waiting.append(rid)
        return waiting[0] if waiting else None

    def draws(self, queue: Queue) -> list[tuple[str, float]]:
        """An active queue's draws in order: record and the probability it was drawn with."""
        with self._lock:
            return self._db.execute("SELECT rid, p FROM draws WHERE queue = ? ORDER BY seq", (queue.name,)).fetchall()

    def labels(self, queue: Queue) -> list[dict[str, Any]]:
        """Every label of the queue: record, annotator, label, comment, time, and in an active queue the
        probability ``p`` the record was drawn with."""
        with self._lock:
            rows = self._db.execute("SELECT l.rid, annotator, label, comment, l.at, "
                                    "(SELECT p FROM draws d WHERE d.queue = l.queue AND d.rid = l.rid LIMIT 1) "
                                    "FROM labels l WHERE l.queue = ? ORDER BY l.at", (queue.name,)).fetchall()
        found = [{"id": r, "annotator": a, "label": lab, "comment": c, "at": at, "p": p}
                 for r, a, lab, c, at, p in rows]
        if queue.order != "active":
            for item in found:
                del item["p"]
        return found

    def _queue(self, name: str) -> Queue | None:
        row = self._db.execute("SELECT * FROM queues WHERE name = ?", (name,)).fetchone()
        return _queue(row) if row is not None else None


def export_lines(queue: Queue, labels: Sequence[dict[str, Any]], annotator: str | None = None) -> Iterator[str]:
    """The queue's labels as the JSON lines ``--labels`` reads (``{"metric", "id", "label"}``): one
    annotator's, or per record the mean of every annotator's. Categories have no number, so they
    are refused, as is a queue for no metric."""
    if queue.metric is None:
        raise InputError("the queue labels no metric, and --labels needs one: open the queue for a metric",
                         field=queue.name)
    if queue.kind == "categories":
        raise InputError("categories are not numbers, and --labels takes numbers", field=queue.name)
    for rid, value in mean_labels(labels, annotator).items():
        yield json.dumps({"metric": queue.metric, "id": rid, "label": value}) + "\n"


def mean_labels(labels: Sequence[dict[str, Any]], annotator: str | None = None) -> dict[str, float]:
    """Each labelled record's label as a number: ``annotator``'s, or the mean of every annotator's."""
    by_record: dict[str, list[float]] = {}
    for item in labels:
        if annotator is None or item["annotator"] == annotator:
            by_record.setdefault(item["id"], []).append(float(item["label"]))
    return {rid: sum(values) / len(values) for rid, values in by_record.items()}


def walk_ids(ids: Callable[[int], list[tuple[int, str]]]) -> Iterator[str]:
    """Every record id, in run order, from ``ids(after)``: the (position, id) pairs after a position."""
    after = -1
    while batch := ids(after):
        yield from (rid for _, rid in batch)
        after = batch[-1][0]


def _queue(row: tuple[Any, ...]) -> Queue:
    name, run, metric, kind, scale, categories, _, order = row
    return Queue(name=name, run=run, metric=metric, kind=kind, scale=scale, categories=tuple(json.loads(categories)),
                 order=order)


def _annotator(name: str) -> str:
    who = (name or "").strip()
    if not who or len(who) > 100:
        raise InputError("give the annotator's name (1 to 100 characters)", field="annotator")
    return who


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
