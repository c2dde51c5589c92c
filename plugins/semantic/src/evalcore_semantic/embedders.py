"""Embedding backends: a callable, a local model, or an OpenAI-compatible ``/v1/embeddings`` endpoint.

Every backend embeds a list of texts in batches and has a ``signature`` (what produced
the vectors) that keys the shared on-disk cache (:mod:`evalcore.cache`).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from evalcore.cache import ContentCache, cache_key
from evalcore.http import OpenAIClient
from evalcore.plugin import RunContext
from evalcore.vectors import as_matrix

from .models import load_sentence_transformer, load_transformer, require, resolve_model

CACHE_VERSION = "1"


class Embedder(Protocol):
    signature: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        ...


class CallableEmbedder:
    """``fn(texts) -> vectors`` (the Auepora spec's ``embed_fn``)."""

    def __init__(self, fn: Callable[[list[str]], Any], batch_size: int = 32) -> None:
        if not callable(fn):
            raise TypeError(f"embed must be callable; got {type(fn).__name__}")
        self.fn = fn
        self.batch_size = batch_size
        self.signature = f"callable:{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', type(fn).__name__)}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            vectors = as_matrix(self.fn(batch))
            if len(vectors) != len(batch):
                raise ValueError(f"embed returned {len(vectors)} vectors for {len(batch)} texts")
            parts.append(vectors)
        return np.vstack(parts) if parts else np.zeros((0, 0))


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


class HTTPEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint through an :class:`evalcore.http.OpenAIClient`
    (the official ``openai`` client), which the run builds (:meth:`evalcore.plugin.RunContext.client`)."""

    def __init__(self, client: OpenAIClient, *, batch_size: int = 32) -> None:
        self.client = client
        self.batch_size = batch_size
        self.signature = f"http:{client.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        async def run() -> list[list[list[float]]]:
            batches = [texts[i:i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
            results = await asyncio.gather(*(self.client.aembed(b) for b in batches))
            return [r.vectors for r in results]

        vectors = [v for batch in asyncio.run(run()) for v in batch]
        return as_matrix(vectors) if vectors else np.zeros((0, 0))


class CachedEmbedder:
    """Any embedder behind the content-addressed cache; only missing texts are embedded."""

    def __init__(self, inner: Embedder, cache: ContentCache) -> None:
        self.inner = inner
        self.cache = cache
        self.signature = inner.signature

    def key(self, text: str) -> str:
        return cache_key(metric="semantic/embedding", version=CACHE_VERSION, template_hash="",
                         model=self.signature, decoding={}, inputs=text)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        found: dict[str, Any] = {}
        for text in dict.fromkeys(texts):
            value = self.cache.get(self.key(text))
            if isinstance(value, list):
                found[text] = value
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing)):
                found[text] = [float(x) for x in vector]
                self.cache.put(self.key(text), found[text])
        return as_matrix([found[t] for t in texts]) if texts else np.zeros((0, 0))


def build_embedder(params: Mapping[str, Any], context: RunContext) -> Embedder:
    """The embedder the parameters of a semantic metric describe over the run's embedding settings
    (``model``, ``base_url``, ``api_key_env``), behind the run's cache unless it is off.

    A missing model raises :class:`ModelUnavailable`, an unusable endpoint ``ValueError``;
    the metric names itself and the parameter.
    """
    batch_size = params["batch_size"]
    model = context.setting(params, "model", "embedding")
    base_url = context.setting(params, "base_url", "embedding")
    if params.get("embed") is not None:
        inner: Embedder = CallableEmbedder(params["embed"], batch_size)
    elif base_url:
        if not model:
            raise ValueError("an embeddings endpoint (base_url) needs model=<model name>")
        if not str(base_url).startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://; got {base_url!r}")
        inner = HTTPEmbedder(context.client(str(base_url), model,
                                            api_key_env=context.setting(params, "api_key_env", "embedding")),
                             batch_size=batch_size)
    else:
        inner = LocalEmbedder(model, device=params["device"], batch_size=batch_size,
                              allow_download=params["allow_download"])
    cache = context.cache(params["cache_mode"], params.get("cache_dir"))
    return inner if cache is None else CachedEmbedder(inner, cache)
