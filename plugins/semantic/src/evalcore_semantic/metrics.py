"""Semantic metrics: embedding similarity, BERTScore, intra-list diversity from model embeddings.

All three are batch metrics: texts of the whole batch are embedded together (and through
the cache). Empty texts are skipped with a reason; a pair that cannot be read is an error
for that pair only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalcore.plugin import (
    BatchMetric,
    Record,
    RunContext,
    Score,
    SkipSample,
    doc_texts,
    inputs,
)
from evalcore_text.vectors import cosine_similarity, intra_list_diversity

from .bertscore import PRF, BertScorer, read_baseline
from .embedders import build_embedder
from .models import ModelUnavailable, resolve_model


def _response_and_targets(example: Record, prediction: Record, compare_to: str) -> tuple[str, list[str]]:
    return (inputs.response(prediction, blank="skip"),
            inputs.targets(example, compare_to, blank="skip"))


def _prepare(pairs: Sequence[tuple[Record, Record]], read: Any) -> list[Any]:
    """Per pair, what ``read(example, prediction)`` returns, or the Score it failed with."""
    prepared = []
    for example, prediction in pairs:
        try:
            prepared.append(read(example, prediction))
        except BaseException as exc:  # noqa: BLE001 - one bad pair is a result
            prepared.append(Score.from_exception(exc))
    return prepared


class _EmbeddingMetric(BatchMetric):
    """A batch metric that embeds texts through ``self.embedder``."""

    def open(self, context: RunContext) -> None:
        """The embedder from this metric's parameters over the run's embedding settings and cache."""
        super().open(context)
        try:
            self.embedder = build_embedder(self.params, context)
        except (ModelUnavailable, ValueError) as exc:
            raise self.parameter_error("model", str(exc)) from None
        except TypeError as exc:
            raise self.parameter_error("embed", str(exc)) from None

    def recorded_params(self) -> dict[str, Any]:
        """The parameters, with the embedding backend and model in use once open (``embedder``: ``http:MODEL``,
        ``local:NAME:...`` or ``callable:NAME``) and the model and base URL it uses, from the run's embedding
        settings when the parameters leave them unset, so runs embedded differently do not compare."""
        recorded = super().recorded_params()
        if self.context is not None:
            signature = self.embedder.signature
            model, base_url = (self.context.setting(self.params, name, "embedding") for name in ("model", "base_url"))
            recorded.update(embedder=signature, model=None if signature.startswith("callable:") else model,
                            base_url=base_url if signature.startswith("http:") else None)
        return recorded

    def usage_summary(self) -> dict[str, Any]:
        """The embedding cache's hits, misses and writes (empty without a cache)."""
        cache = getattr(self.embedder, "cache", None)
        return {"cache": cache.stats.to_dict()} if cache is not None else {}


class EmbeddingSimilarity(_EmbeddingMetric):
    """From the Auepora RAG metric spec: cosine of the response and the reference (best reference) or the query."""

    def _read(self, example: Record, prediction: Record) -> tuple[str, list[str]]:
        return _response_and_targets(example, prediction, self.params["compare_to"])

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Any]:
        prepared = _prepare(list(zip(examples, predictions)), self._read)
        texts = [t for p in prepared if not isinstance(p, Score) for t in (p[0], *p[1])]
        vectors = dict(zip(texts, self.embedder.embed(texts))) if texts else {}
        results: list[Any] = []
        for item in prepared:
            if isinstance(item, Score):
                results.append(item)
                continue
            response, targets = item
            sims = [cosine_similarity(vectors[response], vectors[t]) for t in targets]
            best = max(range(len(sims)), key=sims.__getitem__)
            results.append(Score(sims[best], details={"embedder": self.embedder.signature, "best_target": best}))
        return results


