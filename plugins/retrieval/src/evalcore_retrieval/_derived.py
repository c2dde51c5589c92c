"""What several measures derive alike from one :class:`Rankings`, built once and shared.

The metrics of ``all_trec`` are scored one after another over the same rankings (one chunk
of queries). Each accessor here keeps its result on the rankings (:meth:`Rankings.shared`),
so the relevant hits at a level, the ideal ranking, the discounted gains and the running
counts of judged documents are computed by the first measure that needs them only. Every
array is read-only: measures derive new arrays from them.
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


def running_sums(query: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per-query running sums with a leading 0 each, flat: query q's sum over its first m
    values at ``offsets_of(counts)[q] + q + m`` (``query`` sorted).

    Each query's values are added in order from 0, as trec_eval's loops add them (a running
    sum over all queries minus the sum before the query would lose digits to cancellation),
    in a (queries x longest) matrix while it stays close to the flat size.
    """
    counts = np.bincount(query, minlength=n)
    width = int(counts.max(initial=0)) + 1
    if n * width <= 4 * (len(values) + n) + 1024:
        filled = np.arange(width) < (counts + 1)[:, None]
        matrix = np.zeros((n, width))
        filled[:, 0] = False
        matrix[filled] = values
        filled[:, 0] = True
        return np.cumsum(matrix, axis=1)[filled]
    out = np.zeros(len(values) + n)
    out[np.arange(len(values)) + query + 1] = values
    running = np.cumsum(out)
    if len(running):
        running -= np.repeat(running[offsets_of(counts + 1)[:-1]], counts + 1)
    return running


class Relevant:
    """The relevant retrieved documents (grade >= ``level``) of every query, in rank order.

    ``query`` and ``position`` (0-based rank) of each, ``nth`` its 1-based index among its
    query's relevant documents, ``count`` (float) and ``start`` per query, ``num_rel`` the
    relevant judged documents per query.
    """

    def __init__(self, r: Rankings, level: float) -> None:
        self.n = r.n
        self.num_rel = r.num_judged_at_least(level)
        keep = r.hit_grade >= level
        if keep.all():
            self.query, self.position = r.hit_query, r.hit_position
        else:
            self.query, self.position = _frozen(r.hit_query[keep]), _frozen(r.hit_position[keep])
        counts = np.bincount(self.query, minlength=r.n)
        self.count = _frozen(counts.astype(float))
        self.start = _frozen(offsets_of(counts))
        self.nth = _frozen(np.arange(1, len(self.query) + 1) - self.start[self.query])
        self.longest = int(r.num_ret.max(initial=0))
        self._top: dict[int | None, np.ndarray] = {}
        self._precision_sums: dict[int | None, np.ndarray] = {}
        self._interpolated: dict[tuple[float, str], np.ndarray] = {}

    @cached_property
    def precision_at(self) -> np.ndarray:
        """Precision at the rank of each relevant document."""
        return _frozen(self.nth / (self.position + 1))

    def top(self, k: int | None) -> np.ndarray:
        """How many relevant documents each query has in its top ``k`` (all, for ``None``)."""
        if k is None or k >= self.longest:
            return self.count
        return _memo(self._top, k, lambda: np.bincount(
            self.query[self.position < k], minlength=self.n).astype(float))

    def below(self, cutoff: np.ndarray) -> np.ndarray:
        """How many relevant documents each query has above its own rank ``cutoff[q]``."""
        return np.bincount(self.query[self.position < cutoff[self.query]], minlength=self.n).astype(float)

    def precision_sum(self, k: int | None) -> np.ndarray:
        """The sum of the precisions at the relevant ranks within the top ``k``, per query."""
        if k is not None and k >= self.longest:
            k = None

        def build() -> np.ndarray:
            if k is None:
                return np.bincount(self.query, weights=self.precision_at, minlength=self.n)
            top = self.position < k
            return np.bincount(self.query[top], weights=self.precision_at[top], minlength=self.n)

        return _memo(self._precision_sums, k, build)

    @cached_property
    def best_after(self) -> np.ndarray:
        """The highest precision at or after each relevant rank, within its query."""
        # queries are offset 2 apart (precisions lie in [0, 1]): one running maximum for all
        shifted = self.precision_at[::-1] - 2.0 * self.query[::-1]
        return _frozen(np.maximum.accumulate(shifted)[::-1] + 2.0 * self.query)

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


class Ideal:
    """The ideal ranking of every query: its positive judged gains descending, flat.

    ``gain``, ``query``, ``position`` per ideal rank, ``count`` and ``start`` per query, and
    per-query running sums (see :func:`running_sums`) read through :meth:`at`.
    """

    def __init__(self, r: Rankings, gain: np.ndarray, query: np.ndarray) -> None:
        self.n = r.n
        self.gain, self.query = _frozen(gain), query
        counts = np.bincount(query, minlength=r.n)
        self.count = _frozen(counts)
        self.start = _frozen(offsets_of(counts))
        self.position = _frozen(np.arange(len(query)) - self.start[query])

    @cached_property
    def dcg(self) -> np.ndarray:
        """Running DCG of the ideal ranks (read through :meth:`at`)."""
        return _frozen(running_sums(self.query, self.gain / np.log2(self.position + 2), self.n))

    @cached_property
    def dcg_total(self) -> np.ndarray:
        """The ideal DCG of each query's whole ranking."""
        return _frozen(self.at(self.dcg, np.arange(self.n), self.count))

    def dcg_at(self, k: int) -> np.ndarray:
        """The ideal DCG of each query's top ``k``."""
        return self.at(self.dcg, np.arange(self.n), np.minimum(self.count, k))

    @cached_property
    def gains(self) -> np.ndarray:
        """Running sums of the ideal gains (read through :meth:`at`)."""
        return _frozen(running_sums(self.query, self.gain, self.n))

    @cached_property
    def cost(self) -> np.ndarray:
        """Running sums of trec_eval's ideal cost max(gain, 1) (read through :meth:`at`)."""
        return _frozen(running_sums(self.query, np.maximum(self.gain, 1.0), self.n))

    def at(self, sums: np.ndarray, query: np.ndarray, m: np.ndarray) -> np.ndarray:
        """``sums`` of ``query`` over its first ``m`` ideal ranks (``m`` capped at their number)."""
        return sums[self.start[query] + query + np.minimum(m, self.count[query])]


