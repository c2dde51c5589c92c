"""The runs the workbench shows: the saved runs of a folder or store (``evalcore runs``), and the
journals of runs still in progress under the folder (a journal no report names yet).

Each run gets a short stable id: the start of its fingerprint, or of its journal path's SHA-256.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import Any

import attrs
import evalcore
from evalcore.plugin import InputError

from .jsontext import loads


@attrs.frozen
class Entry:
    """One run: its id, name, report (``None`` while in progress), journal, and what the list shows."""

    id: str
    name: str
    report: str | None
    journal: str | None
    listing: dict[str, Any]


def catalogue(folder: str | None, store: str | None) -> list[Entry]:
    """The runs of ``folder`` and/or ``store``, oldest first, then those in progress."""
    saved = evalcore.runs(folder, store=store)
    entries = []
    named = set()
    for record in saved:
        journal = journal_of(record.path)
        if journal is not None:
            named.add(os.path.realpath(journal))
        entries.append(Entry(id=record.fingerprint[:12], name=record.name, report=record.path, journal=journal,
                             listing={**record.to_dict(), "in_progress": False}))
    if folder is not None:
        for journal in _journals(folder):
            if os.path.realpath(journal) in named:
                continue
            name = os.path.relpath(journal, folder).removesuffix(".jsonl")
            header = _first_line(journal)
            listing = {"name": name, "path": journal, "when": None, "input": _input_path(header),
                       "n_records": None, "metrics": dict.fromkeys(header.get("metrics") or {}, None),
                       "in_progress": True}
            entries.append(Entry(id=hashlib.sha256(journal.encode()).hexdigest()[:12], name=name, report=None,
                                 journal=journal, listing=listing))
    return entries


def find(entries: list[Entry], run_id: str) -> Entry:
    """The run with id ``run_id``."""
    for entry in entries:
        if entry.id == run_id:
            return entry
    raise InputError("no such run (the list may have changed: reload it)", field=run_id)


def journal_of(report: str) -> str | None:
    """The samples journal a JSON report names (beside the report, absolute, or from the working folder)."""
    try:
        with open(report, "rb") as handle:
            samples = loads(handle.read()).get("samples_file")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(samples, str):
        return None
    beside = os.path.join(os.path.dirname(report), samples)
    for path in (samples if os.path.isabs(samples) else beside, samples):
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def _journals(folder: str) -> Iterator[str]:
    for root, subfolders, files in os.walk(folder):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for name in sorted(files):
            path = os.path.abspath(os.path.join(root, name))
            if name.endswith(".jsonl") and "evalcore_journal" in _first_line(path):
                yield path


def _first_line(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            first = loads(handle.readline())
    except (OSError, ValueError):
        return {}
    return first if isinstance(first, dict) else {}


def _input_path(header: dict[str, Any]) -> str | None:
    source = (header.get("fingerprint") or {}).get("input")
    return source.get("path") if isinstance(source, dict) else None
