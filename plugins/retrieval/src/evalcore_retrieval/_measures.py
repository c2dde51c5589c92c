"""The measures, vectorised over all queries of a :class:`Rankings` (one value per query).

Definitions follow trec_eval 10: a retrieved document is relevant when its judged grade
is at least ``level`` (unjudged documents have grade 0); ``num_rel`` counts the judged
documents at or above ``level``. Divisions by zero give 0.
"""

from __future__ import annotations

import numpy as np

from ._ranking import Rankings


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _hits(r: Rankings, k: int | None, level: float) -> np.ndarray:
    relevant = r.gains >= level
    if k is not None:
        relevant &= r.position < k
    return r.per_query(relevant)


def precision(r: Rankings, k: int, level: float, denominator: str = "k") -> np.ndarray:
    """``P_k``: relevant in the top k / k (``denominator='retrieved'``: / min(k, retrieved))."""
    divide_by = np.full(r.n, float(k)) if denominator == "k" else np.minimum(k, r.num_ret)
    return _ratio(_hits(r, k, level), divide_by)


def recall(r: Rankings, k: int, level: float, capped: bool = False) -> np.ndarray:
    """``recall_k``: relevant in the top k / num_rel (``capped``: / min(k, num_rel))."""
    num_rel = r.num_judged_at_least(level)
    return _ratio(_hits(r, k, level), np.minimum(num_rel, k) if capped else num_rel)


def success(r: Rankings, k: int, level: float) -> np.ndarray:
    """``success_k``: 1 when a relevant document is in the top k, else 0."""
    return (_hits(r, k, level) > 0).astype(float)


def reciprocal_rank(r: Rankings, k: int | None, level: float) -> np.ndarray:
    """``recip_rank``: 1 / rank of the first relevant document (within the top k), else 0."""
    relevant = r.gains >= level
    if k is not None:
        relevant &= r.position < k
    where = np.flatnonzero(relevant)
    queries, first = np.unique(r.query[where], return_index=True)
    out = np.zeros(r.n)
    out[queries] = 1.0 / (r.position[where[first]] + 1)
    return out


def average_precision(r: Rankings, k: int | None, level: float) -> np.ndarray:
    """``map`` / ``map_cut_k``: sum of precision at each relevant rank (up to k) / num_rel."""
    relevant = r.gains >= level
    counted = np.concatenate(([0], np.cumsum(relevant)))
    within = counted[1:] - counted[r.offsets[:-1]][r.query]
    precision_at = np.where(relevant, within / (r.position + 1), 0.0)
    if k is not None:
        precision_at[r.position >= k] = 0.0
    return _ratio(r.per_query(precision_at), r.num_judged_at_least(level))


def r_precision(r: Rankings, level: float) -> np.ndarray:
    """``Rprec``: relevant in the top num_rel / num_rel."""
    num_rel = r.num_judged_at_least(level)
    relevant = (r.gains >= level) & (r.position < num_rel[r.query])
    return _ratio(r.per_query(relevant), num_rel)


def ndcg(r: Rankings, k: int, gain: str = "linear") -> np.ndarray:
    """``ndcg_cut_k``: DCG of the top k / DCG of the ideal top k from all judged documents.

    Gains are the grades (``gain='exp2'``: 2^grade - 1); grades <= 0 give no gain; the
    discount of rank i is log2(i + 1).
    """
    top = r.position < k
    dcg = r.per_query(np.where(top, _gain(r.gains, gain) / np.log2(r.position + 2), 0.0))
    positive = r.judged > 0
    grades, queries = r.judged[positive], r.judged_query[positive]
    order = np.lexsort((-grades, queries))
    grades, queries = grades[order], queries[order]
    starts = np.searchsorted(queries, np.arange(r.n))
    ideal_position = np.arange(len(queries)) - starts[queries]
    keep = ideal_position < k
    ideal = np.bincount(
        queries[keep], weights=_gain(grades[keep], gain) / np.log2(ideal_position[keep] + 2),
        minlength=r.n,
    )
    return _ratio(dcg, ideal)


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    positive = np.maximum(grades, 0.0)
    return np.exp2(positive) - 1.0 if gain == "exp2" else positive
