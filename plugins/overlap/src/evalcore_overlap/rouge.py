"""ROUGE-N, ROUGE-L and ROUGE-Lsum, numerically identical to rouge-score's ``RougeScorer``.

Differences from rouge-score are in speed only: each text is tokenised once, stems are cached
per distinct token, and ROUGE-L uses a bit-parallel LCS instead of a quadratic table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from evalcore.plugin import ParameterError, Record, SampleMetric, Score, inputs

from ._lcs import lcs_indices, lcs_length
from ._tokenizers import Tokenizer, get_tokenizer


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one prediction against one target."""

    precision: float
    recall: float
    fmeasure: float


def _scored(precision: float, recall: float) -> RougeScore:
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return RougeScore(precision, recall, f)


_ZERO = RougeScore(0.0, 0.0, 0.0)


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[Hashable]:
    """Multiset of the ``n``-grams of ``tokens`` (plain tokens when ``n`` is 1)."""
    if n == 1:
        return Counter(tokens)
    return Counter(zip(*(tokens[i:] for i in range(n))))


def score_ngrams(target: Counter[Hashable], prediction: Counter[Hashable]) -> RougeScore:
    """ROUGE-N from the n-gram multisets of the target and the prediction."""
    common = target.keys() & prediction.keys()
    overlap = sum(min(target[gram], prediction[gram]) for gram in common)
    return _scored(overlap / max(prediction.total(), 1), overlap / max(target.total(), 1))


def score_lcs(target: Sequence[str], prediction: Sequence[str]) -> RougeScore:
    """ROUGE-L: LCS length over the prediction (precision) and the target (recall)."""
    if not target or not prediction:
        return _ZERO
    lcs = lcs_length(target, prediction)
    return _scored(lcs / len(prediction), lcs / len(target))


def score_lsum(target: list[list[str]], prediction: list[list[str]]) -> RougeScore:
    """ROUGE-Lsum: summary-level union LCS over newline-separated sentences (the ROUGE paper, section 3.2)."""
    ref_total = sum(map(len, target))
    pred_total = sum(map(len, prediction))
    if not ref_total or not pred_total:
        return _ZERO
    ref_left = Counter(token for sentence in target for token in sentence)
    pred_left = Counter(token for sentence in prediction for token in sentence)
    hits = 0
    for sentence in target:
        union = sorted(set().union(*(lcs_indices(sentence, cand) for cand in prediction)))
        for token in (sentence[i] for i in union):
            if pred_left[token] > 0 and ref_left[token] > 0:
                hits += 1
                pred_left[token] -= 1
                ref_left[token] -= 1
    return _scored(hits / pred_total, hits / ref_total)


def sentences(text: str, split_summaries: bool = False) -> list[str]:
    """rouge-score's sentences for ROUGE-Lsum: the non-empty lines of ``text``, or with
    ``split_summaries`` the non-empty sentences NLTK's Punkt finds."""
    if split_summaries:
        from ._punkt import sent_tokenize

        return [sentence for sentence in sent_tokenize(text) if sentence]
    return [line for line in text.split("\n") if line]


def variant_scorer(
    variant: str, tokenize: Tokenizer, split_summaries: bool = False,
) -> tuple[Callable[[str], Any], Callable[[Any, Any], RougeScore]]:
    """``(prepare, compare)`` for a ROUGE variant: ``prepare`` turns a text into what
    ``compare(target, prediction)`` scores."""
    if variant == "L":
        return tokenize, score_lcs
    if variant == "Lsum":
        return (lambda text: [tokenize(s) for s in sentences(text, split_summaries)]), score_lsum
    n = int(variant)
    return (lambda text: ngram_counts(tokenize(text), n)), score_ngrams


_MEASURES = {"p": 0, "r": 1, "f": 2}


class Rouge(SampleMetric):
    """ROUGE of the response against its best reference (highest F-measure, as rouge-score)."""

    def setup(self) -> None:
        params = self.params
        if params["split_summaries"] and params["variant"] != "Lsum":
            raise ParameterError(
                f"parameter 'split_summaries' of {self.id} applies to variant='Lsum' only"
            )
        tokenize = get_tokenizer(params["tokenizer"], params["use_stemmer"])
        self._prepare, self._compare = variant_scorer(params["variant"], tokenize, params["split_summaries"])
        self._measure = _MEASURES[params["measure"]]

    def score(self, example: Record, prediction: Record) -> Score:
        refs = inputs.targets(example, self.params["compare_to"])
        pred = self._prepare(inputs.response(prediction, blank=self.params["empty_response"]))
        scores = [self._compare(self._prepare(ref), pred) for ref in refs]
        best = max(range(len(scores)), key=lambda i: scores[i].fmeasure)
        chosen = scores[best]
        return Score(chosen[self._measure], details={**chosen._asdict(), "best_reference": best})
