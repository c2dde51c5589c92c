"""What several measures derive alike from one :class:`Rankings`, built once and shared.

The metrics of ``all_trec`` are scored one after another over the same rankings (one chunk
of queries). Each accessor here keeps its result on the rankings (:meth:`Rankings.shared`),
so the relevant hits at a level, the ideal ranking, the discounted gains and the running
counts of judged documents are computed by the first measure that needs them only. Every
shared array is read-only: measures derive new arrays from them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np

from ._ranking import Rankings, offsets_of


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _memo(cache: dict, key: object, build: Callable[[], np.ndarray]) -> np.ndarray:
    if key not in cache:
        cache[key] = _frozen(build())
    return cache[key]


def group_starts(query: np.ndarray, n: int) -> np.ndarray:
    """For sorted query indices, the index where each element's query starts."""
    return offsets_of(np.bincount(query, minlength=n))[query]


class Scan:
    """Running sums and maxima within each query of flat values grouped by query.

    ``counts`` per query, ``start`` their offsets (:func:`offsets_of`). Each query's values
    are combined in order from its first, as trec_eval's loops combine them, with no
    arithmetic across queries (a running sum over all queries minus the sum before the query
    loses digits to cancellation, and makes a query's value depend on the others). The
    values are laid out rank by rank, each rank's queries in the same order (longest first),
    so each step of the loop over ranks combines two contiguous slices.
    """

    def __init__(self, start: np.ndarray, counts: np.ndarray) -> None:
        n, longest = len(counts), int(counts.max(initial=0))
        query = np.repeat(np.arange(n), counts)
        by_count = np.argsort(-counts, kind="stable")
        order = np.empty(n, dtype=np.int64)
        order[by_count] = np.arange(n)
        # how many queries have more than j values, for j = 0 .. longest - 1
        active = np.searchsorted(-counts[by_count], -np.arange(longest), side="left")
        slab = offsets_of(active)
        # (start of rank j - 1, start of rank j, queries with a rank j) for j = 1 .. longest - 1
        self.steps = list(zip(slab[:-2].tolist(), slab[1:-1].tolist(), active[1:].tolist()))
        self.at = _frozen(slab[np.arange(len(query)) - start[query]] + order[query])

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Each value plus those before it in its query."""
        laid = np.empty(len(values))
        laid[self.at] = values
        for before, here, active in self.steps:
            laid[here:here + active] += laid[before:before + active]
        return _frozen(laid[self.at])

    def max_from(self, values: np.ndarray) -> np.ndarray:
        """The largest of each value and those after it in its query."""
        laid = np.empty(len(values))
        laid[self.at] = values
        for before, here, active in reversed(self.steps):
            np.maximum(laid[before:before + active], laid[here:here + active], out=laid[before:before + active])
        return _frozen(laid[self.at])


class Ranked:
    """Documents of every query in flat arrays sorted by query then ``position`` (0-based rank).

    ``count`` and ``start`` per query; :meth:`above` counts a query's documents ranked above
    a given rank, and :meth:`first` reads per-query running sums.
    """

    def __init__(self, r: Rankings, query: np.ndarray, position: np.ndarray) -> None:
        self.n = r.n
        self.query, self.position = query, position
        counts = np.bincount(query, minlength=r.n)
        self.count = _frozen(counts)
        self.start = _frozen(offsets_of(counts))
        self.width = int(position.max(initial=-1)) + 1  # every position is below it
        self.every = np.arange(r.n)

    @cached_property
    def _keys(self) -> np.ndarray:
        return _frozen(self.query * self.width + self.position)

    def above(self, rank: np.ndarray | int, query: np.ndarray | None = None) -> np.ndarray:
        """How many documents of each query (of ``query``, default every one) have a position
        below ``rank`` (one per query, or one for all)."""
        if query is None:  # one pass over the documents
            below = self.position < (rank if np.isscalar(rank) else np.asarray(rank)[self.query])
            return np.bincount(self.query[below], minlength=self.n)
        rank = np.minimum(rank, self.width).astype(np.int64)
        return np.searchsorted(self._keys, query * self.width + rank) - self.start[query]

    def first(self, sums: np.ndarray, m: np.ndarray, query: np.ndarray | None = None) -> np.ndarray:
        """``sums`` (:meth:`Scan.sums` over these documents) of each query's first ``m``."""
        query = self.every if query is None else query
        if len(sums) == 0:
            return np.zeros(len(query))
        return np.where(m > 0, sums[np.maximum(self.start[query] + m - 1, 0)], 0.0)

    def sum_top(self, values: np.ndarray, k: int) -> np.ndarray:
        """Each query's sum of ``values`` (one per document) over its top ``k``: the same
        additions in the same order as the running sums' (bincount adds in array order)."""
        top = self.position < k
        return np.bincount(self.query[top], weights=values[top], minlength=self.n)

    @cached_property
    def scan(self) -> Scan:
        """Running sums and maxima over each query's documents in rank order."""
        return Scan(self.start, self.count)


