"""The retrieval metrics: evalcore batch metrics over the vectorised measures."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from evalcore.plugin import BatchMetric, Record, Score

from . import _measures as measures
from ._ranking import Rankings
from ._records import rankings_from_records

OK, NO_JUDGEMENTS, NOT_RETRIEVED, NO_RELEVANT = 0, 1, 2, 3
SKIP_REASONS = {
    NO_JUDGEMENTS: "no judged documents (example.relevant_docs is empty)",
    NOT_RETRIEVED: "nothing retrieved (missing='zero' scores it 0)",
    NO_RELEVANT: "no relevant judged document (no_relevant='zero' scores it 0)",
}


class RetrievalMetric(BatchMetric):
    """Base of the retrieval metrics: per-query values for a whole :class:`Rankings` at once."""

    def values(self, r: Rankings) -> np.ndarray:
        """The metric's value for every query of ``r`` (skipped ones included)."""
        raise NotImplementedError

    def has_relevant(self, r: Rankings) -> np.ndarray:
        """Whether each query has a relevant judged document."""
        return r.num_judged_at_least(self.params["relevance_level"]) > 0

    def skip_codes(self, r: Rankings) -> np.ndarray:
        """Why each query is skipped (a key of :data:`SKIP_REASONS`), or ``OK``."""
        codes = np.full(r.n, OK, dtype=np.int8)
        if self.params["no_relevant"] == "skip":
            codes[~self.has_relevant(r)] = NO_RELEVANT
        if self.params["missing"] == "skip":
            codes[~r.present] = NOT_RETRIEVED
        codes[np.diff(r.judged_offsets) == 0] = NO_JUDGEMENTS
        return codes

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        rankings, kept, errors = rankings_from_records(examples, predictions, self.params["ties"])
        values, codes = self.values(rankings).tolist(), self.skip_codes(rankings).tolist()
        out: dict[int, Score] = {index: Score.error(exc) for index, exc in errors.items()}
        for row, index in enumerate(kept):
            code = codes[row]
            out[index] = Score(values[row]) if code == OK else Score.skipped(SKIP_REASONS[code])
        return [out[i] for i in range(len(examples))]


class Recall(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        p = self.params
        return measures.recall(r, p["k"], p["relevance_level"], p["capped"])


class Precision(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        p = self.params
        return measures.precision(r, p["k"], p["relevance_level"], p["denominator"])


class HitRate(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        return measures.success(r, self.params["k"], self.params["relevance_level"])


class ReciprocalRank(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        return measures.reciprocal_rank(r, self.params["k"], self.params["relevance_level"])


class AveragePrecision(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        return measures.average_precision(r, self.params["k"], self.params["relevance_level"])


class RPrecision(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        return measures.r_precision(r, self.params["relevance_level"])


class NDCG(RetrievalMetric):
    def values(self, r: Rankings) -> np.ndarray:
        return measures.ndcg(r, self.params["k"], self.params["gain"])

    def has_relevant(self, r: Rankings) -> np.ndarray:
        """nDCG has no relevance level: any positive grade is relevant (as in trec_eval)."""
        return np.bincount(r.judged_query, weights=r.judged > 0, minlength=r.n) > 0
