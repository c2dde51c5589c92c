"""A user's field names onto the record format (``field_map`` / ``--map NEW=OLD``), and flat records.

The record format is ``{"id": …, "example": {…}, "prediction": {…}}`` with the field names of the
Auepora RAG metric spec. Two rules bring other data to it:

* **Flat records** — a record with neither ``example`` nor ``prediction`` is flat: ``id`` stays
  the id, the example fields of the format (:data:`EXAMPLE_FIELDS`) go to ``example`` and every
  other field goes to ``prediction``.
* **Field map** — ``{NEW: OLD}``: the value at ``OLD`` in the record as read is copied to ``NEW``
  before the record is checked (the old field stays where it was). ``NEW`` is ``id``, a path
  starting with ``example.`` or ``prediction.``, or a bare name of the format
  (``reference_answer`` means ``example.reference_answer``, ``response`` means
  ``prediction.response``). ``OLD`` is a dotted path into the record as read (``gold.text``,
  ``example.answer``, ``docs.0``); a bare name that is not a top-level field is looked up in
  ``example`` and in ``prediction``, and is an error when both hold it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import product
from typing import Any

from evalcore._lazy import publish

from .errors import EvalcoreError, InputError
from .fields import get_path

EXAMPLE_FIELDS = frozenset({"query", "reference_answer", "relevant_docs", "candidate_docs", "labels",
                            "expected_tool_calls", "expected_output"})
"""The example fields of the record format (a flat record's other fields are the prediction's)."""
PREDICTION_FIELDS = frozenset({"response", "retrieved", "timings", "usage", "tool_calls"})

SYNONYMS: dict[str, tuple[str, ...]] = {
    "example.reference_answer": ("ground_truth", "reference", "expected_output", "expected_answer", "expected",
                                 "gold_answer", "gold", "answers", "target", "answer"),
    "prediction.response": ("answer", "output", "actual_output", "prediction", "completion", "generated"),
    "example.query": ("question", "user_input", "input", "prompt"),
    "prediction.retrieved": ("retrieved_contexts", "contexts", "retrieval_context"),
    "example.relevant_docs": ("reference_contexts",),
}
"""Names people give the format's fields, best match first, for hints: ragas (``user_input``, ``response``,
``retrieved_contexts``, ``reference``, ``reference_contexts``; before 0.2 ``question``, ``answer``,
``contexts``, ``ground_truth``), DeepEval (``input``, ``actual_output``, ``expected_output``,
``retrieval_context``) and SQuAD-style data. ``answer`` names the reference answer last: it is the
response where both roles want it."""
TEXT_FIELDS = ("example.reference_answer", "prediction.response", "example.query")
"""The text fields a hint also suggests when the records lack them beside the missing one."""

_PARTS = ("example", "prediction")
_MISSING = object()


class FieldMap:
    """A checked ``{NEW: OLD}`` mapping (a bad entry is an :class:`EvalcoreError` naming it);
    :meth:`apply` maps one record as read."""

    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.pairs: list[tuple[str, str]] = []
        targets: dict[str, str] = {}
        for new, old in mapping.items():
            if not isinstance(new, str) or not isinstance(old, str) or not _path_ok(old):
                raise EvalcoreError(f"field_map: {new!r}: {old!r} must map a field name to a field path "
                                    "(e.g. {'reference_answer': 'answer'})")
            target = canonical_target(new)
            if target in targets:
                raise EvalcoreError(f"field_map: {target} is mapped twice ({targets[target]!r} and {old!r})")
            targets[target] = old
            self.pairs.append((target, old))

    def to_json(self) -> dict[str, str]:
        """The map with each target written in full (``example.reference_answer``), as journalled."""
        return dict(self.pairs)

    def apply(self, data: Any, source: str) -> Any:
        """``data`` (one record as read) with the mapped fields copied to their targets, flat records
        nested; ``data`` itself is not changed. Anything but an object is returned as it is."""
        if not isinstance(data, Mapping):
            return data
        values = [(target, _lookup(data, old, source)) for target, old in self.pairs]
        record = nest(data)
        for target, value in values:
            if value is not _MISSING:
                _put(record, target, value)
        return record


def canonical_target(new: str) -> str:
    """``NEW`` of a mapping written in full: ``id``, ``example.…`` or ``prediction.…``."""
    if not isinstance(new, str) or not _path_ok(new) or new in _PARTS:
        raise EvalcoreError(f"field_map: {new!r} is not a field of the record format; name one inside "
                            "example or prediction, e.g. example.reference_answer")
    if new == "id" or new.split(".", 1)[0] in _PARTS:
        return new
    if new in EXAMPLE_FIELDS:
        return f"example.{new}"
    if new in PREDICTION_FIELDS:
        return f"prediction.{new}"
    raise EvalcoreError(f"field_map: {new!r} is not a field of the record format; write example.{new} or "
                        f"prediction.{new}")


def map_arguments(items: Iterable[str]) -> dict[str, str]:
    """``--map NEW=OLD`` arguments as a ``field_map`` dict."""
    mapping: dict[str, str] = {}
    for item in items:
        new, sep, old = item.partition("=")
        if not sep or not new.strip() or not old.strip():
            raise EvalcoreError(f"--map {item!r}: write NEW=OLD, e.g. --map reference_answer=answer")
        new, old = new.strip(), old.strip()
        if new in mapping:
            raise EvalcoreError(f"--map: {new} is mapped twice ({mapping[new]!r} and {old!r})")
        mapping[new] = old
    return mapping


def is_flat(data: Mapping[str, Any]) -> bool:
    """Whether a record has neither ``example`` nor ``prediction``."""
    return "example" not in data and "prediction" not in data


def nest(data: Mapping[str, Any]) -> dict[str, Any]:
    """A flat record in the record format (see the module's rule); a nested one copied one level deep."""
    if not is_flat(data):
        record = dict(data)
        for part in _PARTS:
            if isinstance(record.get(part), Mapping):
                record[part] = dict(record[part])
        return record
    record = {"example": {}, "prediction": {}}
    for key, value in data.items():
        if key == "id":
            record["id"] = value
        else:
            record["example" if key in EXAMPLE_FIELDS else "prediction"][key] = value
    return record


def place_columns(record: dict[str, Any]) -> dict[str, Any]:
    """A table's row whose ``example.x`` / ``prediction.x`` columns were nested: the other columns
    placed by name as a flat record's are (a row without such columns stays flat)."""
    if is_flat(record):
        return record
    placed = nest({key: value for key, value in record.items() if key not in _PARTS})
    return {**placed, **{part: {**placed[part], **(record.get(part) or {})} for part in _PARTS}}


def suggestions(missing: Sequence[str], seen: Iterable[str], taken: Iterable[str] = ()) -> list[str]:
    """``NEW=OLD`` mappings for missing fields (``example.reference_answer``), in their order, from fields
    the records have under a known synonym, at the top level or in the same part (``seen``: the paths
    of the fields as read, ``answer`` or ``example.answer``). No field serves two roles, nor one of
    ``taken`` (those a field map already reads): of the ways to choose, the one that maps the most
    fields, then the one whose names come first in :data:`SYNONYMS`."""
    seen, taken = set(seen), set(taken)
    options = [[(rank, old) for rank, name in enumerate(SYNONYMS.get(field, ()))
                if (old := _source(field, name, seen)) and name not in taken and old not in taken]
               for field in missing]
    choices = [choice for choice in product(*[[*found, None] for found in options])
               if len(olds := [c[1] for c in choice if c]) == len(set(olds))]  # no field for two roles
    best = min(choices, key=lambda choice: (sum(not c for c in choice), sum(c[0] for c in choice if c)))
    return [f"{field.split('.', 1)[1]}={c[1]}" for field, c in zip(missing, best) if c]


def _source(missing: str, name: str, seen: set[str]) -> str | None:
    """How a map reads the field ``name`` for ``missing``: the bare name where it finds it (see the
    module's rule), else its path in the same part; ``None`` where the records lack it there."""
    part = missing.split(".", 1)[0]
    other = "prediction" if part == "example" else "example"
    if name in seen or (f"{part}.{name}" in seen and f"{other}.{name}" not in seen):
        return name
    return f"{part}.{name}" if f"{part}.{name}" in seen else None


def _lookup(data: Mapping[str, Any], old: str, source: str) -> Any:
    if "." in old or old in data:
        return get_path(data, old, _MISSING)
    found = [part for part in _PARTS if isinstance(data.get(part), Mapping) and old in data[part]]
    if len(found) > 1:
        raise InputError(f"field_map: {old!r} is in both example and prediction; write example.{old} or "
                         f"prediction.{old}", source=source)
    return data[found[0]][old] if found else _MISSING


def _put(record: dict[str, Any], target: str, value: Any) -> None:
    *parents, last = target.split(".")
    current: Any = record
    for part in parents:
        nxt = current.get(part)
        if nxt is not None and not isinstance(nxt, Mapping):
            return  # not an object: the record's check names it
        current[part] = nxt = dict(nxt or {})  # a copy: the caller's data is not changed
        current = nxt
    current[last] = value


def _path_ok(path: str) -> bool:
    return bool(path) and all(part.strip() == part and part for part in path.split("."))


def field_paths(data: Any) -> list[str]:
    """The field paths of a record as read: its top-level names, and ``example.x`` / ``prediction.x``."""
    if not isinstance(data, Mapping):
        return []
    paths = [str(key) for key in data]
    for part in _PARTS:
        if isinstance(data.get(part), Mapping):
            paths += [f"{part}.{key}" for key in data[part]]
    return paths


publish(globals())