def ideal(r: Rankings, gain: str = "linear") -> Ideal:
    """The ideal rankings of ``r`` with gains the grades (``gain='exp2'``: 2^grade - 1), shared."""

    def build() -> Ideal:
        grades, query, _ = r.ideal
        return Ideal(r, np.exp2(grades) - 1.0 if gain == "exp2" else grades, query)

    return r.shared(("ideal", gain), build)


class HitGains:
    """The discounted gain gain / log2(rank + 1) of every hit, and per-query sums of it."""

    def __init__(self, r: Rankings, gain: str) -> None:
        self.n = r.n
        self.query, self.position = r.hit_query, r.hit_position
        grades = r.hit_grade
        self.discounted = _frozen((np.exp2(grades) - 1.0 if gain == "exp2" else grades)
                                  / np.log2(self.position + 2))
        self.longest = int(r.num_ret.max(initial=0))
        self._dcg: dict[int | None, np.ndarray] = {}

    def dcg(self, k: int | None) -> np.ndarray:
        """The DCG of each query's top ``k`` (its whole ranking for ``None``)."""
        if k is not None and k >= self.longest:
            k = None

        def build() -> np.ndarray:
            if k is None:
                return np.bincount(self.query, weights=self.discounted, minlength=self.n)
            top = self.position < k
            return np.bincount(self.query[top], weights=self.discounted[top], minlength=self.n)

        return _memo(self._dcg, k, build)

    @cached_property
    def sums(self) -> np.ndarray:
        """Per-query running DCG over the hits (see :func:`running_sums`)."""
        return _frozen(running_sums(self.query, self.discounted, self.n))

    @cached_property
    def start(self) -> np.ndarray:
        return _frozen(offsets_of(np.bincount(self.query, minlength=self.n)))

    @cached_property
    def running(self) -> np.ndarray:
        """The DCG of each hit's query through the hit's rank (inclusive)."""
        return _frozen(self.sums[np.arange(len(self.query)) + self.query + 1])

    def through(self, query: np.ndarray, m: np.ndarray) -> np.ndarray:
        """The DCG of ``query``'s ranking over its first ``m`` ranks."""
        width = self.longest + 1
        keys = self.query * width + self.position  # sorted: hits are by query, then rank
        before = np.searchsorted(keys, query * width + m) - self.start[query]
        return self.sums[self.start[query] + query + before]


def hit_gains(r: Rankings, gain: str = "linear") -> HitGains:
    """The :class:`HitGains` of ``r``, shared."""
    return r.shared(("hit_gains", gain), lambda: HitGains(r, gain))


class JudgedRunning:
    """For every judged retrieved document (:attr:`Rankings.judged_ret`) at a relevance level:
    whether it is relevant or judged non-relevant (grade in [0, level)), and how many
    relevant, judged non-relevant and pool-unjudged (negative grade) documents of its query
    are ranked above it."""

    def __init__(self, r: Rankings, level: float) -> None:
        self.query, self.position, grade = r.judged_ret
        self.relevant = _frozen(grade >= level)
        self.nonrelevant = _frozen((grade >= 0) & ~self.relevant)
        starts = group_starts(self.query, r.n)

        def above(mask: np.ndarray) -> np.ndarray:
            running = np.cumsum(mask) - mask
            return _frozen(running - running[starts])

        self.rel_above, self.nonrel_above, self.unjudged_above = (
            above(self.relevant), above(self.nonrelevant), above(grade < 0))


def judged_running(r: Rankings, level: float) -> JudgedRunning:
    """The :class:`JudgedRunning` counts of ``r`` at ``level``, shared."""
    return r.shared(("judged_running", level), lambda: JudgedRunning(r, level))


class Judged:
    """The retrieved documents that have a judgement (grade >= 0): query and position."""

    def __init__(self, r: Rankings) -> None:
        query, position, grade = r.judged_ret
        keep = grade >= 0
        self.n = r.n
        self.query, self.position = _frozen(query[keep]), _frozen(position[keep])
        self.longest = int(r.num_ret.max(initial=0))
        self._top: dict[int | None, np.ndarray] = {}

    def top(self, k: int | None) -> np.ndarray:
        """How many judged documents each query has in its top ``k`` (all, for ``None``)."""
        if k is not None and k >= self.longest:
            k = None
        return _memo(self._top, k, lambda: np.bincount(
            self.query if k is None else self.query[self.position < k], minlength=self.n))


def judged(r: Rankings) -> Judged:
    """The :class:`Judged` retrieved documents of ``r``, shared."""
    return r.shared("judged", lambda: Judged(r))
