"""The fast path of columnar readers: every metric scores the whole chunk's columns at once.

No object per sample: each metric gives its values as an array, the tally takes them as a
:class:`~evalcore._engine.accumulate.Column`, and the journal rows are formatted from one
JSON encoding of each metric's values (the same bytes :func:`~evalcore._engine.journal.encode_row`
gives for the row dicts). It all runs in one worker call per chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from evalcore._contract.chunk import Chunk

from .accumulate import Column
from .journal import encode_row
from .plan import Plan

_OK = b'ok"'


def score_columns(plan: Plan, chunk: Chunk) -> tuple[list[int], bytes, dict[str, Column]]:
    """Positions, journal lines and per-metric columns of a columnar chunk (in input order)."""
    columns, slots, args = {}, [], []
    for metric in plan.metrics:
        result = metric.score_columns(chunk.columns)
        column = columns[metric.id] = Column.from_values(result.values, result.skipped)
        key = encode_row(metric.id)[:-1].replace(b"%", b"%%")  # the key is part of the template
        values = encode_row(column.values.tolist())[1:-2].split(b",") if len(column.values) else []
        args.append(values)  # NaN (where skipped) is encoded as null, as the row dicts' None
        if result.skipped:  # the status slot also carries the reason: 'skipped","reason":"…"'
            slots.append(key + b':{"value":%s,"status":"%s}')
            args.append(_status_tails(len(values), result.skipped))
        else:
            slots.append(key + b':{"value":%s,"status":"ok"}')
    positions = list(chunk.positions)
    ids, id_slot = _encoded_ids(chunk.columns.ids)
    template = b'{"id":' + id_slot + b',"i":%d,"scores":{' + b",".join(slots) + b"}}\n"
    lines = b"".join([template % row for row in zip(ids, positions, *args)])
    return positions, lines, columns


def _status_tails(n: int, skipped: dict[int, str]) -> list[bytes]:
    """What follows ``"status":"`` in each sample's score: ``ok"``, or the skip and its reason."""
    tails = [_OK] * n
    for index, reason in skipped.items():
        tails[index] = b'skipped","reason":' + encode_row(reason)[:-1]
    return tails


def _encoded_ids(ids: Sequence[Any]) -> tuple[list[bytes], bytes]:
    """Each id's JSON, and the template slot it fills. Strings are encoded in one call: in a
    JSON array of strings, ``","`` occurs only between elements (a quote inside a string is
    escaped), so splitting there gives each string's encoded characters."""
    if all(type(i) is str for i in ids):
        return orjson.dumps(list(ids))[2:-2].split(b'","'), b'"%s"'
    return [encode_row(i)[:-1] for i in ids], b"%s"
