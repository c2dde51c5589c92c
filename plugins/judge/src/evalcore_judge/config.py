"""Choosing a judge backend from metric parameters and environment variables.

A parameter wins over its environment variable:

=================  ==============================  =========================================
parameter          environment variable            meaning
=================  ==============================  =========================================
``backend``        ``EVALCORE_JUDGE_BACKEND``      ``http``, ``callable`` or ``transformers``
``base_url``       ``EVALCORE_JUDGE_BASE_URL``     OpenAI-compatible API root (``.../v1``)
``model``          ``EVALCORE_JUDGE_MODEL``        model name (http) or model path (transformers)
``api_key_env``    ``EVALCORE_JUDGE_API_KEY_ENV``  variable holding the API key (``OPENAI_API_KEY``)
``judge``          ``EVALCORE_JUDGE_CALLABLE``     a callable, or ``"module:attr"`` naming one
``gguf_file``      ``EVALCORE_JUDGE_GGUF_FILE``    GGUF file inside the model directory
=================  ==============================  =========================================

With no ``backend`` given, a ``judge`` callable selects ``callable`` and a base URL selects
``http``.
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Mapping
from typing import Any

from evalcore.cache import ContentCache
from evalcore.http import OpenAIClient, PriceTable

from .backends import Backend, CallableBackend, Decoding, HTTPBackend
from .critic import LLMCritic

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
_ENV = {
    "backend": "EVALCORE_JUDGE_BACKEND", "base_url": "EVALCORE_JUDGE_BASE_URL", "model": "EVALCORE_JUDGE_MODEL",
    "api_key_env": "EVALCORE_JUDGE_API_KEY_ENV", "judge": "EVALCORE_JUDGE_CALLABLE",
    "gguf_file": "EVALCORE_JUDGE_GGUF_FILE",
}


class JudgeConfigError(ValueError):
    """The parameters and environment do not name a usable judge."""


def setting(params: Mapping[str, Any], name: str) -> Any:
    """A parameter, else its environment variable, else ``None``."""
    value = params.get(name)
    if value is None and name in _ENV:
        value = os.environ.get(_ENV[name]) or None
    return value


def build_critic(params: Mapping[str, Any]) -> LLMCritic:
    """The critic the parameters of a judge metric describe."""
    judge = setting(params, "judge")
    if isinstance(judge, LLMCritic):
        return judge
    decoding = Decoding(params["temperature"], params["seed"], params["max_tokens"])
    cache = None if params["cache"] == "off" else ContentCache(params.get("cache_dir"), params["cache"])
    prices = PriceTable(params["prices"]) if params.get("prices") else PriceTable.from_env()
    return LLMCritic(build_backend(params), decoding=decoding, cache=cache, prices=prices)


def build_backend(params: Mapping[str, Any]) -> Backend:
    """The backend named by ``backend`` (or implied by the other settings)."""
    kind = setting(params, "backend")
    judge = setting(params, "judge")
    if kind is None:
        kind = "callable" if judge is not None else "http" if setting(params, "base_url") else None
    if kind == "callable":
        if judge is None:
            raise JudgeConfigError("backend 'callable' needs judge=<callable or 'module:attr'>")
        return CallableBackend(_resolve_callable(judge))
    if kind == "http":
        return HTTPBackend(_client(params))
    if kind == "transformers":
        from .local import TransformersBackend

        model = setting(params, "model")
        if not model:
            raise JudgeConfigError("backend 'transformers' needs model=<local model directory or .gguf file>")
        return TransformersBackend(model, gguf_file=setting(params, "gguf_file"))
    if kind is None:
        raise JudgeConfigError(
            "no judge backend configured: set EVALCORE_JUDGE_BASE_URL and EVALCORE_JUDGE_MODEL "
            "(any OpenAI-compatible server), or pass judge=<callable>, or backend='transformers' "
            "with model=<path>"
        )
    raise JudgeConfigError(f"unknown judge backend {kind!r}; use http, callable or transformers")


def _client(params: Mapping[str, Any]) -> OpenAIClient:
    base_url, model = setting(params, "base_url"), setting(params, "model")
    if not base_url or not model:
        raise JudgeConfigError(
            "backend 'http' needs base_url (or $EVALCORE_JUDGE_BASE_URL) and model (or $EVALCORE_JUDGE_MODEL)"
        )
    return OpenAIClient(
        base_url, model, api_key_env=setting(params, "api_key_env") or DEFAULT_API_KEY_ENV,
        timeout=params["timeout"], max_retries=params["max_retries"], max_concurrency=params["concurrency"],
        backoff_base=params["backoff_base"], rng=random.Random(params["seed"]),
    )


def _resolve_callable(judge: Any) -> Any:
    if callable(judge):
        return judge
    if isinstance(judge, str) and ":" in judge:
        module, _, attr = judge.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise JudgeConfigError(f"parameter 'judge': cannot load judge callable {judge!r}: {exc}") from None
    raise JudgeConfigError(f"judge must be a callable or 'module:attr'; got {judge!r}")
