"""The critic (the Auepora RAG metric spec): a backend with a cache, a price table and score parsing.

``LLMCritic.score(prompt=..., metadata=...) -> float`` (and ``ascore``) is the Auepora RAG metric spec's
interface; metrics use :meth:`LLMCritic.acall`, which returns the answer with its usage,
cost and cache status, and parse it themselves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore.cache import ContentCache, cache_key, content_hash
from evalcore.http import PriceTable, Usage

from .backends import Backend, Completion, Decoding, Messages
from .parsing import Parsed, UnparseableJudgement, parse_judgement

SEED_TEMPLATE_HASH = content_hash("evalcore-judge critic: free prompt")


@attrs.frozen
class Call:
    """One judge call: the answer, its tokens and cost, and whether the cache answered."""

    text: str
    usage: Usage | None
    cost_msats: int
    cached: bool
    finish_reason: str | None = None
    saved_cost_msats: int = 0

    def to_cache(self) -> dict[str, Any]:
        return {
            "text": self.text, "finish_reason": self.finish_reason, "cost_msats": self.cost_msats,
            "usage": self.usage.to_dict() if self.usage else None,
        }

    @classmethod
    def from_cache(cls, entry: Mapping[str, Any]) -> Call:
        usage = entry.get("usage")
        return cls(
            text=entry["text"], cached=True, cost_msats=0, finish_reason=entry.get("finish_reason"),
            saved_cost_msats=int(entry.get("cost_msats") or 0),
            usage=Usage(usage["prompt_tokens"], usage["completion_tokens"], usage["reported"]) if usage else None,
        )


class LLMCritic:
    """Asks a :class:`~evalcore_judge.backends.Backend` and remembers the answers.

    The cache key holds the metric id and version, the prompt template hash, the model,
    the decoding parameters and the rendered messages (which contain every input).
    """

    def __init__(
        self, backend: Backend, *, decoding: Decoding | None = None, cache: ContentCache | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.backend = backend
        self.decoding = decoding or Decoding()
        self.cache = cache
        self.prices = prices or PriceTable()

    def __repr__(self) -> str:
        return f"<LLMCritic {self.backend!r}>"

    @property
    def model(self) -> str:
        return self.backend.model

    def key(self, messages: Messages, *, metric: str, version: str, template_hash: str) -> str:
        """The cache key of asking ``messages``."""
        return cache_key(
            metric=metric, version=version, template_hash=template_hash,
            model=f"{self.backend.name}:{self.backend.model}", decoding=self.decoding.to_dict(),
            inputs=[dict(m) for m in messages],
        )

    def cost_msats(self, usage: Usage | None) -> int:
        """What ``usage`` costs; local backends cost nothing unless their model is priced."""
        if usage is None:
            return 0
        if self.backend.paid:
            return self.prices.cost_msats(self.backend.model, usage)
        price = self.prices.prices.get(self.backend.model)
        return price.cost_msats(usage) if price else 0

    async def acall(
        self, messages: Messages, *, metric: str, version: str, template_hash: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> Call:
        """Ask the backend, or answer from the cache."""
        key = self.key(messages, metric=metric, version=version, template_hash=template_hash)
        if self.cache is not None:
            entry = self.cache.get(key)
            if isinstance(entry, Mapping) and isinstance(entry.get("text"), str):
                return Call.from_cache(entry)
        completion: Completion = await self.backend.agenerate(messages, self.decoding, metadata or {})
        call = Call(completion.text, completion.usage, self.cost_msats(completion.usage), False,
                    completion.finish_reason)
        if self.cache is not None and completion.text.strip():
            self.cache.put(key, call.to_cache())
        return call

    def parse(self, call: Call, fields: Sequence[str], scale: str) -> Parsed:
        """Parse a call's answer; a cut-off answer says so in the error."""
        try:
            return parse_judgement(call.text, fields, scale)
        except UnparseableJudgement as exc:
            if call.finish_reason == "length":
                reason = f"{exc.reason} (the answer was cut off at max_tokens={self.decoding.max_tokens})"
                raise UnparseableJudgement(reason, exc.raw) from None
            raise

    async def ascore(self, *, prompt: str, metadata: Mapping[str, Any] | None = None, scale: str = "0-1") -> float:
        """From the Auepora RAG metric spec: the score of ``prompt`` normalised to [0, 1]."""
        messages = [{"role": "user", "content": prompt}]
        call = await self.acall(messages, metric="critic", version="1", template_hash=SEED_TEMPLATE_HASH,
                                metadata=metadata)
        return self.parse(call, ("score",), scale).values["score"]

    def score(self, *, prompt: str, metadata: Mapping[str, Any] | None = None, scale: str = "0-1") -> float:
        """Blocking :meth:`ascore` (not from inside a running event loop)."""
        return asyncio.run(self.ascore(prompt=prompt, metadata=metadata, scale=scale))
