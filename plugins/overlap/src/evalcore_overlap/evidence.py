"""Evidence-overlap faithfulness: how much of the response's wording the evidence contains."""

from __future__ import annotations

from evalcore.plugin import Record, SampleMetric, Score, SkipSample, inputs
from evalcore_text import ngrams, normalize_text

from ._tokenizers import Tokenizer, get_tokenizer

_SHOWN = 10


def _normalized_words(text: str) -> list[str]:
    return normalize_text(text).split()


class EvidenceOverlapFaithfulness(SampleMetric):
    """Fraction of the response's n-grams (with repeats) that occur in some evidence document."""

    def setup(self) -> None:
        name = self.params["tokenizer"]
        self._tokenize: Tokenizer = _normalized_words if name == "normalized" else get_tokenizer(name)

    def score(self, example: Record, prediction: Record) -> Score:
        n = self.params["n"]
        docs = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        grams = ngrams(self._tokenize(inputs.response(prediction, blank="skip")), n)
        if not grams:
            raise SkipSample(f"the response has no {n}-grams")
        support = set().union(*(ngrams(self._tokenize(doc), n) for doc in docs))
        missing = [gram for gram in grams if gram not in support]
        supported = len(grams) - len(missing)
        feedback = None
        if missing:
            shown = ", ".join(" ".join(gram) for gram in list(dict.fromkeys(missing))[:_SHOWN])
            feedback = f"{len(missing)} of {len(grams)} response {n}-grams are not in the evidence: {shown}"
        return Score(supported / len(grams), feedback=feedback,
                     details={"supported": supported, "ngrams": len(grams)})