class Relevant(Ranked):
    """The relevant retrieved documents (grade >= ``level``) of every query, in rank order.

    Besides :class:`Ranked`'s arrays: ``nth``, each one's 1-based index among its query's
    relevant documents, and ``num_rel`` the relevant judged documents per query.
    """

    def __init__(self, r: Rankings, level: float) -> None:
        keep = r.hit_grade >= level
        if keep.all():
            super().__init__(r, r.hit_query, r.hit_position)
        else:
            super().__init__(r, _frozen(r.hit_query[keep]), _frozen(r.hit_position[keep]))
        self.num_rel = r.num_judged_at_least(level)
        self.nth = _frozen(np.arange(1, len(self.query) + 1) - self.start[self.query])
        self.total = _frozen(self.count.astype(float))
        self._top: dict[int, np.ndarray] = {}
        self._interpolated: dict[tuple[float, str], np.ndarray] = {}

    @cached_property
    def precision_at(self) -> np.ndarray:
        """Precision at the rank of each relevant document."""
        return _frozen(self.nth / (self.position + 1))

    @cached_property
    def _precision_sums(self) -> np.ndarray:
        return self.scan.sums(self.precision_at)

    def top(self, k: int | None) -> np.ndarray:
        """How many relevant documents each query has in its top ``k`` (all, for ``None``; float)."""
        if k is None or k >= self.width:
            return self.total
        return _memo(self._top, k, lambda: self.above(k).astype(float))

    def precision_sum(self, k: int | None) -> np.ndarray:
        """The sum of the precisions at the relevant ranks within the top ``k``, per query."""
        if k is None or k >= self.width:
            return self._precision_total
        return self.first(self._precision_sums, self.top(k).astype(np.int64))

    @cached_property
    def _precision_total(self) -> np.ndarray:
        # the same additions in the same order as the running sums' last ones
        return _frozen(np.bincount(self.query, weights=self.precision_at, minlength=self.n))

    @cached_property
    def best_after(self) -> np.ndarray:
        """The highest precision at or after each relevant rank, within its query."""
        return self.scan.max_from(self.precision_at)

    def interpolated(self, recall: float, rounding: str) -> np.ndarray:
        """trec_eval's interpolated precision at ``recall`` (see ``interpolated_precision``)."""

        def build() -> np.ndarray:
            needed = np.floor(recall * self.num_rel + (0.5 if rounding == "round" else 0.9)).astype(np.int64)
            wanted = np.maximum(needed, 1)
            reached = wanted <= self.count
            out = np.zeros(self.n)
            out[reached] = self.best_after[self.start[:-1][reached] + wanted[reached] - 1]
            return out

        return _memo(self._interpolated, (recall, rounding), build)


def relevant(r: Rankings, level: float) -> Relevant:
    """The :class:`Relevant` hits of ``r`` at ``level``, shared."""
    return r.shared(("relevant", level), lambda: Relevant(r, level))


