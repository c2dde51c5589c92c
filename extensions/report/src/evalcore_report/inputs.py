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
    reader = recorded_reader(run) if given is None else None
    if reader is not None:
        return _through_reader(reader, run, wanted)
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


def recorded_reader(run: Run) -> dict[str, Any] | None:
    """The plugin reader that made a run's records, with its options (``{"name", "options"}``, as the
    journal's header or the report's provenance keeps it), or ``None`` for the core's own readers."""
    reader = run.provenance.get("reader")
    if not isinstance(reader, Mapping) and run.files:
        reader = _journal_header(run.files[-1]).get("reader")
    if not isinstance(reader, Mapping) or not isinstance(reader.get("name"), str):
        return None
    options = reader.get("options")
    return {"name": reader["name"], "options": dict(options) if isinstance(options, Mapping) else {}}


def _through_reader(reader: Mapping[str, Any], run: Run, wanted: Collection[str]) -> Inputs:
    """The run's records read again by the plugin reader that made them, when its files are unchanged."""
    from evalcore.plugin import EvalcoreError, readers

    name = reader["name"]
    found = [spec for spec in readers() if spec.name == name]
    if not found:
        return Inputs(note=f"the run's records were made by the {name} reader, which is not installed; install "
                           "its plugin to see the records")
    changed = _changed_files(run, reader["options"])
    if changed:
        return Inputs(note=f"the input {changed} is not there any more or changed since the run (its SHA-256 "
                           "differs), so its records are not shown beside the scores")
    try:
        source = found[0].open(**reader["options"])
        records = ((record, record.source, record.id) for chunk in source.chunks(1000)
                   for record in (chunk.columns.records() if chunk.columns is not None else chunk.records))
        return _collect(records, run, wanted, f"the {name} reader's records")
    except (EvalcoreError, OSError) as exc:
        return Inputs(note=f"the {name} reader could not read the run's input again: {exc}")


def _changed_files(run: Run, options: Mapping[str, Any]) -> str | None:
    """The first input file the journal's fingerprint names that is gone or differs, else ``None``; a file
    named relative to where the run started is the reader's option (an absolute path) that ends with it."""
    given = [v for v in options.values() if isinstance(v, str) and os.path.isabs(v)]
    fingerprint = run.provenance.get("fingerprint")
    if not isinstance(fingerprint, Mapping) and run.files:
        fingerprint = _journal_header(run.files[-1]).get("fingerprint")
    source = fingerprint.get("input") if isinstance(fingerprint, Mapping) else None
    for entry in source.values() if isinstance(source, Mapping) else ():
        if isinstance(entry, Mapping) and isinstance(entry.get("path"), str) and isinstance(entry.get("sha256"), str):
            path = entry["path"]
            if not os.path.isabs(path):
                path = next((v for v in given if v.endswith(os.sep + os.path.normpath(path))), path)
            if not os.path.isfile(path) or _sha256(path) != entry["sha256"]:
                return path
    return None


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
