"""Reading pytrec_eval-style dicts (``{qid: {docid: grade}}``, ``{qid: {docid: score}}``) into
:class:`Rankings` with as little per-document Python work as possible."""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import chain, repeat
from typing import Any

import numpy as np
from evalcore.plugin import InputError

from ._ranking import Rankings, offsets_of, rank_order

Qrels = Mapping[str, Mapping[str, Any]]
Run = Mapping[str, Mapping[str, Any]]
_EMPTY: Mapping[str, Any] = {}


def judged_queries(qrels: Qrels) -> list[str]:
    """The queries with at least one judgement, in qrels order (the ones that can be scored)."""
    return [qid for qid, judged in qrels.items() if judged]


def rankings_from_dicts(qrels: Qrels, run: Run, qids: list[str], ties: str) -> Rankings:
    """Rankings of ``qids``; a query is present when it is a key of ``run`` (even with no documents)."""
    judged = [qrels[qid] for qid in qids]
    docs = [run.get(qid, _EMPTY) for qid in qids]
    lengths = np.fromiter(map(len, docs), np.int64, len(docs))
    total = int(lengths.sum())
    scores = _floats(chain.from_iterable(d.values() for d in docs), total, run, qids, "run")
    gains = _floats(
        chain.from_iterable(map(j.get, d, repeat(0)) for j, d in zip(judged, docs)), total,
        qrels, qids, "qrels",
    )
    order = rank_order(scores, lengths, lambda q: list(docs[q]), ties)
    judged_lengths = np.fromiter(map(len, judged), np.int64, len(judged))
    grades = _floats(
        chain.from_iterable(j.values() for j in judged), int(judged_lengths.sum()), qrels, qids, "qrels",
    )
    present = np.fromiter((qid in run for qid in qids), bool, len(qids))
    return Rankings(offsets_of(lengths), gains[order], offsets_of(judged_lengths), grades, present)


def _floats(values: Any, count: int, source: Mapping[str, Mapping[str, Any]], qids: list[str],
            name: str) -> np.ndarray:
    try:
        array = np.fromiter(values, float, count)
    except (TypeError, ValueError):
        array = None
    if array is None or np.isnan(array).any():
        raise _find_bad_value(source, qids, name)
    return array


def _find_bad_value(source: Mapping[str, Mapping[str, Any]], qids: list[str], name: str) -> InputError:
    """The error naming the first value of ``source`` that is not a number (the slow path)."""
    for qid in qids:
        for doc_id, value in source.get(qid, _EMPTY).items():
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or math.isnan(value):
                kind = "score" if name == "run" else "relevance"
                return InputError(f"{kind} must be a number, got {value!r}", source=name,
                                  field=f"[{qid!r}][{doc_id!r}]")
    return InputError("values must be numbers", source=name)