class Ideal(Ranked):
    """The ideal ranking of every query: its positive judged gains descending, flat.

    ``gain`` per ideal rank besides :class:`Ranked`'s arrays, and per-query running sums
    (:meth:`Scan.sums`) read through :meth:`at`.
    """

    def __init__(self, r: Rankings, gain: np.ndarray, query: np.ndarray, position: np.ndarray) -> None:
        super().__init__(r, query, position)
        self.gain = _frozen(gain)

    @cached_property
    def _discounted(self) -> np.ndarray:
        return _frozen(self.gain / np.log2(self.position + 2))

    @cached_property
    def dcg(self) -> np.ndarray:
        """Running DCG of the ideal ranks (read through :meth:`at`)."""
        return self.scan.sums(self._discounted)

    @cached_property
    def cost(self) -> np.ndarray:
        """Running sums of trec_eval's ideal cost max(gain, 1) (read through :meth:`at`)."""
        return self.scan.sums(np.maximum(self.gain, 1.0))

    # totals: the same additions in the same order as the running sums' last ones
    @cached_property
    def dcg_total(self) -> np.ndarray:
        """The ideal DCG of each query's whole ranking."""
        return _frozen(np.bincount(self.query, weights=self._discounted, minlength=self.n))

    @cached_property
    def gain_total(self) -> np.ndarray:
        """The sum of each query's ideal gains."""
        return _frozen(np.bincount(self.query, weights=self.gain, minlength=self.n))

    def dcg_at(self, k: int) -> np.ndarray:
        """The ideal DCG of each query's top ``k``."""
        return self.sum_top(self._discounted, k)

    def at(self, sums: np.ndarray, query: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``sums`` of ``query`` over its first ``m`` ideal ranks (``m`` capped at their number)."""
        return self.first(sums, np.minimum(m, self.count[query]), query)


def ideal(r: Rankings, gain: str = "linear") -> Ideal:
    """The ideal rankings of ``r`` with gains the grades (``gain='exp2'``: 2^grade - 1), shared."""

    def build() -> Ideal:
        grades, query, position = r.ideal
        return Ideal(r, np.exp2(grades) - 1.0 if gain == "exp2" else grades, query, position)

    return r.shared(("ideal", gain), build)


class HitGains(Ranked):
    """Every hit's discounted gain, gain / log2(rank + 1), and its queries' running DCG."""

    def __init__(self, r: Rankings, gain: str) -> None:
        super().__init__(r, r.hit_query, r.hit_position)
        grades = r.hit_grade
        self.discounted = _frozen((np.exp2(grades) - 1.0 if gain == "exp2" else grades)
                                  / np.log2(self.position + 2))
        self._dcg: dict[int | None, np.ndarray] = {}

    @cached_property
    def running_dcg(self) -> np.ndarray:
        """The DCG of each hit's query through the hit's rank (inclusive)."""
        return self.scan.sums(self.discounted)

    def dcg(self, k: int | None) -> np.ndarray:
        """The DCG of each query's top ``k`` (its whole ranking for ``None``)."""
        if k is not None and k >= self.width:
            k = None
        if k is None:  # the same additions in the same order as the running sums' last ones
            return _memo(self._dcg, k, lambda: np.bincount(self.query, weights=self.discounted, minlength=self.n))
        return _memo(self._dcg, k, lambda: self.sum_top(self.discounted, k))

    def through(self, query: np.ndarray, m: np.ndarray) -> np.ndarray:
        """The DCG of ``query``'s ranking over its first ``m`` ranks."""
        return self.first(self.running_dcg, self.above(m, query), query)


def hit_gains(r: Rankings, gain: str = "linear") -> HitGains:
    """The :class:`HitGains` of ``r``, shared."""
    return r.shared(("hit_gains", gain), lambda: HitGains(r, gain))


class JudgedRelevant:
    """The relevant documents (grade >= ``level``) among the judged retrieved ones
    (:attr:`Rankings.judged_ret`): query, position, and how many relevant, judged non-relevant
    (grade in [0, level)) and pool-unjudged (negative grade) documents of the query are ranked
    above each; ``nonrelevant_retrieved`` counts the judged non-relevant ones per query.
    ``level`` is at least 1 (``relevance_level``'s minimum), so no negative grade is relevant."""

    def __init__(self, r: Rankings, level: float) -> None:
        query, position, grade = r.judged_ret
        counts = np.bincount(query, minlength=r.n)
        start = offsets_of(counts)
        at = np.flatnonzero(grade >= level)
        self.query, self.position = _frozen(query[at]), _frozen(position[at])
        own = np.bincount(self.query, minlength=r.n)
        self.rel_above = _frozen(np.arange(len(at)) - offsets_of(own)[self.query])
        above = at - start[self.query]  # judged retrieved documents above, of any grade
        unjudged = grade < 0
        if unjudged.any():
            running = np.cumsum(unjudged)
            running -= unjudged
            self.unjudged_above = _frozen(running[at] - running[start[self.query]])
            counts -= np.bincount(query[unjudged], minlength=r.n)
        else:
            self.unjudged_above = _frozen(np.zeros(len(at), dtype=np.int64))
        self.nonrel_above = _frozen(above - self.rel_above - self.unjudged_above)
        self.nonrelevant_retrieved = _frozen(counts - own)


def judged_relevant(r: Rankings, level: float) -> JudgedRelevant:
    """The :class:`JudgedRelevant` documents of ``r`` at ``level``, shared."""
    return r.shared(("judged_relevant", level), lambda: JudgedRelevant(r, level))


def judged(r: Rankings) -> Ranked:
    """The retrieved documents that have a judgement (grade >= 0), shared."""

    def build() -> Ranked:
        query, position, grade = r.judged_ret
        keep = grade >= 0
        return Ranked(r, _frozen(query[keep]), _frozen(position[keep]))

    return r.shared("judged", build)


def powers(r: Rankings, p: float) -> np.ndarray:
    """``p ** rank`` for every 0-based rank of the rankings, shared (RBP's weights)."""
    return r.shared(("powers", p), lambda: _frozen(np.power(p, np.arange(int(r.num_ret.max(initial=0)) + 1))))
