"""The retrieval metrics: evalcore batch metrics over the vectorised measures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import numpy as np
from evalcore.plugin import BatchMetric, ColumnScores, Record, Score

from . import _gain_measures as gain_measures
from . import _judgement as judgement
from . import _measures as measures
from . import _sets as sets
from ._ranking import Rankings
from ._records import rankings_from_records
from ._trec_names import trec_eval_name

if TYPE_CHECKING:
    from ._reader import TrecColumns

OK, NO_JUDGEMENTS, NOT_RETRIEVED, NO_RELEVANT = 0, 1, 2, 3
SKIP_REASONS = {
    NO_JUDGEMENTS: "no judged documents (example.relevant_docs is empty)",
    NOT_RETRIEVED: "nothing retrieved (missing='zero' scores it 0)",
    NO_RELEVANT: "no relevant judged document (no_relevant='zero' scores it 0)",
}


# the rankings of each chunk being scored, by ties setting: every metric of the chunk reads the
# same Rankings, and with it the arrays the measures share (evalcore_retrieval._derived)
_CHUNK_RANKINGS: WeakKeyDictionary[TrecColumns, dict[str, Rankings]] = WeakKeyDictionary()


def chunk_rankings(columns: TrecColumns, ties: str) -> Rankings:
    """The :class:`Rankings` of a chunk's columns, built once for all the metrics scoring it."""
    built = _CHUNK_RANKINGS.setdefault(columns, {})
    if ties not in built:
        built[ties] = columns.rankings(ties)
    return built[ties]


# what convention='rag' (the Auepora RAG metric spec) changes
RAG_SETTINGS = {"missing": "zero", "ties": "input", "denominator": "retrieved", "ranking": "rank"}


class RetrievalMetric(BatchMetric):
    """Base of the retrieval metrics: per-query values for a whole :class:`Rankings` at once."""

    def setting(self, name: str) -> object:
        """A parameter's effective value: ``convention='rag'`` presets some (:data:`RAG_SETTINGS`)."""
        if self.params.get("convention") == "rag" and name in RAG_SETTINGS:
            return RAG_SETTINGS[name]
        return self.params.get(name, "score" if name == "ranking" else None)

    def value_if_none_scored(self) -> float | None:
        """The Auepora RAG metric spec gives 0.0 when no record has a relevant document
        (``convention='rag'``); trec_eval's convention reports nothing."""
        return 0.0 if self.params.get("convention") == "rag" else None

    def trec_eval_name(self) -> str | None:
        """trec_eval's name for this measure and its parameters (``P_10``, ``iprec_at_recall_0.10``)."""
        return trec_eval_name(self.spec, self.params)

    def values(self, r: Rankings) -> np.ndarray:
        """The metric's value for every query of ``r`` (skipped ones included)."""
        if self.params.get("judged_only"):
            r = r.shared("judged_only", r.judged_only)
        return self.measure(r)

    def measure(self, r: Rankings) -> np.ndarray:
        """The measure itself, over the rankings as evaluated."""
        raise NotImplementedError

    def has_relevant(self, r: Rankings) -> np.ndarray:
        """Whether each query has a relevant judged document."""
        return r.num_judged_at_least(self.params["relevance_level"]) > 0

    def skip_codes(self, r: Rankings) -> np.ndarray:
        """Why each query is skipped (a key of :data:`SKIP_REASONS`), or ``OK``."""
        codes = np.full(r.n, OK, dtype=np.int8)
        if self.params["no_relevant"] == "skip":
            codes[~self.has_relevant(r)] = NO_RELEVANT
        if self.setting("missing") == "skip":
            codes[~r.present] = NOT_RETRIEVED
        codes[np.diff(r.judged_offsets) == 0] = NO_JUDGEMENTS
        return codes

    def accepts_columns(self, columns: object) -> bool:
        """TREC files read into columns (``evalcore evaluate --qrels --run``) are scored directly."""
        from ._reader import TrecColumns

        return isinstance(columns, TrecColumns)

    def score_columns(self, columns: TrecColumns) -> ColumnScores:
        codes = self.skip_codes(ranked := chunk_rankings(columns, str(self.setting("ties"))))
        values = self.values(ranked)
        skipped = {int(i): SKIP_REASONS[int(codes[i])] for i in np.flatnonzero(codes != OK)}
        return ColumnScores(values, skipped)

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        rankings, kept, errors = rankings_from_records(
            examples, predictions, str(self.setting("ties")), by_rank=self.setting("ranking") == "rank",
        )
        values, codes = self.values(rankings).tolist(), self.skip_codes(rankings).tolist()
        out: dict[int, Score] = {index: Score.error(exc) for index, exc in errors.items()}
        for row, index in enumerate(kept):
            code = codes[row]
            out[index] = Score(values[row]) if code == OK else Score.skipped(SKIP_REASONS[code])
        return [out[i] for i in range(len(examples))]


