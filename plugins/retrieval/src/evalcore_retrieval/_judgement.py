"""Measures that look at which retrieved documents are judged (trec_eval 10 definitions).

They need the judged non-relevant retrieved documents (:meth:`Rankings.misses`). As in
trec_eval, a judged document with a negative grade is "in the pool but unjudged": neither
relevant nor non-relevant, and not counted among the judged documents of a query.
"""

from __future__ import annotations

import numpy as np

from ._derived import judged, judged_relevant, powers
from ._measures import _ratio
from ._ranking import Rankings

INFAP_EPSILON = 1e-5  # trec_eval's INFAP_EPSILON


def _judged_nonrelevant(r: Rankings, level: float) -> np.ndarray:
    """How many documents of each query are judged with a grade in [0, level)."""
    return np.bincount(r.judged_query, weights=(r.judged >= 0) & (r.judged < level), minlength=r.n)


def nonrelevant_judged_retrieved(r: Rankings, level: float) -> np.ndarray:
    """``num_nonrel_judged_ret``: retrieved documents judged with a grade in [0, level)."""
    return judged_relevant(r, level).nonrelevant_retrieved.astype(float)


def bpref(r: Rankings, level: float) -> np.ndarray:
    """``bpref``: for each relevant retrieved document, 1 - min(N above, R) / min(N, R),
    summed and divided by R (R relevant, N judged non-relevant documents of the query)."""
    return r.shared(("bpref", level), lambda: _bpref(r, level)).copy()


def _bpref(r: Rankings, level: float) -> np.ndarray:
    found = judged_relevant(r, level)
    num_rel = r.num_judged_at_least(level)
    q, above = found.query, found.nonrel_above
    denominator = np.minimum(_judged_nonrelevant(r, level), num_rel)[q]
    share = np.divide(np.minimum(above, num_rel[q]), denominator,
                      out=np.zeros(len(q)), where=denominator > 0)
    return _ratio(np.bincount(q, weights=np.where(above > 0, 1.0 - share, 1.0), minlength=r.n), num_rel)


def inferred_ap(r: Rankings, level: float) -> np.ndarray:
    """``infAP`` (Yilmaz and Aslam): average precision estimated from a sampled judgement pool.

    Unjudged documents outside the pool count as non-relevant; documents with a negative
    grade (in the pool, not judged) are assumed relevant in the proportion of the judged ones.
    """
    found = judged_relevant(r, level)
    j = found.position.astype(float)
    rel, nonrel, unj = found.rel_above, found.nonrel_above, found.unjudged_above
    safe_j = np.where(j > 0, j, 1.0)
    estimate = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel + nonrel + unj) / safe_j) * (
        (rel + INFAP_EPSILON) / (rel + nonrel + 2 * INFAP_EPSILON)
    )
    estimate[j == 0] = 1.0
    total = np.bincount(found.query, weights=estimate, minlength=r.n)
    return _ratio(total, r.num_judged_at_least(level))


def unjudged(r: Rankings, k: int) -> np.ndarray:
    """``unj_k``: the share of the top k (k, even when fewer are retrieved) with no judgement
    (a negative grade counts as unjudged)."""
    return (np.minimum(r.num_ret, k) - judged(r).above(k)) / k


def rbp_residual(r: Rankings, p: float) -> np.ndarray:
    """``rbp_resid``: how much RBP could still rise if every unjudged retrieved document had
    gain 1 (trec_eval: p^num_ret + (1 - p) * sum of p^(rank - 1) over unjudged ranks; 0 when
    every retrieved document is judged)."""
    seen = judged(r)
    # sum over all ranks of p^i, minus the judged ones
    every = (1.0 - np.power(p, r.num_ret)) / (1.0 - p) if p != 1 else r.num_ret.astype(float)
    judged_sum = np.bincount(seen.query, weights=powers(r, p)[seen.position], minlength=r.n)
    count = r.num_ret - seen.count
    out = np.power(p, r.num_ret) + (1 - p) * (every - judged_sum)
    return np.where(count > 0, out, 0.0)


def judged_share(r: Rankings, k: int | None) -> np.ndarray:
    """ir_measures' ``Judged@k``: the share of the top min(k, retrieved) documents that have a
    judgement of any grade; without k, of the whole ranking."""
    query, position, _ = r.judged_ret
    top = r.num_ret if k is None else np.minimum(r.num_ret, k)
    found = np.bincount(query[position < top[query]], minlength=r.n)
    return _ratio(found.astype(float), top.astype(float))
