"""The measures, vectorised over all queries of a :class:`Rankings` (one value per query).

Definitions follow trec_eval 10: a retrieved document is relevant when its judged grade
is at least ``level`` (unjudged documents have grade 0); ``num_rel`` counts the judged
documents at or above ``level``. Divisions by zero give 0. Every measure works on the
hits (retrieved documents with a positive grade) only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._derived import Ideal, Scan, group_starts, hit_gains, ideal, powers, relevant
from ._ranking import Rankings, offsets_of


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(len(numerator))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def precision(r: Rankings, k: int, level: float, denominator: str = "k") -> np.ndarray:
    """``P_k``: relevant in the top k / k (``denominator='retrieved'``: / min(k, retrieved))."""
    divide_by = np.full(r.n, float(k)) if denominator == "k" else np.minimum(k, r.num_ret)
    return _ratio(relevant(r, level).top(k), divide_by)


def recall(r: Rankings, k: int, level: float, capped: bool = False) -> np.ndarray:
    """``recall_k``: relevant in the top k / num_rel (``capped``: / min(k, num_rel))."""
    rel = relevant(r, level)
    return _ratio(rel.top(k), np.minimum(rel.num_rel, k) if capped else rel.num_rel)


def success(r: Rankings, k: int, level: float) -> np.ndarray:
    """``success_k``: 1 when a relevant document is in the top k, else 0."""
    return (relevant(r, level).top(k) > 0).astype(float)


def reciprocal_rank(r: Rankings, k: int | None, level: float) -> np.ndarray:
    """``recip_rank``: 1 / rank of the first relevant document (within the top k), else 0."""
    rel = relevant(r, level)
    found = rel.count > 0
    first = rel.position[rel.start[:-1][found]]
    out = np.zeros(r.n)
    out[found] = 1.0 / (first + 1)
    if k is not None:
        out[np.flatnonzero(found)[first >= k]] = 0.0
    return out


def average_precision(r: Rankings, k: int | None, level: float, denominator: str = "relevant") -> np.ndarray:
    """``map`` / ``map_cut_k``: sum of precision at each relevant rank (up to k) / num_rel.

    ``denominator='retrieved'``: / the number of relevant documents retrieved (up to k), the
    Auepora RAG metric spec's mean of the precisions at the relevant ranks."""
    rel = relevant(r, level)
    return _ratio(rel.precision_sum(k), rel.top(k) if denominator == "retrieved" else rel.num_rel)


def r_precision(r: Rankings, level: float) -> np.ndarray:
    """``Rprec``: relevant in the top num_rel / num_rel."""
    rel = relevant(r, level)
    return _ratio(rel.above(rel.num_rel).astype(float), rel.num_rel)


def ndcg(r: Rankings, k: int | None, gain: str = "linear",
         gains: Mapping[int, float] | None = None) -> np.ndarray:
    """``ndcg`` / ``ndcg_cut_k``: DCG of the top k / DCG of the ideal top k from all judged documents.

    Gains are the grades (``gain='exp2'``: 2^grade - 1); grades <= 0 give no gain; the
    discount of rank i is log2(i + 1). ``gains`` maps grades to gains as trec_eval's
    ``ndcg.1=3.5,2=9`` does (unlisted grades keep their own value; negative grades mean
    unjudged and give nothing); the ideal ranking then uses only positive gains.
    """
    if gains:
        return _mapped_ndcg(r, k, gains)
    best = ideal(r, gain)
    return _ratio(hit_gains(r, gain).dcg(k), best.dcg_total if k is None else best.dcg_at(k))


def _mapped_ndcg(r: Rankings, k: int | None, gains: Mapping[int, float]) -> np.ndarray:
    """nDCG with trec_eval's gain map (``ndcg``'s ``gains``)."""
    query, position, grade = r.judged_ret
    top = position < k if k is not None else np.ones(len(position), dtype=bool)
    weights = _mapped_gain(grade[top], gains) / np.log2(position[top] + 2)
    dcg = np.bincount(query[top], weights=weights, minlength=r.n)
    judged_gain = _mapped_gain(r.judged, gains)
    positive = judged_gain > 0
    order = np.lexsort((-judged_gain[positive], r.judged_query[positive]))
    queries = r.judged_query[positive][order]
    best = Ideal(r, judged_gain[positive][order], queries, np.arange(len(queries)) - group_starts(queries, r.n))
    return _ratio(dcg, best.dcg_total if k is None else best.dcg_at(k))


