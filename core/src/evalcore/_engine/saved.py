"""Saved runs read back as files: a JSON report with the rows journal it names, or a rows journal
(the ``--baseline`` of a run that stops once decided; evalcore-runs builds its ``Run`` from them).

A journal's first line may be a header (``{"evalcore_journal": 1, "metrics": {...}}``);
each record line has an ``"id"`` and ``"scores"``; checkpoint lines (no ``"id"``) are
skipped, and when a record appears twice (a resumed run) the later line wins.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from evalcore._contract.errors import InputError
from evalcore._lazy import publish


@attrs.frozen
class SavedFiles:
    """What the files of one saved run hold."""

    header: dict[str, Any]
    """The journal's header (``{}`` without one)."""
    rows: dict[str, dict[str, Any]]
    """The committed rows by record id, in input order."""
    report: dict[str, Any] | None
    """The JSON report, when the run was given as one (``None`` for a journal)."""
    files: tuple[str, ...]
    """The files read: the report and the journal it names, or the journal."""


def read_saved(path: str | os.PathLike[str]) -> SavedFiles:
    """The report and rows of a saved run given as a JSON report (with the journal it names, or
    its own ``samples``) or as a rows journal; a FIFO, device or socket is refused before it is read."""
    path = os.fspath(path)
    _refuse_special(path)
    first = _first_value(path)
    if isinstance(first, Mapping) and ("evalcore_journal" in first or "id" in first or "chunk" in first):
        header, rows = read_journal(path)
        return SavedFiles(header, rows, None, (path,))
    report = _read_report(path)
    samples_file = report.get("samples_file")
    if samples_file:
        journal = _samples_path(path, samples_file)
        _refuse_special(journal)
        header, rows = read_journal(journal)
        return SavedFiles(header, rows, report, (path, journal))
    if isinstance(report.get("samples"), list):
        return SavedFiles({}, saved_rows(report["samples"], path), report, (path,))
    raise InputError("the report names no samples file and holds no per-record rows; the rows are in the "
                     "journal beside the report of a run (evaluate -o result.json keeps result.rows.jsonl)",
                     source=path)


def _refuse_special(path: str) -> None:
    """Refuse a FIFO, device or socket (links followed) before opening it: reading one would wait forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # reading it says what is wrong
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError("is not a regular file (a FIFO, device or socket); a run is a JSON report or journal file",
                         source=path)


def _samples_path(report: str, samples_file: str) -> str:
    """The journal a report names: absolute, relative to the report's folder, or else relative
    to the working folder (where a run given relative paths was started)."""
    if os.path.isabs(samples_file):
        return samples_file
    beside = os.path.join(os.path.dirname(report), samples_file)
    return beside if os.path.isfile(beside) or not os.path.isfile(samples_file) else samples_file


def read_journal(path: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The header (``{}`` if none) and the committed rows by record id, in input order.

    Rows are read as the engine reads them when it resumes: where checkpoint lines exist,
    rows after the last one belong to an unfinished chunk and are left out. A damaged line or a
    checksum that does not match is an error naming the line; a journal without checksums is
    read with a warning.
    """
    from evalcore._engine.journal import iter_rows

    if not os.path.isfile(path):
        raise InputError("samples journal not found", source=path)
    header = journal_header(path)
    rows = [row for row in iter_rows(Path(path)) if isinstance(row, Mapping) and "id" in row]
    if not rows:
        raise InputError("no record rows in the samples journal", source=path)
    return header, saved_rows(rows, path)


def journal_header(path: str) -> dict[str, Any]:
    """The header line of the journal at ``path`` (``{}`` when its first line is none)."""
    first = _first_value(path)
    return dict(first) if isinstance(first, Mapping) and "evalcore_journal" in first else {}


def saved_rows(rows: Sequence[Mapping[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """Rows by record id; a later row replaces an earlier one; ordered by ``"i"`` when given."""
    by_id: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(rows):
        if "id" not in row or not isinstance(row.get("scores"), Mapping):
            raise InputError("a row needs an 'id' and a 'scores' object", source=f"{source} row {n + 1}")
        record_id = str(row["id"])
        by_id.pop(record_id, None)
        by_id[record_id] = dict(row)
    ordered = sorted(by_id.items(), key=lambda item: item[1].get("i", 0))
    return dict(ordered)


def _first_value(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            line = handle.readline()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=path) from None
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise InputError("line 1 is nested too deeply to read", source=path) from None


def _read_report(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(f"neither a JSON report nor a samples journal: {exc.msg} (line {exc.lineno})",
                         source=path) from None
    except RecursionError:
        raise InputError("nested too deeply to read as a JSON report", source=path) from None
    if not isinstance(data, dict) or "metrics" not in data:
        raise InputError("not an evalcore report (no 'metrics')", source=path)
    return data


publish(globals())
