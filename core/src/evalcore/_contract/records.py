"""Evaluation records: reading JSONL and checking the standard fields.

A record is ``{"id": ..., "example": {...}, "prediction": {...}}``, or flat (neither part: its
fields are placed by :func:`evalcore._contract.field_map.nest`). The standard fields
(``relevant_docs``, ``retrieved``, ``reference_answer``, ``labels``) are checked when a
record is read, so a malformed one is rejected with a message naming the file and line
(or record id) and the field, while every other record is still evaluated.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from evalcore._lazy import publish

from .errors import InputError
from .field_map import is_flat, nest
from .jsonl import iter_json_lines


@attrs.frozen
class Record:
    """One example with its prediction (``prediction`` is empty when a program makes it)."""

    id: str
    example: Mapping[str, Any]
    prediction: Mapping[str, Any] = attrs.field(factory=dict)
    source: str | None = None
    raw: Mapping[str, Any] = attrs.field(factory=dict, repr=False, eq=False)
    """The record's other top-level fields (e.g. a human ``label``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "example": dict(self.example), "prediction": dict(self.prediction)}


@attrs.frozen
class RecordSet:
    """Records that passed the checks and the errors of those that did not."""

    records: list[Record]
    errors: list[InputError]
    source: str | None = None


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[str, int, Any]]:
    """``(source, line number, value)`` for each non-blank line of a JSONL file.

    ``source`` is ``"file:line"``; a line that is not UTF-8 or not JSON yields an
    :class:`InputError` as its value (so callers decide whether one bad line stops them).
    Lines are split on ``\n`` only, as the evaluator's reader does. A file that cannot be
    read raises :class:`InputError`.
    """
    return iter_json_lines(Path(os.fspath(path)))


def read_records(path: str | os.PathLike[str]) -> RecordSet:
    """Read a JSONL file of records; malformed lines become errors, not exceptions.

    Raises :class:`InputError` only when the file cannot be read or holds no record.
    """
    name = os.fspath(path)
    records: list[Record] = []
    errors: list[InputError] = []
    for source, lineno, data in iter_jsonl(name):
        if isinstance(data, InputError):
            errors.append(data)
            continue
        try:
            records.append(parse_record(data, source=source, default_id=str(lineno)))
        except InputError as exc:
            errors.append(exc)
    if not records and not errors:
        raise InputError("no records: the file is empty", source=name)
    _reject_duplicate_ids(records, errors)
    return _record_set(records, errors, source=name)


def pair_items(examples: Iterable[Any], predictions: Iterable[Any] | None) -> list[dict[str, Any]]:
    """Record dicts from parallel lists of examples and predictions (or examples alone)."""
    from .fields import as_record

    examples = list(examples)
    preds = [None] * len(examples) if predictions is None else list(predictions)
    if len(preds) != len(examples):
        raise InputError(f"{len(examples)} examples but {len(preds)} predictions")
    items = []
    for index, (example, prediction) in enumerate(zip(examples, preds)):
        example_dict = as_record(example, role="example")
        items.append({
            "id": example_dict.get("id", str(index)),
            "example": example_dict,
            "prediction": {} if prediction is None else as_record(prediction, role="prediction"),
        })
    return items


def _record_set(records: list[Record], errors: list[InputError], source: str | None = None) -> RecordSet:
    rejected = {e.source for e in errors}
    return RecordSet([r for r in records if r.source not in rejected], errors, source)


def _reject_duplicate_ids(records: list[Record], errors: list[InputError]) -> None:
    seen: dict[str, str | None] = {}
    for record in records:
        if record.id in seen:
            errors.append(InputError(
                f"duplicate record id {record.id!r} (first at {seen[record.id]})",
                source=record.source, field="id",
            ))
        else:
            seen[record.id] = record.source


