"""Reading pytrec_eval-style dicts (``{qid: {docid: grade}}``, ``{qid: {docid: score}}``) into
:class:`Rankings` with as little per-document Python work as possible.

Ingestion dominates the cost, so the Python-level work is C-level iteration over dict
values, plus one dict lookup per relevant judged document (trec ties) or per retrieved document
(input-order ties, or qrels larger than the run). With trec ties, the rank of each judged
retrieved document comes from one sort of (query, score) keys and a binary search;
only queries with tied scores are ordered document by document.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import methodcaller
from typing import Any

import numpy as np
from evalcore.plugin import InputError

from ._order import sort_keys
from ._ranking import Rankings, offsets_of, rank_order, trec_order, trec_scores

Qrels = Mapping[str, Mapping[str, Any]]
Run = Mapping[str, Mapping[str, Any]]
_EMPTY: Mapping[str, Any] = {}
_BLOCK = 2048  # queries read at a time
_values = methodcaller("values")


def judged_queries(qrels: Qrels) -> list[str]:
    """The queries with at least one judgement, in qrels order (the ones that can be scored)."""
    return [qid for qid, judged in qrels.items() if judged]


def rankings_from_dicts(qrels: Qrels, run: Run, qids: list[str], ties: str) -> Rankings:
    """Rankings of ``qids``; a query is present when it is a key of ``run`` (even with no documents).

    Queries are read in blocks so that the temporary arrays stay small (in cache, and
    reused by the allocator rather than mapped afresh).
    """
    blocks = [qids[start:start + _BLOCK] for start in range(0, len(qids), _BLOCK)] or [[]]
    return Rankings.concatenate([_read_block(qrels, run, block, ties) for block in blocks])


def _read_block(qrels: Qrels, run: Run, qids: list[str], ties: str) -> Rankings:
    judged = [qrels[qid] for qid in qids]
    docs = [run.get(qid, _EMPTY) for qid in qids]
    lengths = np.fromiter(map(len, docs), np.int64, len(docs))
    judged_lengths = np.fromiter(map(len, judged), np.int64, len(judged))
    scores = _floats(chain.from_iterable(map(_values, docs)), int(lengths.sum()), run, qids, "run")
    grades = _floats(
        chain.from_iterable(map(_values, judged)), int(judged_lengths.sum()), qrels, qids, "qrels"
    )
    present = np.fromiter((qid in run for qid in qids), bool, len(qids))
    if ties == "trec" and len(grades) <= len(scores):
        return _from_judged(scores, lengths, docs, judged, grades, judged_lengths, present)
    gains = np.fromiter(
        chain.from_iterable(map(j.get, d, repeat(math.nan)) for j, d in zip(judged, docs)), float,
        len(scores),
    )
    order = rank_order(scores, lengths, lambda q: list(docs[q]), ties)
    gains = gains[order]
    unjudged = np.isnan(gains)
    gains[unjudged] = 0.0
    return Rankings.from_ranked_grades(lengths, gains, judged_lengths, grades, present, unjudged)


def _from_judged(
    scores: np.ndarray, lengths: np.ndarray, docs: Sequence[Mapping[str, Any]],
    judged: Sequence[Mapping[str, Any]], grades: np.ndarray, judged_lengths: np.ndarray,
    present: np.ndarray,
) -> Rankings:
    """Rankings from the ranks of the judged documents, trec_eval's ordering."""
    offsets, judged_offsets = offsets_of(lengths), offsets_of(judged_lengths)
    ranked = sort_keys(np.repeat(np.arange(len(lengths), dtype=np.uint64), lengths), trec_scores(scores))
    ranked.sort()
    # look up the score of every judged document
    found = np.fromiter(
        chain.from_iterable(map(d.get, j, repeat(math.nan)) for d, j in zip(docs, judged)),
        float, len(grades),
    )
    hit = ~np.isnan(found)  # judged and retrieved
    query = np.repeat(np.arange(len(judged_lengths)), judged_lengths)[hit]
    # the rank of a document is the number of documents of its query with a smaller key
    position = np.searchsorted(ranked, sort_keys(query, trec_scores(found[hit]))) - offsets[query]
    tied = ranked[1:] == ranked[:-1]
    if tied.any():
        for q in np.unique(ranked[1:][tied] >> np.uint64(32)).astype(np.int64).tolist():
            ids = list(docs[q])
            rank = {ids[i]: p for p, i in enumerate(
                trec_order(trec_scores(scores[offsets[q]:offsets[q + 1]]).tolist(), ids)
            )}
            hit_ids = [d for d, h in zip(judged[q], hit[judged_offsets[q]:judged_offsets[q + 1]]) if h]
            lo = np.searchsorted(query, q)
            position[lo:lo + len(hit_ids)] = [rank[d] for d in hit_ids]
    order = np.lexsort((position, query))
    query, position, grade = query[order], position[order], grades[hit][order]
    positive = grade > 0
    return Rankings(
        lengths, present, query[positive], position[positive], grade[positive], judged_offsets,
        grades, query[~positive], position[~positive], grade[~positive],
    )


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