class Recall(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return measures.recall(r, p["k"], p["relevance_level"], p["capped"])


class Precision(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return measures.precision(r, p["k"], p["relevance_level"], str(self.setting("denominator")))


class HitRate(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.success(r, self.params["k"], self.params["relevance_level"])


class ReciprocalRank(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.reciprocal_rank(r, self.params["k"], self.params["relevance_level"])


class AveragePrecision(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.average_precision(
            r, self.params["k"], self.params["relevance_level"], str(self.setting("denominator")),
        )


class RPrecision(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.r_precision(r, self.params["relevance_level"])


class NDCG(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.ndcg(r, self.params["k"], self.params["gain"], self.params["gains"])

    def has_relevant(self, r: Rankings) -> np.ndarray:
        """nDCG has no relevance level: any positive grade is relevant (as in trec_eval)."""
        return r.num_judged_positive > 0


class _Leveled(RetrievalMetric):
    """A measure of the rankings and the relevance level only."""

    function = staticmethod(sets.num_rel)

    def measure(self, r: Rankings) -> np.ndarray:
        return self.function(r, self.params["relevance_level"])


class NumQ(RetrievalMetric):
    trec_eval_summary_only = True  # trec_eval prints num_q for 'all' only

    def measure(self, r: Rankings) -> np.ndarray:
        return sets.num_q(r)


class NumRet(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return sets.num_ret(r)


class NumRel(_Leveled):
    function = staticmethod(sets.num_rel)


class NumRelRet(_Leveled):
    function = staticmethod(sets.num_rel_ret)


class NumNonrelJudgedRet(_Leveled):
    function = staticmethod(judgement.nonrelevant_judged_retrieved)


class Bpref(_Leveled):
    function = staticmethod(judgement.bpref)


class InferredAP(_Leveled):
    function = staticmethod(judgement.inferred_ap)


class ElevenPointAverage(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.eleven_point_average(r, self.params["relevance_level"], self.params["rounding"])


class BinaryG(_Leveled):
    function = staticmethod(measures.binary_g)


class SetPrecision(_Leveled):
    function = staticmethod(sets.set_precision)


class SetRecall(_Leveled):
    function = staticmethod(sets.set_recall)


class SetRelativePrecision(_Leveled):
    function = staticmethod(sets.set_relative_precision)


class SetMAP(_Leveled):
    function = staticmethod(sets.set_map)


class SetF(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return sets.set_f(r, self.params["relevance_level"], self.params["beta"])


class Utility(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return sets.utility(r, p["relevance_level"], p["weights"], p["num_docs"])


class InterpolatedPrecision(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        p = self.params
        return measures.interpolated_precision(r, p["recall"], p["relevance_level"], p["rounding"])


class RelativePrecision(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.relative_precision(r, self.params["k"], self.params["relevance_level"])


class PrecisionAtMultiple(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.precision_at_multiple(r, self.params["multiple"], self.params["relevance_level"])


class Unjudged(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return judgement.unjudged(r, self.params["k"])


class RBPResidual(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return judgement.rbp_residual(r, self.params["p"])


class NormalizedGain(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return gain_measures.normalized_gain(r)

    has_relevant = NDCG.has_relevant


class NDCGRel(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return gain_measures.ndcg_rel(r)

    has_relevant = NDCG.has_relevant


class RLevelNDCG(_Leveled):
    function = staticmethod(gain_measures.r_level_ndcg)


class Judged(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return judgement.judged_share(r, self.params["k"])


class ERR(RetrievalMetric):
    def measure(self, r: Rankings) -> np.ndarray:
        return measures.err(r, self.params["k"], self.params["max_grade"])

    has_relevant = NDCG.has_relevant
