"""Rankings of many queries as flat arrays, and trec_eval's document ordering."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np

# Pad to a (queries x longest run) matrix only while it stays this close to the flat size.
_MAX_PADDING = 4


class Rankings:
    """What the measures need of ``n`` ranked queries, in flat arrays.

    Only retrieved documents with a positive grade ("hits") matter to every measure, so
    only they are kept: ``hit_query``, ``hit_position`` (0-based rank) and ``hit_grade``,
    sorted by query then position. ``num_ret`` is the number retrieved per query,
    ``present`` whether the query was retrieved for at all, and
    ``judged[judged_offsets[q]:judged_offsets[q + 1]]`` the grades of every judged
    document of query ``q``.
    """

    def __init__(
        self, num_ret: np.ndarray, present: np.ndarray, hit_query: np.ndarray,
        hit_position: np.ndarray, hit_grade: np.ndarray, judged_offsets: np.ndarray,
        judged: np.ndarray,
    ) -> None:
        self.num_ret = num_ret
        self.present = present
        self.hit_query = hit_query
        self.hit_position = hit_position
        self.hit_grade = hit_grade
        self.judged_offsets = judged_offsets
        self.judged = judged

    @classmethod
    def from_ranked_grades(
        cls, lengths: np.ndarray, grades: np.ndarray, judged_lengths: np.ndarray,
        judged: np.ndarray, present: np.ndarray,
    ) -> Rankings:
        """From the grades of every retrieved document in rank order (``lengths`` per query)."""
        hits = np.flatnonzero(grades > 0)
        query = np.repeat(np.arange(len(lengths)), lengths)[hits]
        position = hits - offsets_of(lengths)[query]
        return cls(lengths, present, query, position, grades[hits], offsets_of(judged_lengths), judged)

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
        )

    @property
    def n(self) -> int:
        return len(self.num_ret)

    @cached_property
    def judged_query(self) -> np.ndarray:
        return np.repeat(np.arange(self.n), np.diff(self.judged_offsets))

    def count(self, mask: np.ndarray) -> np.ndarray:
        """The number of hits selected by ``mask`` in each query."""
        return np.bincount(self.hit_query[mask], minlength=self.n).astype(float)

    def total(self, mask: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The sum of ``weights`` (one per selected hit) in each query."""
        return np.bincount(self.hit_query[mask], weights=weights, minlength=self.n)

    def num_judged_at_least(self, level: float) -> np.ndarray:
        """How many judged documents of each query have a grade of at least ``level``."""
        return np.bincount(self.judged_query, weights=self.judged >= level, minlength=self.n)


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
