"""Rankings of many queries as flat arrays, and trec_eval's document ordering."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
from evalcore import EvalcoreError

# Pad to a (queries x longest run) matrix only while it stays this close to the flat size.
_MAX_PADDING = 4
_T = TypeVar("_T")


class Rankings:
    """What the measures need of ``n`` ranked queries, in flat arrays.

    Only retrieved documents with a positive grade ("hits") matter to every measure, so
    only they are kept: ``hit_query``, ``hit_position`` (0-based rank) and ``hit_grade``,
    sorted by query then position. ``num_ret`` is the number retrieved per query,
    ``present`` whether the query was retrieved for at all, and
    ``judged[judged_offsets[q]:judged_offsets[q + 1]]`` the grades of every judged
    document of query ``q``.

    Optionally (``miss_*``, ``None`` when a builder does not provide them) the retrieved
    documents that are judged but not hits, i.e. with a grade <= 0 (a negative grade is
    trec_eval's "in the pool but unjudged"), in the same layout. The measures that look
    at judged non-relevant or unjudged retrieved documents (bpref, infAP, unj, rbp_resid,
    num_nonrel_judged_ret, judged-only evaluation) need them; every other one ignores them.
    A builder for which they cost extra reading may give ``misses_from`` instead: it is
    called the first time :meth:`misses` is asked, and fills the ``miss_*`` fields.
    """

    def __init__(
        self, num_ret: np.ndarray, present: np.ndarray, hit_query: np.ndarray,
        hit_position: np.ndarray, hit_grade: np.ndarray, judged_offsets: np.ndarray,
        judged: np.ndarray, miss_query: np.ndarray | None = None,
        miss_position: np.ndarray | None = None, miss_grade: np.ndarray | None = None,
        misses_from: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        self.num_ret = num_ret
        self.present = present
        self.hit_query = hit_query
        self.hit_position = hit_position
        self.hit_grade = hit_grade
        self.judged_offsets = judged_offsets
        self.judged = judged
        self.miss_query = miss_query
        self.miss_position = miss_position
        self.miss_grade = miss_grade
        self._misses_from = misses_from

    @classmethod
    def from_ranked_grades(
        cls, lengths: np.ndarray, grades: np.ndarray, judged_lengths: np.ndarray,
        judged: np.ndarray, present: np.ndarray, unjudged: np.ndarray | None = None,
    ) -> Rankings:
        """From the grades of every retrieved document in rank order (``lengths`` per query).

        ``unjudged`` marks the retrieved documents absent from the judgements (their grade
        is then ignored); without it the ``miss_*`` arrays are left out.
        """
        queries = np.repeat(np.arange(len(lengths)), lengths)
        offsets = offsets_of(lengths)
        hits = np.flatnonzero(grades > 0)
        misses = None if unjudged is None else np.flatnonzero(~unjudged & ~(grades > 0))
        query = queries[hits]
        miss = (None, None, None) if misses is None else (
            queries[misses], misses - offsets[queries[misses]], grades[misses]
        )
        return cls(lengths, present, query, hits - offsets[query], grades[hits],
                   offsets_of(judged_lengths), judged, *miss)

    @classmethod
    def concatenate(cls, parts: Sequence[Rankings]) -> Rankings:
        """One :class:`Rankings` of the queries of ``parts``, in order."""
        starts = offsets_of(np.array([p.n for p in parts], dtype=np.int64))
        judged_starts = offsets_of(np.array([len(p.judged) for p in parts], dtype=np.int64))
        return cls(
            np.concatenate([p.num_ret for p in parts]),
            np.concatenate([p.present for p in parts]),
            np.concatenate([p.hit_query + start for p, start in zip(parts, starts)]),
            np.concatenate([p.hit_position for p in parts]),
            np.concatenate([p.hit_grade for p in parts]),
            np.concatenate([[0]] + [p.judged_offsets[1:] + s for p, s in zip(parts, judged_starts)]),
            np.concatenate([p.judged for p in parts]),
            *_concatenate_misses(parts, starts),
        )

    @property
    def has_misses(self) -> bool:
        """Whether the judged non-hit retrieved documents (``miss_*``) are known."""
        return self.miss_query is not None or self._misses_from is not None

    def misses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``miss_query``, ``miss_position``, ``miss_grade``; an error when not known."""
        if self.miss_query is None and self._misses_from is not None:
            self.miss_query, self.miss_position, self.miss_grade = self._misses_from()
            self._misses_from = None
        if self.miss_query is None or self.miss_position is None or self.miss_grade is None:
            raise EvalcoreError(
                "these rankings do not keep the judged non-relevant retrieved documents, which "
                "this measure needs; build them with Rankings.from_ranked_grades(..., unjudged=...)"
            )
        return self.miss_query, self.miss_position, self.miss_grade

    @cached_property
    def judged_ret(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Query, position and grade of every judged retrieved document, by query and rank (read-only)."""
        miss_query, miss_position, miss_grade = self.misses()
        width = int(self.num_ret.max(initial=0)) + 1
        # hits and misses are each sorted already: a stable sort of their keys is one merge
        order = np.argsort(np.concatenate([self.hit_query * width + self.hit_position,
                                           miss_query * width + miss_position]), kind="stable")
        out = (np.concatenate([self.hit_query, miss_query])[order],
               np.concatenate([self.hit_position, miss_position])[order],
               np.concatenate([self.hit_grade, miss_grade])[order])
        return _read_only(*out)

    def truncated(self, max_docs: int) -> Rankings:
        """Only the top ``max_docs`` documents of each query (trec_eval -M)."""
        keep = self.hit_position < max_docs
        miss: tuple[np.ndarray | None, ...] = (None, None, None)
        if self.has_misses:
            kept = self.misses()[1] < max_docs
            miss = tuple(a[kept] for a in self.misses())
        return Rankings(
            np.minimum(self.num_ret, max_docs), self.present, self.hit_query[keep],
            self.hit_position[keep], self.hit_grade[keep], self.judged_offsets, self.judged, *miss,
        )

    def judged_only(self) -> Rankings:
        """Rankings of the judged documents only, unjudged ones removed (trec_eval -J).

        As trec_eval, a document with a negative grade counts as unjudged here.
        """
        query, position, grade = self.judged_ret
        keep = grade >= 0
        query, grade = query[keep], grade[keep]
        counts = np.bincount(query, minlength=self.n)
        position = np.arange(len(query)) - offsets_of(counts)[query]
        hit = grade > 0
        return Rankings(
            counts, self.present, query[hit], position[hit], grade[hit], self.judged_offsets,
            self.judged, query[~hit], position[~hit], grade[~hit],
        )

    @property
    def n(self) -> int:
        return len(self.num_ret)

    @cached_property
    def judged_query(self) -> np.ndarray:
        return np.repeat(np.arange(self.n), np.diff(self.judged_offsets))

    def num_judged_at_least(self, level: float) -> np.ndarray:
        """How many judged documents of each query have a grade of at least ``level`` (read-only)."""
        counts = self._judged_counts.get(level)
        if counts is None:
            counts = np.bincount(self.judged_query, weights=self.judged >= level, minlength=self.n)
            counts.flags.writeable = False
            self._judged_counts[level] = counts
        return counts

    @cached_property
    def _judged_counts(self) -> dict[float, np.ndarray]:
        return {}

    @cached_property
    def ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ideal rankings: positive judged grades by query then grade descending, their
        queries, and their 0-based positions (read-only)."""
        positive = self.judged > 0
        grades, queries = _descending_within(self.judged[positive], self.judged_query[positive], self.n)
        position = np.arange(len(queries)) - offsets_of(np.bincount(queries, minlength=self.n))[queries]
        return _read_only(grades, queries, position)

    @cached_property
    def num_judged_positive(self) -> np.ndarray:
        """How many judged documents of each query have a positive grade (read-only)."""
        counts = np.bincount(self.ideal[1], minlength=self.n)
        counts.flags.writeable = False
        return counts

    def shared(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """``build()``, computed once for these rankings and kept under ``key``.

        The intermediate arrays several measures derive alike (the relevant hits at a level,
        the ideal gains, running counts) are built by the first measure that needs them and
        reused by the others scored over the same rankings.
        """
        cache = self._shared
        if key not in cache:
            cache[key] = build()
        return cache[key]

    @cached_property
    def _shared(self) -> dict[Hashable, Any]:
        return {}


def _descending_within(values: np.ndarray, queries: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``queries`` sorted by query, then value descending.

    Small non-negative whole values (relevance grades) are counted per query rather than
    sorted: the result is the same multiset in the same order.
    """
    if len(values) == 0:
        return values, queries
    top = float(values.max())
    small = 0 <= float(values.min()) and n * (top + 1) <= 4 * len(values) + 1024
    if small and np.array_equal(values, np.floor(values)):
        levels = int(top) + 1
        counts = np.bincount(queries * levels + (int(top) - values.astype(np.int64)), minlength=n * levels)
        descending = np.arange(top, -1.0, -1.0, dtype=values.dtype)
        return np.repeat(np.tile(descending, n), counts), np.repeat(np.arange(n), levels).repeat(counts)
    order = np.lexsort((-values, queries))
    return values[order], queries[order]


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _concatenate_misses(parts: Sequence[Rankings], starts: np.ndarray) -> tuple[np.ndarray | None, ...]:
    if not parts or not all(p.has_misses for p in parts):
        return (None, None, None)
    misses = [p.misses() for p in parts]
    return (
        np.concatenate([m[0] + start for m, start in zip(misses, starts)]),
        np.concatenate([m[1] for m in misses]),
        np.concatenate([m[2] for m in misses]),
    )


def offsets_of(lengths: np.ndarray) -> np.ndarray:
    """``[0, l0, l0 + l1, ...]``: where each query's slice of a flat array starts."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def trec_scores(scores: np.ndarray) -> np.ndarray:
    """Scores as trec_eval compares them: single precision (it stores C floats), -0 as 0."""
    with np.errstate(over="ignore"):  # beyond the float range becomes inf, as in C
        single = scores.astype(np.float32)
    single += np.float32(0.0)
    return single


def rank_order(
    scores: np.ndarray, lengths: np.ndarray, doc_ids: Callable[[int], Sequence[str]], ties: str,
) -> np.ndarray:
    """The permutation of flat ``scores`` that ranks each query's documents.

    Scores descending. ``ties='trec'`` is trec_eval's rule: scores are compared as trec_eval
    stores them, in single precision, and equal ones ordered by document id descending.
    ``ties='input'`` compares the scores as given and keeps equal ones in input order.
    ``doc_ids(q)`` gives query ``q``'s document ids in input order; it is called only for
    queries that contain tied scores.
    """
    if ties == "trec":
        scores = trec_scores(scores)
    offsets = offsets_of(lengths)
    order = _stable_descending(scores, lengths, offsets)
    if ties == "trec" and len(order) > 1:
        ranked = scores[order]
        same_query = np.diff(np.repeat(np.arange(len(lengths)), lengths)) == 0
        tied = np.flatnonzero((ranked[1:] == ranked[:-1]) & same_query)
        for q in np.unique(np.searchsorted(offsets, tied, side="right") - 1):
            start, stop = offsets[q], offsets[q + 1]
            order[start:stop] = start + np.asarray(
                trec_order(scores[start:stop].tolist(), doc_ids(int(q))), dtype=np.int64
            )
    return order


def trec_order(scores: Sequence[float], doc_ids: Sequence[str]) -> list[int]:
    """Indices of one query's documents by score descending, then doc id descending."""
    return sorted(range(len(scores)), key=lambda i: (scores[i], doc_ids[i]), reverse=True)


def _stable_descending(scores: np.ndarray, lengths: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per-query stable argsort of ``-scores`` as flat indices."""
    n_queries, total = len(lengths), len(scores)
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    longest = int(lengths.max())
    if n_queries * longest > _MAX_PADDING * total + 1024:
        query = np.repeat(np.arange(n_queries), lengths)
        return np.lexsort((-scores, query))
    if n_queries * longest == total:
        local = np.argsort(-scores.reshape(n_queries, longest), axis=1, kind="stable")
        return (local + offsets[:-1, None]).ravel()
    filled = np.arange(longest) < lengths[:, None]
    matrix = np.full((n_queries, longest), np.inf, dtype=scores.dtype)
    matrix[filled] = -scores
    local = np.argsort(matrix, axis=1, kind="stable")
    # padding sorts last (inf, and after any real inf thanks to the stable sort)
    return (local + offsets[:-1, None])[filled]