class BertScore(BatchMetric):
    """From the Auepora RAG metric spec: BERTScore precision, recall and F1 (``score_type`` picks the value)."""

    def setup(self) -> None:
        if self.params["rescale_with_baseline"] and not self.params["baseline_path"]:
            raise self.parameter_error("baseline_path", "rescale_with_baseline needs baseline_path=<bert-score "
                                                        "baseline file for this model>")

    def open(self, context: RunContext) -> None:
        """The model from this metric's ``model`` or the run's embedding model, loaded once per process."""
        super().open(context)
        params = self.params
        try:
            model = resolve_model(context.setting(params, "model", "embedding"), params["allow_download"])
            self.scorer = BertScorer(model, idf=params["idf"], device=params["device"],
                                     batch_size=params["batch_size"], allow_download=params["allow_download"])
        except ModelUnavailable as exc:
            raise self.parameter_error("model", str(exc)) from None
        try:
            self.scorer.num_layers = self.scorer.layer(params["num_layers"])
        except ValueError as exc:
            raise self.parameter_error("num_layers", str(exc)) from None
        if params["rescale_with_baseline"]:
            try:
                self.scorer.baseline = read_baseline(params["baseline_path"], self.scorer.num_layers)
            except (OSError, ValueError, KeyError) as exc:
                raise self.parameter_error("baseline_path", f"{type(exc).__name__}: {exc}") from None

    def recorded_params(self) -> dict[str, Any]:
        """The parameters, with the model in use once open (``signature``: model and settings; the run's
        embedding model when the parameters leave it unset), so runs scored by other models do not compare."""
        recorded = super().recorded_params()
        if self.context is not None:
            recorded.update(model=self.context.setting(self.params, "model", "embedding"),
                            signature=self.scorer.signature())
        return recorded

    def _read(self, example: Record, prediction: Record) -> tuple[str, list[str]]:
        return _response_and_targets(example, prediction, self.params["compare_to"])

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Any]:
        prepared = _prepare(list(zip(examples, predictions)), self._read)
        cands, refs, owner = [], [], []
        for index, item in enumerate(prepared):
            if not isinstance(item, Score):
                for target in item[1]:
                    cands.append(item[0])
                    refs.append(target)
                    owner.append(index)
        scores = self.scorer.score(cands, refs) if cands else []
        best: dict[int, PRF] = {}
        for index, prf in zip(owner, scores):  # several references: each of P, R, F at its best, as bert-score
            seen = best.get(index, prf)
            best[index] = PRF(max(seen.precision, prf.precision), max(seen.recall, prf.recall), max(seen.f1, prf.f1))
        signature = self.scorer.signature()
        kind = self.params["score_type"]
        results: list[Any] = []
        for index, item in enumerate(prepared):
            if isinstance(item, Score):
                results.append(item)
                continue
            prf = best[index]
            results.append(Score(getattr(prf, kind), details={
                "precision": prf.precision, "recall": prf.recall, "f1": prf.f1, "signature": signature,
                "truncated": len(self.scorer.encode_ids(item[0])) >= self.scorer.tokenizer.model_max_length,
            }))
        return results


class IntraListDiversity(_EmbeddingMetric):
    """Auepora intra-list diversity, embeddings from a model: 1 − mean pairwise cosine of the top-k texts."""

    def _read(self, example: Record, prediction: Record) -> list[str]:
        texts = doc_texts(prediction.get("retrieved"), field="prediction.retrieved")[: self.params["k"]]
        texts = [t for t in texts if t.strip()]
        if len(texts) < 2:
            raise SkipSample("fewer than two retrieved documents with text")
        return texts

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Any]:
        prepared = _prepare(list(zip(examples, predictions)), self._read)
        texts = [t for p in prepared if not isinstance(p, Score) for t in p]
        vectors = dict(zip(texts, self.embedder.embed(texts))) if texts else {}
        return [item if isinstance(item, Score) else
                Score(intra_list_diversity([vectors[t] for t in item]),
                      details={"embedder": self.embedder.signature, "documents": len(item)})
                for item in prepared]
