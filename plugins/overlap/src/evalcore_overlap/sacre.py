"""BLEU, chrF and TER through sacrebleu.

Corpus metrics keep sacrebleu's sufficient statistics per sample (integer n-gram counts and
lengths; TER's edits and, as an exact fraction, the average reference length); merging adds
them, so a corpus scored in shards equals the corpus scored at once. The statistics and the
final score come from sacrebleu's own code.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from evalcore.plugin import CorpusMetric, InputError, Record, SampleMetric, Score, SkipSample, inputs


class SacreState(NamedTuple):
    """Summed sacrebleu statistics, the reference counts seen, and the number of samples."""

    stats: tuple[int | Fraction, ...]
    ref_counts: frozenset[int]
    samples: int


_EMPTY_STATE = SacreState((), frozenset(), 0)


def build_bleu(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.BLEU`` configured from the metric parameters."""
    from sacrebleu.metrics import BLEU

    return BLEU(
        lowercase=params["ignore_case"], tokenize=params["tokenize"],
        smooth_method=params["smooth_method"], smooth_value=params["smooth_value"],
        max_ngram_order=params["max_ngram_order"], effective_order=params["effective_order"],
    )


def build_chrf(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.CHRF`` configured from the metric parameters."""
    from sacrebleu.metrics import CHRF

    return CHRF(
        char_order=params["char_order"], word_order=params["word_order"], beta=params["beta"],
        lowercase=params["ignore_case"], whitespace=params["whitespace"],
        eps_smoothing=params["eps_smoothing"],
    )


def build_ter(params: dict[str, Any]) -> Any:
    """A ``sacrebleu.metrics.TER`` configured from the metric parameters."""
    from sacrebleu.metrics import TER

    return TER(
        normalized=params["normalized"], no_punct=params["no_punct"],
        asian_support=params["asian_support"], case_sensitive=not params["ignore_case"],
    )


_DETAILS = ("counts", "totals", "precisions", "bp", "sys_len", "ref_len", "num_edits", "ref_length")


class _Sacre:
    """Shared by the BLEU and chrF metrics: the sacrebleu object and per-sample statistics."""

    params: dict[str, Any]
    builder: Any

    def setup(self) -> None:
        self._metric = type(self).builder(self.params)

    def statistics(self, example: Record, prediction: Record) -> tuple[list[Any], int]:
        """sacrebleu's segment statistics of the response against its references, and the
        number of references (the steps of ``sacrebleu``'s ``_extract_corpus_statistics``)."""
        refs = inputs.targets(example)
        hyp = inputs.response(prediction, blank=self.params["empty_response"])
        metric = self._metric
        info = metric._extract_reference_info([metric._preprocess_segment(ref) for ref in refs])
        stats = metric._compute_segment_statistics(metric._preprocess_segment(hyp), info)
        return self.exact(stats, info), len(refs)

    def exact(self, stats: list[Any], info: dict[str, Any]) -> list[Any]:
        """The statistics in a form whose sums do not depend on the order of adding."""
        return stats

    def details(self, result: Any, num_refs: int) -> dict[str, Any]:
        """The signature sacrebleu would print, plus the score's own statistics."""
        signature = self._metric._SIGNATURE_TYPE({**vars(self._metric), "num_refs": num_refs})
        extra = {key: getattr(result, key) for key in _DETAILS if hasattr(result, key)}
        return {"signature": signature.format(), **extra}


class _CorpusSacre(_Sacre, CorpusMetric[SacreState]):
    def sample_state(self, example: Record, prediction: Record) -> SacreState:
        stats, refs = self.statistics(example, prediction)
        return SacreState(tuple(stats), frozenset((refs,)), 1)

    def merge(self, states: Sequence[SacreState]) -> SacreState:
        filled = [s for s in states if s.samples]
        if not filled:
            return _EMPTY_STATE
        return SacreState(
            tuple(map(sum, zip(*(s.stats for s in filled), strict=True))),
            frozenset().union(*(s.ref_counts for s in filled)),
            sum(s.samples for s in filled),
        )

    def compute(self, state: SacreState) -> Score:
        if not state.samples:
            raise SkipSample("no sample could be scored")
        counts = sorted(state.ref_counts)
        if len(counts) > 1 and not self.params["variable_references"]:
            raise InputError(
                f"samples have different numbers of references ({', '.join(map(str, counts))}); "
                "give every sample the same number, or set variable_references=True",
                field="example.reference_answer",
            )
        result = self._metric._compute_score_from_stats(_floats(state.stats))
        details = self.details(result, counts[0] if len(counts) == 1 else -1)
        return Score(result.score, details={**details, "samples": state.samples})


class _SentenceSacre(_Sacre, SampleMetric):
    def score(self, example: Record, prediction: Record) -> Score:
        stats, refs = self.statistics(example, prediction)
        result = self._metric._compute_score_from_stats(_floats(stats))
        return Score(result.score, details=self.details(result, refs))


def _floats(stats: Sequence[int | Fraction]) -> list[int | float]:
    """Summed statistics as sacrebleu takes them (fractions become floats)."""
    return [float(x) if isinstance(x, Fraction) else x for x in stats]


class CorpusBleu(_CorpusSacre):
    """sacrebleu's corpus BLEU."""

    builder = staticmethod(build_bleu)


class SentenceBleu(_SentenceSacre):
    """sacrebleu's sentence BLEU."""

    builder = staticmethod(build_bleu)


class CorpusChrf(_CorpusSacre):
    """sacrebleu's corpus chrF / chrF++."""

    builder = staticmethod(build_chrf)


class SentenceChrf(_SentenceSacre):
    """sacrebleu's sentence chrF / chrF++."""

    builder = staticmethod(build_chrf)


class _Ter(_Sacre):
    """TER's average reference length kept as a fraction, so shard sums are exact."""

    builder = staticmethod(build_ter)

    def exact(self, stats: list[Any], info: dict[str, Any]) -> list[Any]:
        words = info["ref_words"]
        return [stats[0], Fraction(sum(map(len, words)), len(words))]


class CorpusTer(_Ter, _CorpusSacre):
    """sacrebleu's corpus TER."""


class SentenceTer(_Ter, _SentenceSacre):
    """sacrebleu's sentence TER."""
