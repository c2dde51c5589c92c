"""The measures, vectorised over all queries of a :class:`Rankings` (one value per query).

Definitions follow trec_eval 10: a retrieved document is relevant when its judged grade
is at least ``level`` (unjudged documents have grade 0); ``num_rel`` counts the judged
documents at or above ``level``. Divisions by zero give 0. Every measure works on the
hits (retrieved documents with a positive grade) only.
"""

from __future__ import annotations

from collections.abc import Mapping

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


def average_precision(r: Rankings, k: int | None, level: float, denominator: str = "relevant") -> np.ndarray:
    """``map`` / ``map_cut_k``: sum of precision at each relevant rank (up to k) / num_rel.

    ``denominator='retrieved'``: / the number of relevant documents retrieved (up to k), the
    Auepora RAG metric spec's mean of the precisions at the relevant ranks."""
    where = np.flatnonzero(_relevant(r, None, level))
    query, position = r.hit_query[where], r.hit_position[where]
    # the i-th relevant document of its query (1-based): hits are sorted by query, position
    nth = np.arange(1, len(where) + 1) - _group_starts(query, r.n)
    precision_at = nth / (position + 1)
    if k is not None:
        precision_at[position >= k] = 0.0
    total = np.bincount(query, weights=precision_at, minlength=r.n)
    if denominator == "retrieved":
        return _ratio(total, r.count(_relevant(r, k, level)))
    return _ratio(total, r.num_judged_at_least(level))


def r_precision(r: Rankings, level: float) -> np.ndarray:
    """``Rprec``: relevant in the top num_rel / num_rel."""
    num_rel = r.num_judged_at_least(level)
    mask = _relevant(r, None, level) & (r.hit_position < num_rel[r.hit_query])
    return _ratio(r.count(mask), num_rel)


def ndcg(r: Rankings, k: int | None, gain: str = "linear",
         gains: Mapping[int, float] | None = None) -> np.ndarray:
    """``ndcg`` / ``ndcg_cut_k``: DCG of the top k / DCG of the ideal top k from all judged documents.

    Gains are the grades (``gain='exp2'``: 2^grade - 1); grades <= 0 give no gain; the
    discount of rank i is log2(i + 1). ``gains`` maps grades to gains as trec_eval's
    ``ndcg.1=3.5,2=9`` does (unlisted grades keep their own value; negative grades mean
    unjudged and give nothing); the ideal ranking then uses only positive gains.
    """
    if gains:
        query, position, grade = r.judged_ret
        ranked_gain = _mapped_gain(grade, gains)
        judged_gain = _mapped_gain(r.judged, gains)
        positive = judged_gain > 0
        ideal_gain, queries = judged_gain[positive], r.judged_query[positive]
        order = np.lexsort((-ideal_gain, queries))
        ideal_gain, queries = ideal_gain[order], queries[order]
        ideal_position = np.arange(len(queries)) - _group_starts(queries, r.n)
    else:
        query, position, ranked_gain = r.hit_query, r.hit_position, _gain(r.hit_grade, gain)
        ideal_grade, queries, ideal_position = r.ideal  # gains grow with grades: same order
        ideal_gain = _gain(ideal_grade, gain)
    top = position < k if k is not None else np.ones(len(position), dtype=bool)
    dcg = np.bincount(query[top], weights=ranked_gain[top] / np.log2(position[top] + 2), minlength=r.n)
    keep = ideal_position < k if k is not None else np.ones(len(queries), dtype=bool)
    ideal = np.bincount(
        queries[keep], weights=ideal_gain[keep] / np.log2(ideal_position[keep] + 2), minlength=r.n,
    )
    return _ratio(dcg, ideal)


def _mapped_gain(grades: np.ndarray, gains: Mapping[int, float]) -> np.ndarray:
    """trec_eval's gain of each grade: ``gains[grade]`` when given, else the grade; 0 when negative."""
    out = np.where(grades >= 0, grades, 0.0)
    for grade, value in gains.items():
        out[grades == grade] = value
    return out


def relative_precision(r: Rankings, k: int, level: float) -> np.ndarray:
    """``relative_P_k``: relevant in the top k / min(k, num_rel)."""
    return _ratio(r.count(_relevant(r, k, level)), np.minimum(k, r.num_judged_at_least(level)))


