"""Compatibility (Clarke, Vtyurina and Smucker, Assessing Top-k Preferences, TOIS 2021): the
rank-biased overlap between a ranking and the ideal ranking, as ir_measures' compat provider
computes it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from evalcore.plugin import Record, SampleMetric

from ._doc_ranking import RankedDocuments, check_present, judged_grades, ranked_documents


def rbo(ranking: Sequence[str], ideal: Sequence[str], p: float, depth: int) -> float:
    """Rank-biased overlap of two rankings of distinct documents over their first ``depth`` ranks:
    the p-weighted mean, over depths d, of |overlap of the top d| / d."""
    ranking_seen: set[str] = set()
    ideal_seen: set[str] = set()
    overlap = 0
    score = normalizer = 0.0
    weight = 1.0
    for i in range(depth):
        if i < len(ranking):
            ranking_seen.add(ranking[i])
            overlap += ranking[i] in ideal_seen
        if i < len(ideal):
            ideal_seen.add(ideal[i])
            overlap += ideal[i] in ranking_seen
        score += weight * overlap / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def ideal_ranking(grades: Mapping[str, float], ranking: RankedDocuments) -> list[str]:
    """The positively graded documents by grade descending, then run score descending (0 for one
    not retrieved; after every retrieved one when the run has no scores), then in judgement order."""
    missing = 0.0 if ranking.scored else -math.inf
    ideal = [doc for doc, grade in grades.items() if grade > 0]
    ideal.sort(key=lambda doc: ranking.scores.get(doc, missing), reverse=True)
    ideal.sort(key=lambda doc: grades[doc], reverse=True)
    return ideal


def compatibility(grades: Mapping[str, float], ranking: RankedDocuments, p: float, normalize: bool) -> float:
    """RBO between ``ranking`` and its ideal ranking, over the longer of the two; ``normalize``
    divides by the RBO of the ideal ranking with itself (when positive)."""
    ideal = ideal_ranking(grades, ranking)
    depth = max(len(ranking.doc_ids), len(ideal))
    score = rbo(ranking.doc_ids, ideal, p, depth)
    if normalize:
        best = rbo(ideal, ideal, p, depth)
        if best > 0.0:
            score /= best
    return score


class Compat(SampleMetric):
    """ir_measures' ``Compat(p=..., normalize=...)``."""

    def score(self, example: Record, prediction: Record) -> float:
        grades = judged_grades(example)
        ranking = ranked_documents(prediction, self.params["ties"])
        if not check_present(len(grades), len(ranking.doc_ids), self.params["missing"]):
            return 0.0
        return compatibility(grades, ranking, self.params["p"], self.params["normalize"])
