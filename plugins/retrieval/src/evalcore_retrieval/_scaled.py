"""Measures over gains scaled into [0, 1], as cwl_eval (the C/W/L framework) defines them:
SDCG@k and rank-biased precision with a binary or a graded gain.

cwl_eval's graded gain of a grade is ``(clip(grade, min_grade, max_grade) - min_grade) /
(max_grade - min_grade)``, negative grades counting as 0 first (ir_measures' cwl_eval
provider); unjudged documents gain nothing.
"""

from __future__ import annotations

import numpy as np

from . import _measures as measures
from ._measures import _ratio
from ._ranking import Rankings
from .metrics import NDCG, RetrievalMetric


def scaled_gain(r: Rankings, min_grade: float, max_grade: float | None) -> np.ndarray:
    """The gain of each hit: its grade clipped to [min_grade, max_grade] and scaled into [0, 1].

    ``max_grade=None`` takes the highest grade judged for the hit's query."""
    if max_grade is None:
        top = np.zeros(r.n)
        np.maximum.at(top, r.judged_query, r.judged)
        upper = top[r.hit_query]
    else:
        upper = np.full(len(r.hit_grade), float(max_grade))
    span = upper - min_grade
    clipped = np.clip(r.hit_grade, min_grade, np.maximum(upper, min_grade))
    return _ratio(clipped - min_grade, span)


def sdcg(r: Rankings, k: int, min_grade: float, max_grade: float | None) -> np.ndarray:
    """``SDCG@k``: the DCG of the top k over the DCG of k documents of full gain.

    The discount of rank i is 1 / log2(i + 1); a query with fewer than k retrieved documents
    is still divided by the full k ranks (the scaled DCG assumes at least k relevant
    documents exist)."""
    top = r.hit_position < k
    discount = 1.0 / np.log2(r.hit_position[top] + 2.0)
    dcg = np.bincount(r.hit_query[top], weights=scaled_gain(r, min_grade, max_grade)[top] * discount,
                      minlength=r.n)
    return dcg / float(np.sum(1.0 / np.log2(np.arange(k) + 2.0)))


def rbp(r: Rankings, p: float, gain: str, level: float, max_grade: float | None) -> np.ndarray:
    """Rank-biased precision, (1 - p) * sum of gain * p^(rank - 1). ``gain='trec'``: trec_eval's
    ``rbp`` gain; ``'binary'``: 1 for a grade >= ``level`` (cwl_eval's ``RBP(rel=l)``);
    ``'graded'``: the grade scaled by ``max_grade`` (cwl_eval's graded gain)."""
    if gain == "trec":
        return measures.rbp(r, p)
    gains = (r.hit_grade >= level).astype(float) if gain == "binary" else scaled_gain(r, 0.0, max_grade)
    return (1 - p) * np.bincount(r.hit_query, weights=gains * np.power(p, r.hit_position), minlength=r.n)


class SDCG(RetrievalMetric):
    """ir_measures' ``SDCG@k`` (scaled DCG), as its cwl_eval provider computes it."""

    def setup(self) -> None:
        top = self.params["max_grade"]
        if top is not None and top <= self.params["min_grade"]:
            raise self.parameter_error("max_grade", f"must be above min_grade ({self.params['min_grade']})")

    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return sdcg(r, p["k"], p["min_grade"], p["max_grade"])

    has_relevant = NDCG.has_relevant


class RBP(RetrievalMetric):
    """Rank-biased precision: trec_eval's ``rbp`` and ir_measures' ``RBP(rel=l)``."""

    def setup(self) -> None:
        if self.params["gain"] == "graded" and self.params["max_grade"] is None:
            raise self.parameter_error("max_grade", "gain='graded' scales grades by max_grade: give it")

    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return rbp(r, p["p"], p["gain"], p["relevance_level"], p["max_grade"])

    def has_relevant(self, r: Rankings) -> np.ndarray:
        """A grade at ``relevance_level`` is relevant for the binary gain, any positive one otherwise."""
        if self.params["gain"] == "binary":
            return super().has_relevant(r)
        return NDCG.has_relevant(self, r)
