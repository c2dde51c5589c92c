"""The measures, vectorised over all queries of a :class:`Rankings` (one value per query).

Definitions follow trec_eval 10: a retrieved document is relevant when its judged grade
is at least ``level`` (unjudged documents have grade 0); ``num_rel`` counts the judged
documents at or above ``level``. Divisions by zero give 0. Every measure works on the
hits (retrieved documents with a positive grade) only.
"""

from __future__ import annotations

import numpy as np

from ._ranking import Rankings, offsets_of


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _relevant(r: Rankings, k: int | None, level: float) -> np.ndarray:
    mask = r.hit_grade >= level
    if k is not None:
        mask &= r.hit_position < k
    return mask


def precision(r: Rankings, k: int, level: float, denominator: str = "k") -> np.ndarray:
    """``P_k``: relevant in the top k / k (``denominator='retrieved'``: / min(k, retrieved))."""
    divide_by = np.full(r.n, float(k)) if denominator == "k" else np.minimum(k, r.num_ret)
    return _ratio(r.count(_relevant(r, k, level)), divide_by)


def recall(r: Rankings, k: int, level: float, capped: bool = False) -> np.ndarray:
    """``recall_k``: relevant in the top k / num_rel (``capped``: / min(k, num_rel))."""
    num_rel = r.num_judged_at_least(level)
    return _ratio(r.count(_relevant(r, k, level)), np.minimum(num_rel, k) if capped else num_rel)


def success(r: Rankings, k: int, level: float) -> np.ndarray:
    """``success_k``: 1 when a relevant document is in the top k, else 0."""
    return (r.count(_relevant(r, k, level)) > 0).astype(float)


def reciprocal_rank(r: Rankings, k: int | None, level: float) -> np.ndarray:
    """``recip_rank``: 1 / rank of the first relevant document (within the top k), else 0."""
    where = np.flatnonzero(_relevant(r, k, level))
    queries, first = np.unique(r.hit_query[where], return_index=True)
    out = np.zeros(r.n)
    out[queries] = 1.0 / (r.hit_position[where[first]] + 1)
    return out


def average_precision(r: Rankings, k: int | None, level: float) -> np.ndarray:
    """``map`` / ``map_cut_k``: sum of precision at each relevant rank (up to k) / num_rel."""
    where = np.flatnonzero(_relevant(r, None, level))
    query, position = r.hit_query[where], r.hit_position[where]
    # the i-th relevant document of its query (1-based): hits are sorted by query, position
    nth = np.arange(1, len(where) + 1) - _group_starts(query, r.n)
    precision_at = nth / (position + 1)
    if k is not None:
        precision_at[position >= k] = 0.0
    total = np.bincount(query, weights=precision_at, minlength=r.n)
    return _ratio(total, r.num_judged_at_least(level))


def r_precision(r: Rankings, level: float) -> np.ndarray:
    """``Rprec``: relevant in the top num_rel / num_rel."""
    num_rel = r.num_judged_at_least(level)
    mask = _relevant(r, None, level) & (r.hit_position < num_rel[r.hit_query])
    return _ratio(r.count(mask), num_rel)


def ndcg(r: Rankings, k: int, gain: str = "linear") -> np.ndarray:
    """``ndcg_cut_k``: DCG of the top k / DCG of the ideal top k from all judged documents.

    Gains are the grades (``gain='exp2'``: 2^grade - 1); grades <= 0 give no gain; the
    discount of rank i is log2(i + 1).
    """
    top = r.hit_position < k
    dcg = r.total(top, _gain(r.hit_grade[top], gain) / np.log2(r.hit_position[top] + 2))
    positive = r.judged > 0
    grades, queries = r.judged[positive], r.judged_query[positive]
    order = np.lexsort((-grades, queries))
    grades, queries = grades[order], queries[order]
    ideal_position = np.arange(len(queries)) - _group_starts(queries, r.n)
    keep = ideal_position < k
    ideal = np.bincount(
        queries[keep], weights=_gain(grades[keep], gain) / np.log2(ideal_position[keep] + 2),
        minlength=r.n,
    )
    return _ratio(dcg, ideal)


def _group_starts(query: np.ndarray, n: int) -> np.ndarray:
    """For sorted query indices, the index where each element's query starts."""
    return offsets_of(np.bincount(query, minlength=n))[query]


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    return np.exp2(grades) - 1.0 if gain == "exp2" else grades
