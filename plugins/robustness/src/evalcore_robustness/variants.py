"""Per-sample state of the variant-based metrics and the checks of their ``variant_of`` links.

In the Auepora RAG metric spec a sample without ``labels.variant_of`` is a base sample; a sample with it is a
variant of the sample whose record id it names, tagged with ``labels.scenario``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from evalcore.plugin import InputError, Record


@attrs.frozen
class Entry:
    """One sample: its record id, scenario, parent id (``None`` for a base sample) and payload."""

    id: str
    scenario: str | None
    variant_of: str | None
    payload: Any


def entry(example: Record, payload: Any) -> Entry:
    """The :class:`Entry` of an example (record id from ``example.id``)."""
    record_id = example.get("id")
    if record_id is None:
        raise InputError("the record id is missing (the evaluator sets it)", field="example.id")
    labels = example.get("labels") or {}
    if not isinstance(labels, Mapping):
        raise InputError(f"expected an object, got {type(labels).__name__}", field="example.labels")
    parent, scenario = labels.get("variant_of"), labels.get("scenario")
    if parent is not None and not isinstance(parent, (str, int)):
        raise InputError(f"expected a record id, got {parent!r:.60}", field="example.labels.variant_of")
    if scenario is not None and not isinstance(scenario, str):
        raise InputError(f"expected a string, got {scenario!r:.60}", field="example.labels.scenario")
    return Entry(str(record_id), scenario, None if parent is None else str(parent), payload)


def concat(states: Iterable[Sequence[Entry] | None]) -> tuple[Entry, ...]:
    """Merge: concatenate the entries of every state (``None``, a failed sample's, is left out)."""
    return tuple(e for state in states if state is not None for e in state)


@attrs.frozen
class LinkReport:
    """Problems in the variant links: duplicate ids, links to absent records, cycles."""

    duplicate_ids: tuple[str, ...]
    missing_bases: tuple[str, ...]
    cycles: tuple[str, ...]

    def details(self) -> dict[str, Any]:
        return {k: list(v) for k, v in attrs.asdict(self).items() if v}

    def feedback(self) -> str | None:
        parts = []
        if self.duplicate_ids:
            parts.append(f"duplicate record ids: {', '.join(self.duplicate_ids)}")
        if self.missing_bases:
            parts.append(f"variants whose variant_of names no record: {', '.join(self.missing_bases)}")
        if self.cycles:
            parts.append(f"variants in a variant_of cycle: {', '.join(self.cycles)}")
        return "; ".join(parts) or None


def check_links(entries: Sequence[Entry]) -> tuple[dict[str, Entry], LinkReport]:
    """Index entries by id and report duplicates, dangling links and cycles."""
    by_id: dict[str, Entry] = {}
    duplicates = []
    for e in entries:
        if e.id in by_id:
            duplicates.append(e.id)
        by_id.setdefault(e.id, e)
    missing, cycles = [], []
    for e in entries:
        if e.variant_of is None:
            continue
        seen, current = {e.id}, e
        while current.variant_of is not None:
            parent = by_id.get(current.variant_of)
            if parent is None:
                missing.append(e.id)
                break
            if parent.id in seen:
                cycles.append(e.id)
                break
            seen.add(parent.id)
            current = parent
    return by_id, LinkReport(tuple(sorted(set(duplicates))), tuple(missing), tuple(cycles))
