"""A history of saved runs: the JSON reports under a folder, optionally indexed in SQLite.

A run is a JSON report written by ``evalcore evaluate -o result.json``, recognised by its content
(an object with ``"metrics"`` and ``"provenance"`` objects) wherever it lies under the folder;
folders whose names start with a dot are not searched. A run's time is the start time its
report records (``provenance.started``), else the file's modification time. A run's fingerprint
is the SHA-256 of its report without the journal's location, so one run found twice (a copy, a
re-scan) is one run. A run's name is its file stem; where stems collide, as many parent folders
as tell them apart.

The store is a SQLite database (the standard library's :mod:`sqlite3`): each scan adds the runs
it has not seen, by fingerprint, and listing the store needs no folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import attrs
from evalcore.plugin import InputError

PathLike = str | os.PathLike[str]
_STORE_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    fingerprint TEXT PRIMARY KEY, path TEXT NOT NULL, started TEXT NOT NULL, time_source TEXT NOT NULL,
    input TEXT, n_records INTEGER);
CREATE TABLE IF NOT EXISTS metrics (
    fingerprint TEXT NOT NULL REFERENCES runs (fingerprint), metric TEXT NOT NULL, value REAL,
    ci_low REAL, ci_high REAL, n INTEGER, metric_version TEXT, PRIMARY KEY (fingerprint, metric));
"""


@attrs.frozen
class RunMetric:
    """One metric's aggregate in a run: value, 95 % interval (or ``None``), records and metric version."""

    value: float | None
    ci: tuple[float, float] | None
    n: int
    metric_version: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci": list(self.ci) if self.ci else None, "n": self.n,
                "metric_version": self.metric_version}


@attrs.frozen
class RunRecord:
    """One saved run of a history: its name, report file, time, input and metric aggregates.

    ``time_source`` says where ``when`` (UTC) comes from: ``"started"`` (recorded in the report)
    or ``"mtime"`` (the file's modification time)."""

    name: str
    path: str
    when: datetime
    time_source: str
    input: str | None
    n_records: int | None
    fingerprint: str
    metrics: dict[str, RunMetric]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "when": iso_time(self.when), "time_source": self.time_source,
                "input": self.input, "n_records": self.n_records, "fingerprint": self.fingerprint,
                "metrics": {k: v.to_dict() for k, v in self.metrics.items()}}


@attrs.frozen
class TrendPoint:
    """One run's value of the followed metric: metric id, run name, time, value, interval, records,
    metric version, report file and input."""

    metric: str
    run: str
    when: datetime
    value: float | None
    ci: tuple[float, float] | None
    n: int
    metric_version: str | None
    path: str
    input: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "run": self.run, "when": iso_time(self.when), "value": self.value,
                "ci": list(self.ci) if self.ci else None, "n": self.n, "metric_version": self.metric_version,
                "path": self.path, "input": self.input}


def runs(folder: PathLike | None = None, *, store: PathLike | None = None) -> list[RunRecord]:
    """The runs under ``folder`` (JSON reports, searched recursively), oldest first.

    With ``store``, the runs found are added to that SQLite database first (those it holds
    already, by fingerprint, are left as they are) and every run it holds is returned; with a
    ``store`` alone, nothing is searched.
    """
    if folder is None and store is None:
        raise InputError("give a folder to search, a store, or both")
    found = _scan(folder) if folder is not None else []
    if store is None:
        return _named(found)
    where = os.fspath(store)
    with _open_store(store, create=folder is not None) as db:
        try:
            if found:
                _add(db, found)
            return _named(_read_store(db, where))
        except sqlite3.DatabaseError as exc:
            raise InputError(f"a damaged run store: {exc}", source=where) from None


def trend(folder: PathLike | None, metric_id: str, *, store: PathLike | None = None) -> list[TrendPoint]:
    """``metric_id``'s value in each run of the history that has it, oldest first.

    ``metric_id`` is the id as the reports write it (``retrieval/ndcg@10``) or, when only one
    metric of the history has it, the part after the namespace (``ndcg@10``).
    """
    history = runs(folder, store=store)
    metric = _metric_in(history, metric_id, folder if folder is not None else store)
    return [TrendPoint(metric=metric, run=r.name, when=r.when, value=m.value, ci=m.ci, n=m.n,
                       metric_version=m.metric_version, path=r.path, input=r.input)
            for r in history if (m := r.metrics.get(metric)) is not None]


