"""Judge backends: something that turns chat messages into an answer text.

* :class:`HTTPBackend` — any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM,
  Ollama, llama.cpp's server, a LiteLLM proxy) through the official ``openai`` client.
* :class:`LiteLLMBackend` — a LiteLLM model string (``anthropic/...``, ``gemini/...``) in
  process (``pip install evalcore-judge[litellm]``).
* :class:`DSPyBackend` — the LM DSPy is configured with.
* :class:`CriticBackend` — an LLMCritic object as the RAG metric spec defines it
  (``score(*, prompt, metadata) -> float``, optionally ``ascore``).
* :class:`CallableBackend` — any Python callable ``fn(prompt, metadata)`` returning text,
  a number or a mapping (sync or async).
* ``TransformersBackend`` (in :mod:`evalcore_judge.local`) — a local model in process.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs
from evalcore.http import OpenAIClient, Usage

Messages = Sequence[Mapping[str, str]]


@attrs.frozen
class Completion:
    """A backend's answer; ``usage`` is ``None`` when the backend does not count tokens."""

    text: str
    usage: Usage | None = None
    finish_reason: str | None = None


@attrs.frozen
class Decoding:
    """Decoding parameters; part of every cache key."""

    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 256

    def to_dict(self) -> dict[str, Any]:
        return attrs.asdict(self)


class Backend(Protocol):
    """What a judge needs from a model."""

    name: str
    model: str
    paid: bool

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        ...


class HTTPBackend:
    """Chat completions over HTTP through :class:`evalcore.http.OpenAIClient`."""

    name = "http"
    paid = True

    def __init__(self, client: OpenAIClient) -> None:
        self.client = client
        self.model = client.model

    def __repr__(self) -> str:
        return f"<HTTPBackend {self.client.base_url} model={self.model!r}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        result = await self.client.achat(
            messages, temperature=decoding.temperature, seed=decoding.seed, max_tokens=decoding.max_tokens,
        )
        return Completion(result.text, result.usage, result.finish_reason)


class CallableBackend:
    """A Python callable as a judge: ``fn(prompt, metadata)`` (or ``fn(prompt)``).

    The prompt is the system and user messages joined by a blank line. A returned number
    becomes ``{"score": number}``; a mapping is sent on as JSON; text as it is.
    """

    name = "callable"
    paid = False

    def __init__(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError(f"a callable judge must be callable; got {type(fn).__name__}")
        self.fn = fn
        self.model = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        self._takes_metadata = _accepts_two_arguments(fn)

    def __repr__(self) -> str:
        return f"<CallableBackend {self.model}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        prompt = _prompt(messages)
        args = (prompt, dict(metadata)) if self._takes_metadata else (prompt,)
        if inspect.iscoroutinefunction(self.fn):
            raw = await self.fn(*args)
        else:
            raw = await asyncio.to_thread(self.fn, *args)
            if inspect.isawaitable(raw):
                raw = await raw
        return Completion(_as_text(raw))


def _accepts_two_arguments(fn: Callable[..., Any]) -> bool:
    try:
        inspect.signature(fn).bind("prompt", {})
    except TypeError:
        return False
    except ValueError:  # builtins without a signature
        return False
    return True


def _as_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        raise TypeError("a callable judge returned a bool; return a number or text")
    if isinstance(raw, (int, float)):
        return json.dumps({"score": raw})
    if isinstance(raw, Mapping):
        return json.dumps(dict(raw), default=str)
    if raw is None:
        return ""
    raise TypeError(f"a callable judge returned {type(raw).__name__}; return text, a number or a mapping")


def _prompt(messages: Messages) -> str:
    return "\n\n".join(m["content"] for m in messages)


class CriticBackend:
    """The RAG metric spec's LLMCritic: ``score(*, prompt, metadata) -> float`` (``ascore`` when it has one).

    The critic answers one number for the whole prompt; it stands for every field the
    metric asks for (``metadata["fields"]``), read on the metric's ``scale``.
    """

    name = "critic"
    paid = False

    def __init__(self, critic: Any) -> None:
        self.critic = critic
        self.model = type(critic).__qualname__

    def __repr__(self) -> str:
        return f"<CriticBackend {self.model}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        prompt, meta = _prompt(messages), dict(metadata)
        ascore = getattr(self.critic, "ascore", None)
        if ascore is not None and inspect.iscoroutinefunction(ascore):
            value = await ascore(prompt=prompt, metadata=meta)
        else:
            value = await asyncio.to_thread(self.critic.score, prompt=prompt, metadata=meta)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"the critic's score returned {type(value).__name__}; the RAG metric spec's "
                            "LLMCritic returns a float")
        fields = metadata.get("fields") or ("score",)
        return Completion(json.dumps({field: value for field in fields}))


class DSPyBackend:
    """The LM DSPy is configured with (``dspy.configure(lm=...)`` / ``dspy.context(lm=...)``),
    captured when the metric is made; called with the judge's decoding."""

    name = "dspy"
    paid = False

    def __init__(self, lm: Any) -> None:
        self.lm = lm
        self.model = str(getattr(lm, "model", type(lm).__qualname__))

    def __repr__(self) -> str:
        return f"<DSPyBackend {self.model}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        return Completion(await asyncio.to_thread(self._generate, messages, decoding))

    def _generate(self, messages: Messages, decoding: Decoding) -> str:
        try:  # DSPy >= 3.4: a normalised request (messages= is deprecated there)
            from dspy.lm15 import Config, Message, Request
        except ImportError:
            outputs = self.lm(messages=[dict(m) for m in messages], temperature=decoding.temperature,
                              max_tokens=decoding.max_tokens)
            first = outputs[0] if outputs else ""
            return first.get("text", "") if isinstance(first, Mapping) else str(first)
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
        turns = tuple(Message.user(m["content"]) for m in messages if m["role"] != "system")
        config = Config(max_tokens=decoding.max_tokens, temperature=decoding.temperature)
        response = self.lm(Request(model=self.model, messages=turns, system=system, config=config))
        return response.text or ""


class LiteLLMBackend:
    """A LiteLLM model string (``provider/model``) called through ``litellm.acompletion``;
    ``base_url`` and ``api_key`` are passed on when given (else LiteLLM reads its own variables)."""

    name = "litellm"
    paid = True

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 4) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries

    def __repr__(self) -> str:
        return f"<LiteLLMBackend model={self.model!r}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any]) -> Completion:
        import litellm

        extra = {k: v for k, v in (("api_base", self.base_url), ("api_key", self.api_key)) if v}
        response = await litellm.acompletion(
            model=self.model, messages=[dict(m) for m in messages], temperature=decoding.temperature,
            seed=decoding.seed, max_tokens=decoding.max_tokens, timeout=self.timeout, num_retries=self.max_retries,
            **extra,
        )
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        tokens = Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)) if usage else None
        return Completion(choice.message.content or "", tokens, getattr(choice, "finish_reason", None))