def _mapped_gain(grades: np.ndarray, gains: Mapping[int, float]) -> np.ndarray:
    """trec_eval's gain of each grade: ``gains[grade]`` when given, else the grade; 0 when negative."""
    out = np.where(grades >= 0, grades, 0.0)
    for grade, value in gains.items():
        out[grades == grade] = value
    return out


def relative_precision(r: Rankings, k: int, level: float) -> np.ndarray:
    """``relative_P_k``: relevant in the top k / min(k, num_rel)."""
    rel = relevant(r, level)
    return _ratio(rel.top(k), np.minimum(k, rel.num_rel))


def precision_at_multiple(r: Rankings, multiple: float, level: float) -> np.ndarray:
    """``Rprec_mult_x``: precision at rank (int)(x * num_rel + 0.9), as trec_eval."""
    rel = relevant(r, level)
    cutoff = np.floor(multiple * rel.num_rel + 0.9)
    return _ratio(rel.above(cutoff).astype(float), cutoff)


def interpolated_precision(r: Rankings, recall: float, level: float, rounding: str = "round") -> np.ndarray:
    """``iprec_at_recall_x``: the highest precision at or after the rank where recall reaches x.

    As trec_eval 10, recall x means the first lround(x * num_rel) relevant documents
    (``rounding='v9'``: (long)(x * num_rel + 0.9), as trec_eval 9 and pytrec_eval); the value
    is 0 when fewer relevant documents are retrieved.
    """
    return relevant(r, level).interpolated(recall, rounding).copy()


def eleven_point_average(r: Rankings, level: float, rounding: str = "round") -> np.ndarray:
    """``11pt_avg``: interpolated precision averaged over recall 0.0, 0.1, ..., 1.0."""
    rel = relevant(r, level)
    total = np.zeros(r.n)
    for x in range(11):  # added in trec_eval's order, whatever the number of queries
        total += rel.interpolated(x / 10, rounding)
    return total / 11


def binary_g(r: Rankings, level: float) -> np.ndarray:
    """``binG``: sum over relevant retrieved of 1 / log2(2 + non-relevant ranked above) / num_rel."""
    rel = relevant(r, level)
    total = np.bincount(rel.query, weights=1.0 / np.log2(3 + rel.position - rel.nth), minlength=r.n)
    return _ratio(total, rel.num_rel)


def rbp(r: Rankings, p: float) -> np.ndarray:
    """``rbp``: (1 - p) * sum of gain * p^(rank - 1); as trec_eval, grades are divided by the
    query's highest judged grade when it exceeds 1."""
    best = ideal(r)
    top = np.zeros(r.n)
    has = best.count > 0
    top[has] = best.gain[best.start[:-1][has]]  # the highest positive grade of each query
    scale = np.where(top > 1, top, 1.0)
    weights = r.hit_grade / scale[r.hit_query] * powers(r, p)[r.hit_position]
    return (1 - p) * np.bincount(r.hit_query, weights=weights, minlength=r.n)


def err(r: Rankings, k: int, max_grade: float) -> np.ndarray:
    """``ERR@k`` (Chapelle et al., CIKM 2009) as gdeval computes it: the sum over the top k of
    R_i / i * prod_{j < i} (1 - R_j), R = (2^grade - 1) / 2^max_grade (grades capped at it)."""
    top = r.hit_position < k
    query, position = r.hit_query[top], r.hit_position[top]
    stop = (np.exp2(np.minimum(r.hit_grade[top], max_grade)) - 1.0) / np.exp2(max_grade)
    log_go_on = np.log1p(-np.minimum(stop, 1.0 - 1e-12))
    counts = np.bincount(query, minlength=r.n)
    starts = offsets_of(counts)
    # exclusive: the hits ranked above; each query's own running sum
    running = np.zeros(len(log_go_on))
    running[1:] = Scan(starts, counts).sums(log_go_on)[:-1]
    running[starts[:-1][counts > 0]] = 0.0
    return np.bincount(query, weights=stop * np.exp(running) / (position + 1), minlength=r.n)