def find_run(history: Sequence[RunRecord], name: str, where: PathLike) -> RunRecord:
    """The run called ``name`` (or whose file stem it is), or the only one whose name or stem starts
    with it; an :class:`InputError` naming the candidates when none or several do."""
    exact = [r for r in history if r.name == name] or [r for r in history if _stem(r.path) == name]
    matches = exact or [r for r in history if r.name.startswith(name) or _stem(r.path).startswith(name)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        known = ", ".join(r.name for r in history[-10:]) or "none"
        raise InputError(f"no run named {name!r} ({'latest ' if len(history) > 10 else ''}runs: {known})",
                         source=os.fspath(where))
    _ambiguous(name, [r.name for r in matches], where)


def locate_runs(refs: Sequence[str], history: PathLike | None) -> list[str]:
    """The report file each of ``refs`` means: a file path as it is, else a run name (or unambiguous
    prefix) in ``history`` (a folder of runs, or a store file), which is read once."""
    records: list[RunRecord] | None = None
    paths = []
    for ref in refs:
        if os.path.isfile(ref):
            paths.append(ref)
            continue
        if _special(ref):
            raise InputError("is not a regular file (a FIFO, device or socket); a run is a JSON report or journal "
                             "file", source=ref)
        if history is None:
            raise InputError("no such file (to name a run of a history, give the history's folder or store)",
                             source=ref)
        if records is None:
            records = runs(history) if os.path.isdir(history) else runs(store=history)
        paths.append(find_run(records, ref, history).path)
    return paths


def _scan(folder: PathLike) -> list[RunRecord]:
    """The runs under ``folder``, oldest first; a run found twice is kept once (the first path)."""
    root = os.fspath(folder)
    if not os.path.isdir(root):
        raise InputError("no such folder", source=root)
    found: dict[str, tuple[RunRecord, int]] = {}
    for path in sorted(_json_files(root)):
        report = _report_at(path)
        if report is None:
            continue
        mtime_ns = os.stat(path).st_mtime_ns
        record = _record(os.path.abspath(path), report, mtime_ns)
        found.setdefault(record.fingerprint, (record, mtime_ns))
    ordered = sorted(found.values(), key=lambda item: (item[0].when, item[1], item[0].path))
    return [record for record, _ in ordered]


def iso_time(when: datetime) -> str:
    """``when`` in ISO 8601 with a ``Z`` for UTC."""
    return when.isoformat().replace("+00:00", "Z")


# -- reading reports ---------------------------------------------------------------


def _stem(path: str) -> str:
    """A report's file name without ``.json`` / ``.jsonl``."""
    return re.sub(r"\.jsonl?$", "", os.path.basename(path))


def _json_files(root: str) -> Iterator[str]:
    """The regular ``.json`` files under ``root``: a FIFO, device or socket is never opened (reading
    one would wait for a writer forever)."""
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        yield from (path for path in (os.path.join(folder, f) for f in files if f.endswith(".json"))
                    if not _special(path))


def _special(path: str) -> bool:
    """Whether ``path`` is a FIFO, device or socket (links followed): neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _report_at(path: str) -> dict[str, Any] | None:
    """The report in ``path``, or ``None`` when the file is not one (a file that does not start with
    ``{``, such as a JSON array of data, is not read further)."""
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read(4096).lstrip()[:1] != "{":
                return None
            handle.seek(0)
            data = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):  # RecursionError: nested too deeply
        return None
    if not (isinstance(data, dict) and isinstance(data.get("metrics"), dict)
            and isinstance(data.get("provenance"), dict)
            and all(isinstance(m, dict) and "value" in m for m in data["metrics"].values())):
        return None
    return data


def _record(path: str, report: Mapping[str, Any], mtime_ns: int) -> RunRecord:
    provenance = report["provenance"]
    started = _started(provenance.get("started"))
    when = started or datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC)
    identity = {k: v for k, v in report.items() if k != "samples_file"}
    fingerprint = hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":"),
                                            ensure_ascii=False, default=str).encode("utf-8")).hexdigest()
    n_records = provenance.get("n_records")
    return RunRecord(
        name=_stem(path), path=path, when=when, time_source="started" if started else "mtime",
        input=_text(provenance.get("input")), n_records=n_records if isinstance(n_records, int) else None,
        fingerprint=fingerprint, metrics={str(k): _metric(v) for k, v in report["metrics"].items()})


def _started(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def _metric(summary: Mapping[str, Any]) -> RunMetric:
    ci = summary.get("ci")
    interval = (float(ci[0]), float(ci[1])) if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(
        _is_number(c) for c in ci) else None
    value, n = summary.get("value"), summary.get("n")
    return RunMetric(value=float(value) if _is_number(value) else None, ci=interval,
                     n=n if isinstance(n, int) else 0, metric_version=_text(summary.get("metric_version")))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


# -- names and metrics ---------------------------------------------------------------


def _named(records: Sequence[RunRecord]) -> list[RunRecord]:
    """Each record named by its file stem, or with as many parent folders as tell colliding stems
    apart (then ``@`` and the fingerprint's start, for one file that held several runs)."""
    parts = [Path(r.path).with_suffix("").parts for r in records]
    depth = [1] * len(records)
    while True:
        names = ["/".join(p[-d:]) for p, d in zip(parts, depth)]
        clashing = [i for i, name in enumerate(names) if names.count(name) > 1 and depth[i] < len(parts[i])]
        if not clashing:
            break
        for i in clashing:
            depth[i] += 1
    names = [f"{name}@{r.fingerprint[:8]}" if names.count(name) > 1 else name for name, r in zip(names, records)]
    return [attrs.evolve(r, name=name) for r, name in zip(records, names)]


def _metric_in(history: Sequence[RunRecord], metric_id: str, where: PathLike | None) -> str:
    known = list(dict.fromkeys(m for r in history for m in r.metrics))
    if metric_id in known:
        return metric_id
    bare = [m for m in known if m.partition("/")[2] == metric_id]
    if len(bare) == 1:
        return bare[0]
    if bare:
        _ambiguous(metric_id, bare, where)
    raise InputError(f"no run of the history has this metric (metrics: {', '.join(known) or 'none'})",
                     source=_where(where), field=metric_id)


def _ambiguous(name: str, candidates: Sequence[str], where: PathLike | None) -> NoReturn:
    raise InputError(f"{name!r} is ambiguous: it matches {', '.join(candidates)}", source=_where(where))


def _where(where: PathLike | None) -> str | None:
    return None if where is None else os.fspath(where)


# -- the SQLite store ----------------------------------------------------------------


def _open_store(path: PathLike, *, create: bool) -> closing[sqlite3.Connection]:
    """The store at ``path`` with its tables (made when ``create``); a file that is not one is an error."""
    where = os.fspath(path)
    if _special(where):
        raise InputError("is not a regular file (a FIFO, device or socket); a run store is a SQLite file",
                         source=where)
    if not create and not os.path.isfile(where):
        raise InputError("no such store (give a folder to search as well, to create it)", source=where)
    if not os.path.isdir(os.path.dirname(os.path.abspath(where))):
        raise InputError("the store's folder does not exist", source=where)
    db = sqlite3.connect(where)
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, _STORE_VERSION):
            raise InputError(f"a run store of version {version}; this evalcore reads version {_STORE_VERSION}",
                             source=where)
        foreign = _foreign_tables(db)
        if foreign:
            raise InputError(f"a SQLite database of another program (tables {', '.join(foreign[:5])}), not a run "
                             "store; give a new file or a store evalcore runs --store made", source=where)
        with db:
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {_STORE_VERSION}")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise InputError(f"not a run store: {exc}", source=where) from None
    except InputError:
        db.close()
        raise
    return closing(db)


_COLUMNS = {"runs": ["fingerprint", "path", "started", "time_source", "input", "n_records"],
            "metrics": ["fingerprint", "metric", "value", "ci_low", "ci_high", "n", "metric_version"]}


def _foreign_tables(db: sqlite3.Connection) -> list[str]:
    """The tables of ``db`` that a run store does not have, or has with other columns."""
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return [t for t in tables if t not in _COLUMNS
            or [row[1] for row in db.execute(f"PRAGMA table_info({t})")] != _COLUMNS[t]]


def _add(db: sqlite3.Connection, records: Sequence[RunRecord]) -> None:
    with db:
        for r in records:
            added = db.execute(
                "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                (r.fingerprint, r.path, r.when.isoformat(), r.time_source, r.input, r.n_records)).rowcount
            if added:
                db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?)", [
                    (r.fingerprint, metric, m.value, *(m.ci or (None, None)), m.n, m.metric_version)
                    for metric, m in r.metrics.items()])


