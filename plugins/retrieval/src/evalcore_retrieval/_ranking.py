"""Rankings of many queries in flat (CSR) arrays, and the trec_eval ordering that builds them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np

# Pad to a (queries x longest run) matrix only while it stays this close to the flat size.
_MAX_PADDING = 4


class Rankings:
    """Ranked retrieved documents and judged grades of ``n`` queries.

    ``gains[offsets[q]:offsets[q + 1]]`` are the relevance grades of query ``q``'s retrieved
    documents in rank order (0 for unjudged ones); ``judged[judged_offsets[q]:...]`` the
    grades of every judged document of ``q``. ``present[q]`` says whether the query was
    retrieved for at all.
    """

    def __init__(
        self, offsets: np.ndarray, gains: np.ndarray, judged_offsets: np.ndarray,
        judged: np.ndarray, present: np.ndarray,
    ) -> None:
        self.offsets = offsets
        self.gains = gains
        self.judged_offsets = judged_offsets
        self.judged = judged
        self.present = present

    @property
    def n(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def query(self) -> np.ndarray:
        """The query index of each retrieved document."""
        return np.repeat(np.arange(self.n), self.num_ret)

    @cached_property
    def position(self) -> np.ndarray:
        """The 0-based rank of each retrieved document within its query."""
        return np.arange(len(self.gains)) - np.repeat(self.offsets[:-1], self.num_ret)

    @cached_property
    def judged_query(self) -> np.ndarray:
        return np.repeat(np.arange(self.n), np.diff(self.judged_offsets))

    def per_query(self, weights: np.ndarray) -> np.ndarray:
        """Sum ``weights`` (one per retrieved document) within each query."""
        return np.bincount(self.query, weights=weights, minlength=self.n)

    def num_judged_at_least(self, level: float) -> np.ndarray:
        """How many judged documents of each query have a grade of at least ``level``."""
        return np.bincount(self.judged_query, weights=self.judged >= level, minlength=self.n)


def offsets_of(lengths: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


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
        scores = scores.astype(np.float32)
    offsets = offsets_of(lengths)
    order = _stable_descending(scores, lengths, offsets)
    if ties == "trec" and len(order) > 1:
        ranked = scores[order]
        tied = (ranked[1:] == ranked[:-1]) & (np.diff(np.repeat(np.arange(len(lengths)), lengths)) == 0)
        if tied.any():
            start_of = np.searchsorted(offsets, np.flatnonzero(tied), side="right") - 1
            for q in np.unique(start_of):
                start, stop = offsets[q], offsets[q + 1]
                ids = doc_ids(int(q))
                local = scores[start:stop]
                fixed = sorted(range(stop - start), key=lambda i: (local[i], ids[i]), reverse=True)
                order[start:stop] = start + np.asarray(fixed, dtype=np.int64)
    return order


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
        matrix = -scores.reshape(n_queries, longest)
        local = np.argsort(matrix, axis=1, kind="stable")
        return (local + offsets[:-1, None]).ravel()
    columns = np.arange(longest)
    filled = columns < lengths[:, None]
    matrix = np.full((n_queries, longest), np.inf)
    matrix[filled] = -scores
    local = np.argsort(matrix, axis=1, kind="stable")
    # padding sorts last (inf, and after any real inf thanks to the stable sort)
    return (local + offsets[:-1, None])[filled]