def parse_record(data: Any, source: str, default_id: str | int, *, owned: bool = False) -> Record:
    """Check one record's shape and standard fields; raises :class:`InputError`.

    ``owned``: ``data`` was just parsed and belongs to the caller, so its dicts are used
    as they are instead of being copied. ``source`` (``file:line``) is kept on the record
    for messages; ``default_id`` (e.g. the line number) is the id of a record without one.
    """
    if type(data) is not dict and not isinstance(data, Mapping):
        raise InputError(f"a record must be a JSON object, got {_kind(data)}", source=source)
    record_id = data.get("id", default_id)
    if type(record_id) is not str:
        if not isinstance(record_id, (str, int)) or isinstance(record_id, bool):
            raise InputError(f"must be a string or an integer, got {_kind(record_id)}", source=source, field="id")
        record_id = str(record_id)
    example = data.get("example")
    prediction = data.get("prediction")
    if example is None and prediction is None and is_flat(data):  # flat: placed by the record format's names
        flat = nest(data)
        example, prediction = flat["example"], flat["prediction"]
    elif type(example) is not dict or type(prediction) is not dict:
        _check_parts(data, f"{source} (record {record_id!r})")
    if not owned:
        example, prediction = dict(example), dict(prediction)
    if not _EXAMPLE_CHECKED.isdisjoint(example) or not _PREDICTION_CHECKED.isdisjoint(prediction):
        _check_fields(example, prediction, f"{source} (record {record_id!r})")
    else:
        reference = example.get("reference_answer")
        if reference is not None and type(reference) is not str:
            _check_reference(example, f"{source} (record {record_id!r})")
    if "id" not in example:
        example["id"] = record_id
    extra = {k: v for k, v in data.items() if k not in _PARTS} if len(data) > 3 or "id" not in data else {}
    return Record(record_id, example, prediction, source, extra)


def _check_fields(example: dict[str, Any], prediction: dict[str, Any], where: str) -> None:
    _check_docs(example, "relevant_docs", where, role="example", score_field="relevance")
    _check_docs(prediction, "retrieved", where, role="prediction", score_field="score")
    _check_reference(example, where)
    _check_mapping(example, "labels", where, role="example")
    _check_mapping(prediction, "timings", where, role="prediction")
    _check_mapping(prediction, "usage", where, role="prediction")


_EXAMPLE_CHECKED = frozenset(("relevant_docs", "labels"))
_PREDICTION_CHECKED = frozenset(("retrieved", "timings", "usage"))


_PARTS = frozenset(("id", "example", "prediction"))


def _check_parts(data: Mapping[str, Any], source: str) -> None:
    for part in ("example", "prediction"):
        if part not in data:
            raise InputError(f"missing field {part!r}", source=source, field=part)
        if not isinstance(data[part], Mapping):
            raise InputError(f"must be an object, got {_kind(data[part])}", source=source, field=part)


def _check_docs(record: dict[str, Any], field: str, source: str, *, role: str, score_field: str) -> None:
    docs = record.get(field)
    if docs is None:
        return
    where = f"{role}.{field}"
    if not isinstance(docs, list):
        raise InputError(f"must be a list of documents, got {_kind(docs)}", source=source, field=where)
    for index, doc in enumerate(docs):
        if not isinstance(doc, Mapping):
            raise InputError(f"a document must be an object, got {_kind(doc)}", source=source,
                             field=f"{where}[{index}]")
        doc_id = doc.get("doc_id")
        if doc_id is None:
            raise InputError("missing doc_id", source=source, field=f"{where}[{index}].doc_id")
        if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool):
            raise InputError(f"must be a string, got {_kind(doc_id)}", source=source,
                             field=f"{where}[{index}].doc_id")
        for number_field in (score_field, "rank"):
            if number_field in doc and not _is_number(doc[number_field]):
                raise InputError(f"must be a number, got {doc[number_field]!r}", source=source,
                                 field=f"{where}[{index}].{number_field}")


def _check_reference(example: dict[str, Any], source: str) -> None:
    value = example.get("reference_answer")
    if value is None or isinstance(value, str):
        return
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return
    raise InputError(f"must be a string or a list of strings, got {_kind(value)}", source=source,
                     field="example.reference_answer")


def _check_mapping(record: dict[str, Any], field: str, source: str, *, role: str) -> None:
    if field in record and record[field] is not None and not isinstance(record[field], Mapping):
        raise InputError(f"must be an object, got {_kind(record[field])}", source=source,
                         field=f"{role}.{field}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), type(value).__name__)


publish(globals())
