"""Embedding backends: a local model here; a callable or an OpenAI-compatible ``/v1/embeddings``
endpoint, and the on-disk cache in front of each, from :mod:`evalcore_http.embedders`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from evalcore.plugin import RunContext
from evalcore_http.embedders import Embedder
from evalcore_http.embedders import build_embedder as shared_embedder

from .models import load_sentence_transformer, load_transformer, require, resolve_model


class LocalEmbedder:
    """A local model: sentence-transformers when the directory is one, else mean pooling + L2 norm."""

    def __init__(self, model: str | None, *, device: str = "cpu", batch_size: int = 32,
                 allow_download: bool = False) -> None:
        self.model = resolve_model(model, allow_download)
        self.device = device
        self.batch_size = batch_size
        self.allow_download = allow_download
        self.sentence_transformers = (Path(self.model) / "modules.json").is_file() and \
            importlib.util.find_spec("sentence_transformers") is not None
        self.signature = f"local:{Path(self.model).name}:{'st' if self.sentence_transformers else 'mean'}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.sentence_transformers:
            model = load_sentence_transformer(self.model, self.device, self.allow_download)
            return np.asarray(model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                           convert_to_numpy=True), dtype=float)
        return self._mean_pooled(texts)

    def _mean_pooled(self, texts: Sequence[str]) -> np.ndarray:
        torch = require("torch")
        tokenizer, model = load_transformer(self.model, self.device, self.allow_download)
        parts = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                                  return_tensors="pt").to(self.device)
                hidden = model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                parts.append(torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy())
        return np.vstack(parts).astype(float) if parts else np.zeros((0, 0))


def build_embedder(params: Mapping[str, Any], context: RunContext) -> Embedder:
    """The embedder the parameters of a semantic metric describe (see
    :func:`evalcore_http.embedders.build_embedder`), a local model when neither ``embed`` nor an
    endpoint is given.

    A missing model raises :class:`ModelUnavailable`, an unusable endpoint ``ValueError``;
    the metric names itself and the parameter.
    """
    def local(model: str | None) -> Embedder:
        return LocalEmbedder(model, device=params["device"], batch_size=params["batch_size"],
                             allow_download=params["allow_download"])

    return shared_embedder(params, context, local)
