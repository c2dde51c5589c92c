"""Diversity (Auepora RAG metric spec): ``distinct_n`` of all responses, ``intra_list_diversity`` of retrieved docs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import CorpusMetric, InputError, Record, SampleMetric, Score, SkipSample, response_text
from evalcore_text import ngram_counts, whitespace_tokens
from evalcore_text.vectors import intra_list_diversity

NgramState = Counter[tuple[str, ...]]


class DistinctN(CorpusMetric[NgramState]):
    """``# unique n-grams / # n-grams`` over every response; the state is the n-gram multiset."""

    bootstrap = False  # a resample repeats responses, which lowers distinct-n by construction

    def sample_state(self, example: Record, prediction: Record) -> NgramState:
        tokens = whitespace_tokens(response_text(prediction), lowercase=self.params["ignore_case"])
        return ngram_counts(tokens, self.params["n"])

    def sample_value(self, state: NgramState) -> float | None:
        total = sum(state.values())
        return len(state) / total if total else None

    def merge(self, states: Sequence[NgramState | None]) -> NgramState:
        merged: NgramState = Counter()
        for state in states:
            if state is not None:
                merged.update(state)
        return merged

    def compute(self, state: NgramState) -> Score:
        total = sum(state.values())
        if total == 0:
            return Score.skipped(f"no {self.params['n']}-grams in any response", num_ngrams=0)
        return Score(len(state) / total, details={"unique_ngrams": len(state), "total_ngrams": total})


def doc_embedding(doc: Any, index: int) -> list[float]:
    """``doc["metadata"]["embedding"]``; skips the sample when a document has none."""
    where = f"prediction.retrieved[{index}].metadata.embedding"
    if not isinstance(doc, Mapping):
        raise InputError(f"expected a document mapping, got {type(doc).__name__}",
                         field=f"prediction.retrieved[{index}]")
    metadata = doc.get("metadata")
    embedding = metadata.get("embedding") if isinstance(metadata, Mapping) else None
    if embedding is None:
        raise SkipSample(f"no embedding: {where} is missing")
    if isinstance(embedding, (str, bytes)) or not isinstance(embedding, Sequence):
        raise InputError(f"expected a list of numbers, got {type(embedding).__name__}", field=where)
    return list(embedding)


class IntraListDiversity(SampleMetric):
    """1 − mean pairwise cosine similarity of the top-k retrieved documents' embeddings."""

    def score(self, example: Record, prediction: Record) -> Score:
        docs = prediction.get("retrieved")
        if docs is None:
            raise SkipSample("prediction.retrieved is missing")
        if isinstance(docs, (str, bytes, Mapping)) or not isinstance(docs, Sequence):
            raise InputError(f"expected a list of documents, got {type(docs).__name__}",
                             field="prediction.retrieved")
        top = list(docs)[: self.params["k"]]
        if len(top) < 2:
            raise SkipSample(f"need at least two retrieved documents, got {len(top)}")
        vectors = [doc_embedding(doc, i) for i, doc in enumerate(top)]
        try:
            value = intra_list_diversity(vectors)
        except ValueError as exc:
            raise InputError(str(exc), field="prediction.retrieved[*].metadata.embedding") from None
        return Score(value, details={"num_docs": len(top)})
