"""The records a run scored, read back from its input for the report's record view and slices.

A journal keeps scores, not records: the record view joins each row, by id, with the record in
the input the run read (named in the journal's header with its SHA-256, or in the report's
provenance), or with an input given explicitly. An input that is gone or has changed since the
run is not joined (a changed file would show the wrong text beside a score); the page says why.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import attrs
import orjson
from evalcore import Record
from evalcore.plugin import InputError, Run, iter_jsonl


@attrs.frozen
class Inputs:
    """What the input says about a run's records: labels of all, example and prediction of some."""

    labels: dict[str, dict[str, str]] = attrs.field(factory=dict)
    records: dict[str, Record] = attrs.field(factory=dict)
    note: str | None = None
    """Why records are missing (no input, input changed, unreadable), or ``None``."""


def load_inputs(run: Run, wanted: Collection[str], given: Any = None) -> Inputs:
    """Labels of every record of ``run`` and the full records of ``wanted`` ids.

    ``given`` is an input path or an iterable of records (:class:`Record` or record dicts);
    without it the run's own input is read when it is still the file the run read.
    """
    if given is not None and not isinstance(given, (str, os.PathLike)):
        return _collect(_parsed(given), run, wanted, None)
    if given is not None:
        path, expected = os.fspath(given), None
    else:
        path, expected = recorded_input(run)
        if path is None:
            return Inputs(note="the run names no input file; give it with --input to see the records")
    if not os.path.isfile(path):
        return Inputs(note=f"the input {path} is not there any more; give it with --input to see the records")
    if expected is not None and _sha256(path) != expected:
        return Inputs(note=f"the input {path} changed since the run (its SHA-256 differs), so its records are "
                           "not shown beside the scores; give the original with --input")
    try:
        return _collect(_read(path), run, wanted, path)
    except InputError as exc:
        return Inputs(note=f"the input could not be read as records: {exc}")


def recorded_input(run: Run) -> tuple[str | None, str | None]:
    """The input path (and SHA-256, where the journal's header keeps it) of a run."""
    fingerprint = run.provenance.get("fingerprint")
    if not isinstance(fingerprint, Mapping) and run.files:
        fingerprint = _journal_header(run.files[-1]).get("fingerprint")
    source = fingerprint.get("input") if isinstance(fingerprint, Mapping) else None
    if isinstance(source, Mapping) and isinstance(source.get("path"), str):
        sha = source.get("sha256")
        return source["path"], sha if isinstance(sha, str) else None
    recorded = run.provenance.get("input")
    if not isinstance(recorded, str) or recorded == "-" or recorded.startswith("<"):  # stdin, "<data>"
        return None, None
    return recorded, None


def _journal_header(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            first = orjson.loads(handle.readline())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return first if isinstance(first, dict) and "evalcore_journal" in first else {}


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _read(path: str) -> Iterable[tuple[Any, str, int]]:
    for source, lineno, value in iter_jsonl(path):
        if not isinstance(value, InputError):  # else the run rejected the line too, and its report says so
            yield value, source, lineno


def _parsed(items: Iterable[Any]) -> Iterable[tuple[Any, str, int | str]]:
    for position, item in enumerate(items):
        yield item, f"record {position}", str(position)


def _collect(items: Iterable[tuple[Any, str, int | str]], run: Run, wanted: Collection[str],
             path: str | None) -> Inputs:
    """Labels of every record of the run; a record is parsed (checked) only when it is wanted."""
    labels: dict[str, dict[str, str]] = {}
    kept: dict[str, Record] = {}
    for item, source, default_id in items:
        if isinstance(item, Record):
            record_id, example = item.id, item.example
        elif isinstance(item, Mapping):
            record_id, example = str(item.get("id", default_id)), item.get("example")
        else:
            continue
        if record_id not in run.rows:
            continue
        found = example.get("labels") if isinstance(example, Mapping) else None
        if isinstance(found, Mapping) and found:
            labels[record_id] = {str(k): _label(v) for k, v in found.items()}
        if record_id in wanted:
            record = item if isinstance(item, Record) else _record(item, record_id, source)
            if record is not None:
                kept[record_id] = record
    note = None
    if wanted and not kept:
        note = f"no record of the run was found in {path or 'the records given'}"
    return Inputs(labels=labels, records=kept, note=note)


def _record(item: Mapping[str, Any], record_id: str, source: str) -> Record | None:
    """The record to show beside the scores (``None`` where its example or prediction is not a mapping:
    the run rejected it too, and its report says so)."""
    example, prediction = item.get("example"), item.get("prediction", {})
    if not isinstance(example, Mapping) or not isinstance(prediction, Mapping):
        return None
    return Record(id=record_id, example=example, prediction=prediction, source=source)


def _label(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
