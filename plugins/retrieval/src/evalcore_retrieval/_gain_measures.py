"""trec_eval's experimental gain measures ``G``, ``ndcg_rel`` and ``Rndcg`` (gains = grades).

Each follows trec_eval 10's loop over ranks, rewritten over flat arrays: the ideal ranking
is every positively graded judged document by grade descending, and ``ideal_dcg(m)`` its
DCG over the first ``m`` ranks.
"""

from __future__ import annotations

import numpy as np

from ._derived import hit_gains, ideal
from ._measures import _ratio
from ._ranking import Rankings


def normalized_gain(r: Rankings) -> np.ndarray:
    """``G``: each retrieved document's gain / log2(2 + ideal cost so far - gain so far), summed,
    over the total ideal gain; the ideal cost of a rank is max(ideal gain, 1)."""
    best = ideal(r)
    query = r.hit_query
    so_far = hit_gains(r).scan.sums(r.hit_grade)
    ranks = r.hit_position + 1
    beyond = np.maximum(ranks - best.count[query], 0)
    cost = best.at(best.cost, query, ranks) + beyond
    total = np.bincount(query, weights=r.hit_grade / np.log2(2 + cost - so_far), minlength=r.n)
    return _ratio(total, best.gain_total)


def ndcg_rel(r: Rankings) -> np.ndarray:
    """``ndcg_rel``: nDCG averaged over the relevant documents, taken at the rank of each
    relevant retrieved one and at the end of the ranking for each one not retrieved."""
    best, gains = ideal(r), hit_gains(r)
    at_hits = gains.running_dcg / best.at(best.dcg, r.hit_query, r.hit_position + 1)
    missed = _ratio((best.count - gains.count) * gains.dcg(None), best.dcg_total)
    total = np.bincount(r.hit_query, weights=at_hits, minlength=r.n) + missed
    return _ratio(total, best.count.astype(float))


def r_level_ndcg(r: Rankings, level: float) -> np.ndarray:
    """``Rndcg``: nDCG averaged at the ranks where the ideal gain drops (the cumulative number
    of documents of each grade, highest first), plus the end of the ranking when the ideal
    gain reaches 0 before it; 0 for a query without relevant documents."""
    best, gains = ideal(r), hit_gains(r)
    # boundaries: the last ideal rank of each grade, i.e. where the next grade starts
    last = np.ones(len(best.gain), dtype=bool)
    last[:-1] = (best.gain[1:] != best.gain[:-1]) | (best.query[1:] != best.query[:-1])
    query, boundary = best.query[last], best.position[last] + 1
    value = gains.through(query, np.minimum(boundary, r.num_ret[query])) / best.at(best.dcg, query, boundary)
    total = np.bincount(query, weights=value, minlength=r.n).astype(float)
    terms = np.bincount(query, minlength=r.n).astype(float)
    extra = best.count + 1 < r.num_ret
    total += np.where(extra, _ratio(gains.dcg(None), best.dcg_total), 0.0)
    terms += extra
    out = _ratio(total, terms)
    out[r.num_judged_at_least(level) == 0] = 0.0
    return out
