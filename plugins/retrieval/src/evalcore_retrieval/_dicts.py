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
from collections.abc import Mapping
from itertools import chain, compress, repeat
from operator import methodcaller
from typing import Any

import numpy as np
from evalcore.plugin import InputError

from . import _compiled
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
    reused by the allocator rather than mapped afresh). The judged non-relevant retrieved
    documents are looked up only when a measure asks for them (:meth:`Rankings.misses`).
    """
    blocks = [qids[start:start + _BLOCK] for start in range(0, len(qids), _BLOCK)] or [[]]
    hits = Rankings.concatenate([_Block(qrels, run, block, ties).hits for block in blocks])

    def misses() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        parts = [_Block(qrels, run, block, ties).misses() for block in blocks]
        starts = offsets_of(np.array([len(block) for block in blocks], dtype=np.int64))
        return (np.concatenate([query + start for (query, _, _), start in zip(parts, starts)]),
                np.concatenate([position for _, position, _ in parts]),
                np.concatenate([grade for _, _, grade in parts]))

    return Rankings(hits.num_ret, hits.present, hits.hit_query, hits.hit_position, hits.hit_grade,
                    hits.judged_offsets, hits.judged, misses_from=misses)


class _Block:
    """The values of one block of queries, read from the dicts."""

    def __init__(self, qrels: Qrels, run: Run, qids: list[str], ties: str) -> None:
        self.ties = ties
        # the compiled reader ranks plain dicts of str keys and numbers in one pass (None for others)
        ranked = None if _compiled.dict_reader is None else _compiled.dict_reader.ranked_grades(
            qrels, run, qids, ties == "trec")
        self._gains: np.ndarray | None = None
        if ranked is not None:
            gains, grades, lengths, judged_lengths, present = ranked
            self._gains, self.grades = (np.frombuffer(values, np.float64) for values in (gains, grades))
            self.lengths, self.judged_lengths = (np.frombuffer(n, np.int64) for n in (lengths, judged_lengths))
            self.present = np.frombuffer(present, bool)
            return
        self.judged = [qrels[qid] for qid in qids]
        self.docs = [run.get(qid, _EMPTY) for qid in qids]
        self.lengths = np.fromiter(map(len, self.docs), np.int64, len(self.docs))
        self.judged_lengths = np.fromiter(map(len, self.judged), np.int64, len(self.judged))
        self.scores = _floats(self.docs, int(self.lengths.sum()), run, qids, "run")
        self.grades = _floats(self.judged, int(self.judged_lengths.sum()), qrels, qids, "qrels")
        self.present = np.fromiter((qid in run for qid in qids), bool, len(qids))

    @property
    def by_judged(self) -> bool:
        """Whether ranks come from looking up the judged documents (trec ties, fewer judged than
        retrieved) rather than the grade of every retrieved document."""
        return self._gains is None and self.ties == "trec" and len(self.grades) <= len(self.scores)

    @property
    def hits(self) -> Rankings:
        """The block's rankings with the retrieved relevant documents only (no ``miss_*``)."""
        if self.by_judged:
            query, position, grade = _judged_ranks(self, self.grades > 0)
            return Rankings(self.lengths, self.present, query, position, grade, offsets_of(self.judged_lengths),
                            self.grades)
        gains, _ = self._ranked_gains()
        return Rankings.from_ranked_grades(self.lengths, gains, self.judged_lengths, self.grades, self.present)

    def misses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Query, position and grade of the judged retrieved documents that are not relevant."""
        if self.by_judged:
            return _judged_ranks(self, ~(self.grades > 0))
        gains, unjudged = self._ranked_gains()
        return Rankings.from_ranked_grades(self.lengths, gains, self.judged_lengths, self.grades, self.present,
                                           unjudged).misses()

    def _ranked_gains(self) -> tuple[np.ndarray, np.ndarray]:
        """The grade of every retrieved document in rank order (0 when unjudged), and which are unjudged."""
        if self._gains is not None:
            gains = self._gains.copy()
        else:
            docs = self.docs
            gains = np.fromiter(
                chain.from_iterable(map(j.get, d, repeat(math.nan)) for j, d in zip(self.judged, docs)), float,
                len(self.scores),
            )
            gains = gains[rank_order(self.scores, self.lengths, lambda q: list(docs[q]), self.ties)]
        unjudged = np.isnan(gains)
        gains[unjudged] = 0.0
        return gains, unjudged


def _judged_ranks(block: _Block, selected: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query, position (trec_eval's ordering) and grade of the ``selected`` judged documents that
    are retrieved, by query then position."""
    docs, judged, lengths = block.docs, block.judged, block.lengths
    offsets, judged_offsets = offsets_of(lengths), offsets_of(block.judged_lengths)
    ranked = sort_keys(np.repeat(np.arange(len(lengths), dtype=np.uint64), lengths), trec_scores(block.scores))
    ranked.sort()
    # look up the scores of the selected judged documents only
    chosen, bounds = selected.tobytes(), judged_offsets.tolist()
    found = np.fromiter(
        chain.from_iterable(
            map(d.get, compress(j, chosen[a:b]), repeat(math.nan))
            for d, j, a, b in zip(docs, judged, bounds[:-1], bounds[1:])
        ),
        float, int(selected.sum()),
    )
    retrieved = ~np.isnan(found)
    hit = np.zeros(len(selected), dtype=bool)
    hit[np.flatnonzero(selected)[retrieved]] = True
    query = np.repeat(np.arange(len(judged_offsets) - 1), block.judged_lengths)[hit]
    # the rank of a document is the number of documents of its query with a smaller key
    position = np.searchsorted(ranked, sort_keys(query, trec_scores(found[retrieved]))) - offsets[query]
    tied = ranked[1:] == ranked[:-1]
    if tied.any():
        for q in np.unique(ranked[1:][tied] >> np.uint64(32)).astype(np.int64).tolist():
            ids = list(docs[q])
            rank = {ids[i]: p for p, i in enumerate(
                trec_order(trec_scores(block.scores[offsets[q]:offsets[q + 1]]).tolist(), ids)
            )}
            hit_ids = [d for d, h in zip(judged[q], hit[judged_offsets[q]:judged_offsets[q + 1]]) if h]
            lo = np.searchsorted(query, q)
            position[lo:lo + len(hit_ids)] = [rank[d] for d in hit_ids]
    order = np.lexsort((position, query))
    return query[order], position[order], block.grades[hit][order]


def _floats(dicts: list[Mapping[str, Any]], count: int, source: Mapping[str, Mapping[str, Any]], qids: list[str],
            name: str) -> np.ndarray:
    """Every value of ``dicts`` in order (``count`` in all) as float64; an :class:`InputError` naming the first
    value of ``source`` that is not a number."""
    try:
        array = np.fromiter(chain.from_iterable(map(_values, dicts)), float, count)
    except (TypeError, ValueError, OverflowError):
        array = None
    if array is None or np.isnan(array).any():
        raise _find_bad_value(source, qids, name)
    return array


def _find_bad_value(source: Mapping[str, Mapping[str, Any]], qids: list[str], name: str) -> InputError:
    """The error naming the first value of ``source`` that is not a number (the slow path)."""
    for qid in qids:
        for doc_id, value in source.get(qid, _EMPTY).items():
            if not _is_number(value):
                kind = "score" if name == "run" else "relevance"
                return InputError(f"{kind} must be a number, got {value!r:.40}", source=name,
                                  field=f"[{qid!r}][{doc_id!r}]")
    return InputError("values must be numbers", source=name)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        return False
    try:
        return not math.isnan(value)
    except OverflowError:  # an int beyond the float range
        return False
