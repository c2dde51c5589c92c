"""BLEU, chrF and TER through sacrebleu.

Corpus metrics declare their state as integer columns (``state_fields``): sacrebleu's sufficient
statistics per sample (n-gram counts and lengths; TER's edits and its average reference length,
scaled by :data:`TER_SCALE` so that it stays an exact integer), summed, plus the number of samples
and the fewest and most references. Merging and every resampling are then sums of integers, so a
corpus scored in shards, resampled or compared equals the corpus scored at once. The scores come
from sacrebleu's own code; the per-segment statistics from subclasses of sacrebleu's metrics that
count them in fewer steps (:mod:`._fast_stats`; TER's edits in C, :mod:`._ter_stats`), equal to
sacrebleu's.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from evalcore.plugin import CorpusMetric, InputError, Record, SampleMetric, Score, SkipSample, inputs

if TYPE_CHECKING:
    import numpy as np
    from evalcore.plugin import Reduction


_LEADING: dict[str, Reduction] = {"samples": "sum", "min_refs": "min", "max_refs": "max"}
"""The columns before sacrebleu's statistics in a corpus state: how many samples, and the fewest
and most references a sample had."""


def build_bleu(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.BLEU`` configured from the metric parameters (its segment statistics
    counted faster, :mod:`evalcore_overlap._fast_stats`)."""
    from ._fast_stats import FastBLEU

    return FastBLEU(
        lowercase=params["ignore_case"], tokenize=params["tokenize"],
        smooth_method=params["smooth_method"], smooth_value=params["smooth_value"],
        max_ngram_order=params["max_ngram_order"], effective_order=params["effective_order"],
    )


def build_chrf(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.CHRF`` configured from the metric parameters (its segment statistics
    counted faster, :mod:`evalcore_overlap._fast_stats`)."""
    from ._fast_stats import FastCHRF

    return FastCHRF(
        char_order=params["char_order"], word_order=params["word_order"], beta=params["beta"],
        lowercase=params["ignore_case"], whitespace=params["whitespace"],
        eps_smoothing=params["eps_smoothing"],
    )


def build_ter(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.TER`` configured from the metric parameters (its edits counted in C where
    the extension was built)."""
    from ._ter_stats import CompiledTER

    return CompiledTER(
        normalized=params["normalized"], no_punct=params["no_punct"],
        asian_support=params["asian_support"], case_sensitive=not params["ignore_case"],
    )


_DETAILS = ("counts", "totals", "precisions", "bp", "sys_len", "ref_len", "num_edits", "ref_length")


class _Sacre:
    """Shared by the BLEU, chrF and TER metrics: the sacrebleu object and per-sample statistics."""

    params: dict[str, Any]
    builder: Any

    def setup(self) -> None:
        self._metric = type(self).builder(self.params)

    def statistics(self, example: Record, prediction: Record) -> tuple[list[Any], dict[str, Any], int]:
        """sacrebleu's segment statistics of the response against its references, the reference
        information and the number of references (the steps of ``_extract_corpus_statistics``)."""
        refs = inputs.targets(example)
        hyp = inputs.response(prediction, blank=self.params["empty_response"])
        metric = self._metric
        info = metric._extract_reference_info([metric._preprocess_segment(ref) for ref in refs])
        stats = metric._compute_segment_statistics(metric._preprocess_segment(hyp), info)
        return stats, info, len(refs)

    def details(self, result: Any, num_refs: int) -> dict[str, Any]:
        """The signature sacrebleu would print, plus the score's own statistics."""
        signature = self._metric._SIGNATURE_TYPE({**vars(self._metric), "num_refs": num_refs})
        extra = {key: getattr(result, key) for key in _DETAILS if hasattr(result, key)}
        return {"signature": signature.format(), **extra}


class _CorpusSacre(_Sacre, CorpusMetric["np.ndarray"]):
    width: Any  # the number of sacrebleu statistics, from the parameters

    def setup(self) -> None:
        super().setup()
        columns = {f"stat{i}": "sum" for i in range(type(self).width(self.params))}
        self.state_fields = {**_LEADING, **columns}

    def sample_state(self, example: Record, prediction: Record) -> np.ndarray:
        import numpy as np

        stats, info, refs = self.statistics(example, prediction)
        return np.array([1, refs, refs, *self.integers(stats, info)], dtype=np.int64)

    def integers(self, stats: list[Any], info: dict[str, Any]) -> list[int]:
        """The statistics as integers whose sums are exact."""
        return stats

    def summed(self, columns: list[int]) -> list[int | float]:
        """sacrebleu's summed statistics from the summed integer columns."""
        return columns

    def compute(self, state: np.ndarray) -> Score:
        samples, fewest, most, *columns = state.tolist()
        if not samples:
            raise SkipSample("no sample could be scored")
        if fewest != most and not self.params["variable_references"]:
            raise InputError(
                f"samples have different numbers of references (from {fewest} to {most}); "
                "give every sample the same number, or set variable_references=True",
                field="example.reference_answer",
            )
        result = self._metric._compute_score_from_stats(self.summed(columns))
        details = self.details(result, fewest if fewest == most else -1)
        return Score(result.score, details={**details, "samples": samples})

    def values(self, merged: np.ndarray) -> np.ndarray:
        """Corpus values of many merged states (resamples), without building details."""
        import numpy as np

        compute = self._metric._compute_score_from_stats
        return np.array([compute(self.summed(row[3:])).score if row[0] else np.nan for row in merged.tolist()])


class _SentenceSacre(_Sacre, SampleMetric):
    def score(self, example: Record, prediction: Record) -> Score:
        stats, _, refs = self.statistics(example, prediction)
        result = self._metric._compute_score_from_stats(stats)
        return Score(result.score, details=self.details(result, refs))


TER_SCALE = 720_720
"""The least common multiple of 1..16: a sample's average reference length (its references'
words over their number) times this is an integer for up to 16 references."""


def _bleu_width(params: dict[str, Any]) -> int:
    return 2 + 2 * params["max_ngram_order"]


def _chrf_width(params: dict[str, Any]) -> int:
    return 3 * (params["char_order"] + params["word_order"])


class CorpusBleu(_CorpusSacre):
    """sacrebleu's corpus BLEU."""

    builder = staticmethod(build_bleu)
    width = staticmethod(_bleu_width)


class SentenceBleu(_SentenceSacre):
    """sacrebleu's sentence BLEU."""

    builder = staticmethod(build_bleu)


class CorpusChrf(_CorpusSacre):
    """sacrebleu's corpus chrF / chrF++."""

    builder = staticmethod(build_chrf)
    width = staticmethod(_chrf_width)


class SentenceChrf(_SentenceSacre):
    """sacrebleu's sentence chrF / chrF++."""

    builder = staticmethod(build_chrf)


class CorpusTer(_CorpusSacre):
    """sacrebleu's corpus TER."""

    builder = staticmethod(build_ter)
    width = staticmethod(lambda params: 2)

    def integers(self, stats: list[Any], info: dict[str, Any]) -> list[int]:
        words = info["ref_words"]
        if TER_SCALE % len(words):
            raise InputError(f"corpus TER takes at most 16 references per sample (this one has {len(words)})",
                             field="example.reference_answer")
        return [stats[0], sum(map(len, words)) * (TER_SCALE // len(words))]

    def summed(self, columns: list[int]) -> list[int | float]:
        edits, scaled_length = columns
        return [edits, float(Fraction(scaled_length, TER_SCALE))]


class SentenceTer(_SentenceSacre):
    """sacrebleu's sentence TER."""

    builder = staticmethod(build_ter)