def _read_store(db: sqlite3.Connection, where: str) -> list[RunRecord]:
    """Every run the store holds; a value of the wrong type (written by another program) is an error
    naming the run and the field."""
    paths = dict(db.execute("SELECT fingerprint, path FROM runs"))
    metrics: dict[str, dict[str, RunMetric]] = {}
    for fingerprint, metric, value, low, high, n, version in db.execute(
            "SELECT fingerprint, metric, value, ci_low, ci_high, n, metric_version FROM metrics ORDER BY rowid"):
        run = paths.get(fingerprint, fingerprint)
        value, low, high = (_stored_number(x, where, run, f"{metric} {name}")
                            for x, name in ((value, "value"), (low, "ci_low"), (high, "ci_high")))
        n = _stored_number(n, where, run, f"{metric} n")
        ci = (low, high) if low is not None and high is not None else None
        metrics.setdefault(fingerprint, {})[str(metric)] = RunMetric(value, ci, int(n or 0), _text(version))
    records = [
        RunRecord(name=_stem(str(path)), path=str(path), when=_stored_time(started, where, path),
                  time_source=str(source), input=_text(input_), n_records=n_records if isinstance(n_records, int)
                  else None, fingerprint=fingerprint, metrics=metrics.get(fingerprint, {}))
        for fingerprint, path, started, source, input_, n_records in db.execute(
            "SELECT fingerprint, path, started, time_source, input, n_records FROM runs ORDER BY rowid")]
    return sorted(records, key=lambda r: r.when)  # stable: runs of one second stay in the order they were added


def _stored_number(value: Any, where: str, run: str, field: str) -> float | None:
    if value is None or _is_number(value):
        return value
    raise InputError(f"run {run}: {field} {value!r:.40} is not a number (the store was changed by another program)",
                     source=where)


def _stored_time(value: Any, where: str, run: str) -> datetime:
    when = _started(value)
    if when is None:
        raise InputError(f"run {run}: started {value!r:.40} is not an ISO 8601 time (the store was changed by "
                         "another program)", source=where)
    return when