def precision_at_multiple(r: Rankings, multiple: float, level: float) -> np.ndarray:
    """``Rprec_mult_x``: precision at rank (int)(x * num_rel + 0.9), as trec_eval."""
    cutoff = np.floor(multiple * r.num_judged_at_least(level) + 0.9)
    mask = _relevant(r, None, level) & (r.hit_position < cutoff[r.hit_query])
    return _ratio(r.count(mask), cutoff)


def interpolated_precision(r: Rankings, recall: float, level: float, rounding: str = "round") -> np.ndarray:
    """``iprec_at_recall_x``: the highest precision at or after the rank where recall reaches x.

    As trec_eval 10, recall x means the first lround(x * num_rel) relevant documents
    (``rounding='v9'``: (long)(x * num_rel + 0.9), as trec_eval 9 and pytrec_eval); the value
    is 0 when fewer relevant documents are retrieved.
    """
    where = np.flatnonzero(_relevant(r, None, level))
    query, position = r.hit_query[where], r.hit_position[where]
    nth = np.arange(1, len(where) + 1) - _group_starts(query, r.n)
    precision_at = nth / (position + 1)
    # best precision from each relevant document to the end of its query (queries offset apart)
    shifted = precision_at[::-1] - 2.0 * query[::-1]
    best_after = np.maximum.accumulate(shifted)[::-1] + 2.0 * query
    needed = np.floor(recall * r.num_judged_at_least(level) + (0.5 if rounding == "round" else 0.9))
    wanted = np.maximum(needed, 1)
    out = np.zeros(r.n)
    pick = nth == wanted[query]
    out[query[pick]] = best_after[pick]
    out[needed > r.count(_relevant(r, None, level))] = 0.0
    return out


def eleven_point_average(r: Rankings, level: float, rounding: str = "round") -> np.ndarray:
    """``11pt_avg``: interpolated precision averaged over recall 0.0, 0.1, ..., 1.0."""
    return np.mean([interpolated_precision(r, x / 10, level, rounding) for x in range(11)], axis=0)


def binary_g(r: Rankings, level: float) -> np.ndarray:
    """``binG``: sum over relevant retrieved of 1 / log2(2 + non-relevant ranked above) / num_rel."""
    where = np.flatnonzero(_relevant(r, None, level))
    query, position = r.hit_query[where], r.hit_position[where]
    nth = np.arange(1, len(where) + 1) - _group_starts(query, r.n)
    total = np.bincount(query, weights=1.0 / np.log2(3 + position - nth), minlength=r.n)
    return _ratio(total, r.num_judged_at_least(level))


def rbp(r: Rankings, p: float) -> np.ndarray:
    """``rbp``: (1 - p) * sum of gain * p^(rank - 1); as trec_eval, grades are divided by the
    query's highest judged grade when it exceeds 1."""
    top = np.zeros(r.n)
    np.maximum.at(top, r.judged_query, r.judged)
    scale = np.where(top > 1, top, 1.0)
    weights = r.hit_grade / scale[r.hit_query] * np.power(p, r.hit_position)
    return (1 - p) * np.bincount(r.hit_query, weights=weights, minlength=r.n)


def err(r: Rankings, k: int, max_grade: float) -> np.ndarray:
    """``ERR@k`` (Chapelle et al., CIKM 2009) as gdeval computes it: the sum over the top k of
    R_i / i * prod_{j < i} (1 - R_j), R = (2^grade - 1) / 2^max_grade (grades capped at it)."""
    top = r.hit_position < k
    query, position = r.hit_query[top], r.hit_position[top]
    stop = (np.exp2(np.minimum(r.hit_grade[top], max_grade)) - 1.0) / np.exp2(max_grade)
    log_go_on = np.log1p(-np.minimum(stop, 1.0 - 1e-12))
    running = np.cumsum(log_go_on) - log_go_on  # exclusive: the hits ranked above
    starts = _group_starts(query, r.n)
    reach = np.exp(running - running[starts]) if len(running) else running
    return np.bincount(query, weights=stop * reach / (position + 1), minlength=r.n)


def _group_starts(query: np.ndarray, n: int) -> np.ndarray:
    """For sorted query indices, the index where each element's query starts."""
    return offsets_of(np.bincount(query, minlength=n))[query]


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    """The gain of positive grades: the grade, or 2^grade - 1."""
    return np.exp2(grades) - 1.0 if gain == "exp2" else grades
