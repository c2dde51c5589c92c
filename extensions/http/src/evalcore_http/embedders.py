"""Embedders that any metric may call: a callable, an OpenAI-compatible ``/v1/embeddings`` endpoint,
and the content-addressed cache in front of either (or of a plugin's own, such as a local model).

Every embedder embeds a list of texts in batches and has a ``signature`` (what produced the
vectors) that keys the cache. :func:`aembed` embeds from inside a run's event loop: the HTTP
embedder's calls go out on that loop, through the client's one connection pool and concurrency
limit for the run (no thread, no event loop or connection pool of their own); other embedders
run on a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from evalcore.vectors import as_matrix

from .cache import ContentCache, cache_key, run_cache
from .client import OpenAIClient, run_client

if TYPE_CHECKING:
    from evalcore.plugin import RunContext

CACHE_VERSION = "1"


class Embedder(Protocol):
    """Embeds texts (one vector a text, in order); ``signature`` names what produced the vectors."""

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


class HTTPEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint through an :class:`evalcore.http.OpenAIClient`
    built for the run by :func:`~evalcore_http.client.run_client`."""

    def __init__(self, client: OpenAIClient, *, batch_size: int = 32) -> None:
        self.client = client
        self.batch_size = batch_size
        self.signature = f"http:{client.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Blocking :meth:`aembed` (not from inside a running event loop)."""
        return asyncio.run(self.aembed(texts))

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts``, their batches sent at once on the running event loop."""
        batches = [texts[i:i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        results = await asyncio.gather(*(self.client.aembed(b) for b in batches))
        vectors = [v for result in results for v in result.vectors]
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
        found, missing = self._lookup(texts)
        if missing:
            self._store(found, missing, self.inner.embed(missing))
        return self._matrix(found, texts)

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`embed` from inside an event loop, the missing texts through :func:`aembed`."""
        found, missing = self._lookup(texts)
        if missing:
            self._store(found, missing, await aembed(self.inner, missing))
        return self._matrix(found, texts)

    def _lookup(self, texts: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
        """The cached vectors of ``texts``, and the distinct texts not cached."""
        found: dict[str, Any] = {}
        for text in dict.fromkeys(texts):
            value = self.cache.get(self.key(text))
            if isinstance(value, list):
                found[text] = value
        return found, [t for t in dict.fromkeys(texts) if t not in found]

    def _store(self, found: dict[str, Any], missing: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(missing, vectors):
            found[text] = [float(x) for x in vector]
            self.cache.put(self.key(text), found[text])

    @staticmethod
    def _matrix(found: Mapping[str, Any], texts: Sequence[str]) -> np.ndarray:
        return as_matrix([found[t] for t in texts]) if texts else np.zeros((0, 0))


async def aembed(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """``embedder``'s vectors of ``texts`` from inside an event loop: on the loop where the embedder
    has an ``aembed`` (the HTTP embedder and the cache in front of it), else on a worker thread."""
    native = getattr(embedder, "aembed", None)
    if native is not None:
        return await native(texts)
    return await asyncio.to_thread(embedder.embed, texts)


def build_embedder(params: Mapping[str, Any], context: RunContext,
                   local: Callable[[str | None], Embedder] | None = None) -> Embedder:
    """The embedder that a metric's parameters (``embed``, ``model``, ``base_url``, ``api_key_env``,
    ``batch_size``, ``cache_mode``, ``cache_dir``) describe over the run's embedding settings: the
    callable ``embed``, else the endpoint at ``base_url``, else ``local(model)``; behind the run's
    cache unless it is off.

    An unusable endpoint, or neither an endpoint nor ``local``, raises ``ValueError``;
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
        inner = HTTPEmbedder(run_client(context, str(base_url), model,
                                        api_key_env=context.setting(params, "api_key_env", "embedding")),
                             batch_size=batch_size)
    elif local is not None:
        inner = local(model)
    else:
        raise ValueError("no embedder: pass embed=<callable>, or base_url and model for an OpenAI-compatible "
                         "/v1/embeddings endpoint")
    cache = run_cache(context, params["cache_mode"], params.get("cache_dir"))
    return inner if cache is None else CachedEmbedder(inner, cache)
