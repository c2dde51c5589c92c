"""trec_eval's experimental gain measures ``G``, ``ndcg_rel`` and ``Rndcg`` (gains = grades).

Each follows trec_eval 10's loop over ranks, rewritten over flat arrays: the ideal ranking
is every positively graded judged document by grade descending, and ``ideal_dcg(m)`` its
DCG over the first ``m`` ranks.
"""

from __future__ import annotations

import numpy as np

from ._measures import _group_starts, _ratio
from ._ranking import Rankings, offsets_of


class _Ideal:
    """The ideal ranking of every query: positive grades descending, flat, with prefix sums."""

    def __init__(self, r: Rankings) -> None:
        positive = r.judged > 0
        grades, queries = r.judged[positive], r.judged_query[positive]
        order = np.lexsort((-grades, queries))
        self.gain, self.query = grades[order], queries[order]
        self.count = np.bincount(self.query, minlength=r.n)
        self.start = offsets_of(self.count)
        position = np.arange(len(self.query)) - self.start[self.query]
        self.position = position
        # dcg[start[q] + m] = DCG of query q's first m ideal ranks (one leading 0 per query)
        self.dcg = _prefix(self.query, self.gain / np.log2(position + 2), self.count)
        self.gains = _prefix(self.query, self.gain, self.count)
        self.cost = _prefix(self.query, np.maximum(self.gain, 1.0), self.count)

    def at(self, prefix: np.ndarray, query: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``prefix`` of ``query`` over its first ``m`` ideal ranks (m capped at their number)."""
        return prefix[self.start[query] + query + np.minimum(m, self.count[query])]


def _prefix(query: np.ndarray, values: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per-query running sums with a leading 0 each: query q's run at ``start[q] + q``."""
    out = np.zeros(len(values) + len(count))
    slots = np.arange(len(values)) + query + 1
    out[slots] = values
    groups = np.repeat(np.arange(len(count)), count + 1)
    running = np.cumsum(out)
    first = offsets_of(count + 1)[:-1]
    return running - running[first][groups] if len(running) else running


def _results_dcg(r: Rankings) -> np.ndarray:
    """The DCG of each hit's query through the hit's rank (inclusive)."""
    contribution = r.hit_grade / np.log2(r.hit_position + 2)
    running = np.cumsum(contribution)
    starts = _group_starts(r.hit_query, r.n)
    return running - (running[starts] - contribution[starts])


def normalized_gain(r: Rankings) -> np.ndarray:
    """``G``: each retrieved document's gain / log2(2 + ideal cost so far - gain so far), summed,
    over the total ideal gain; the ideal cost of a rank is max(ideal gain, 1)."""
    ideal = _Ideal(r)
    gained = r.hit_grade.copy()
    running = np.cumsum(gained)
    starts = _group_starts(r.hit_query, r.n)
    so_far = running - (running[starts] - gained[starts])
    ranks = r.hit_position + 1
    beyond = np.maximum(ranks - ideal.count[r.hit_query], 0)
    cost = ideal.at(ideal.cost, r.hit_query, ranks) + beyond
    total = np.bincount(r.hit_query, weights=gained / np.log2(2 + cost - so_far), minlength=r.n)
    return _ratio(total, ideal.at(ideal.gains, np.arange(r.n), ideal.count))


def ndcg_rel(r: Rankings) -> np.ndarray:
    """``ndcg_rel``: nDCG averaged over the relevant documents, taken at the rank of each
    relevant retrieved one and at the end of the ranking for each one not retrieved."""
    ideal = _Ideal(r)
    every = np.arange(r.n)
    dcg = _results_dcg(r)
    at_hits = dcg / ideal.at(ideal.dcg, r.hit_query, r.hit_position + 1)
    total_dcg = np.bincount(r.hit_query, weights=r.hit_grade / np.log2(r.hit_position + 2), minlength=r.n)
    hits = np.bincount(r.hit_query, minlength=r.n)
    ideal_total = ideal.at(ideal.dcg, every, ideal.count)
    missed = _ratio((ideal.count - hits) * total_dcg, ideal_total)
    total = np.bincount(r.hit_query, weights=at_hits, minlength=r.n) + missed
    return _ratio(total, ideal.count.astype(float))


def r_level_ndcg(r: Rankings, level: float) -> np.ndarray:
    """``Rndcg``: nDCG averaged at the ranks where the ideal gain drops (the cumulative number
    of documents of each grade, highest first), plus the end of the ranking when the ideal
    gain reaches 0 before it; 0 for a query without relevant documents."""
    ideal = _Ideal(r)
    # boundaries: the last ideal rank of each grade, i.e. where the next grade starts
    last = np.ones(len(ideal.gain), dtype=bool)
    last[:-1] = (ideal.gain[1:] != ideal.gain[:-1]) | (ideal.query[1:] != ideal.query[:-1])
    query, boundary = ideal.query[last], ideal.position[last] + 1
    value = _dcg_through(r, query, np.minimum(boundary, r.num_ret[query])) / ideal.at(ideal.dcg, query, boundary)
    total = np.bincount(query, weights=value, minlength=r.n).astype(float)
    terms = np.bincount(query, minlength=r.n).astype(float)
    every = np.arange(r.n)
    extra = ideal.count + 1 < r.num_ret
    total += np.where(extra, _ratio(_dcg_through(r, every, r.num_ret), ideal.at(ideal.dcg, every, ideal.count)), 0.0)
    terms += extra
    out = _ratio(total, terms)
    out[r.num_judged_at_least(level) == 0] = 0.0
    return out


def _dcg_through(r: Rankings, query: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The DCG of ``query``'s ranking over its first ``m`` ranks."""
    contribution = r.hit_grade / np.log2(r.hit_position + 2)
    running = np.concatenate([[0.0], np.cumsum(contribution)])
    width = int(r.num_ret.max(initial=0)) + 1
    keys = r.hit_query * width + r.hit_position
    before = np.searchsorted(keys, query * width + m)
    start = np.searchsorted(keys, query * width)
    return running[before] - running[start]
