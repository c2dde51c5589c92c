"""Choosing a judge backend from metric parameters and environment variables.

A parameter wins over its environment variable:

=================  ==============================  =========================================
parameter          environment variable            meaning
=================  ==============================  =========================================
``backend``        ``EVALCORE_JUDGE_BACKEND``      ``http``, ``litellm``, ``dspy``, ``callable``
                                                   or ``transformers``
``base_url``       ``EVALCORE_JUDGE_BASE_URL``,    OpenAI-compatible API root (``.../v1``)
                   then ``OPENAI_BASE_URL``
``model``          ``EVALCORE_JUDGE_MODEL``        model name (http), LiteLLM model string
                                                   (``anthropic/claude-...``) or local path
``api_key_env``    ``EVALCORE_JUDGE_API_KEY_ENV``  variable holding the API key (``OPENAI_API_KEY``)
``judge``          ``EVALCORE_JUDGE_CALLABLE``     a callable, ``"module:attr"``, an LLMCritic
                                                   object (``score`` / ``ascore``) or ``"dspy"``
``gguf_file``      ``EVALCORE_JUDGE_GGUF_FILE``    GGUF file inside the model directory
=================  ==============================  =========================================

With no ``backend`` given: ``judge='dspy'`` selects the LM DSPy is configured with; an
object with ``score`` / ``ascore`` is used as the RAG metric spec's LLMCritic; another
``judge`` callable selects ``callable``; a base URL selects ``http``; and when nothing is
set but DSPy has an LM configured (``dspy.configure(lm=...)`` or ``dspy.context(lm=...)``),
that LM judges.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from collections.abc import Mapping
from typing import Any

from evalcore.cache import ContentCache
from evalcore.http import OpenAIClient, PriceTable
from evalcore.plugin import SetupError

from .backends import Backend, CallableBackend, CriticBackend, Decoding, DSPyBackend, HTTPBackend, LiteLLMBackend
from .critic import LLMCritic

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
BACKENDS = ("http", "litellm", "dspy", "callable", "transformers")
_ENV = {
    "backend": ("EVALCORE_JUDGE_BACKEND",), "base_url": ("EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL"),
    "model": ("EVALCORE_JUDGE_MODEL",), "api_key_env": ("EVALCORE_JUDGE_API_KEY_ENV",),
    "judge": ("EVALCORE_JUDGE_CALLABLE",), "gguf_file": ("EVALCORE_JUDGE_GGUF_FILE",),
}


class JudgeConfigError(SetupError):
    """The parameters and environment do not name a usable judge."""


def setting(params: Mapping[str, Any], name: str) -> Any:
    """A parameter, else its environment variables in order, else ``None``."""
    value = params.get(name)
    for variable in _ENV.get(name, ()) if value is None else ():
        value = os.environ.get(variable) or None
        if value is not None:
            break
    return value


def build_critic(params: Mapping[str, Any], metric_id: str = "judge") -> LLMCritic:
    """The critic the parameters of the judge metric ``metric_id`` describe."""
    judge = setting(params, "judge")
    if isinstance(judge, LLMCritic):
        return judge
    decoding = Decoding(params["temperature"], params["seed"], params["max_tokens"])
    cache = None if params["cache"] == "off" else ContentCache(params.get("cache_dir"), params["cache"])
    prices = PriceTable(params["prices"]) if params.get("prices") else PriceTable.from_env()
    return LLMCritic(build_backend(params, metric_id), decoding=decoding, cache=cache, prices=prices)


def build_backend(params: Mapping[str, Any], metric_id: str = "judge") -> Backend:
    """The backend named by ``backend`` (or implied by the other settings)."""
    kind = setting(params, "backend")
    judge = setting(params, "judge")
    if kind is None:
        kind = _implied_kind(params, judge)
    if kind == "dspy":
        return DSPyBackend(_dspy_lm(metric_id))
    if kind == "critic":
        return CriticBackend(judge)
    if kind == "callable":
        if judge is None:
            raise JudgeConfigError(metric_id, "judge", "backend 'callable' needs judge=<callable or 'module:attr'>")
        return CallableBackend(_resolve_callable(judge, metric_id))
    if kind == "http":
        return HTTPBackend(_client(params, metric_id))
    if kind == "litellm":
        model = setting(params, "model")
        if not model:
            raise JudgeConfigError(metric_id, "model", "backend 'litellm' needs a LiteLLM model string, "
                                   "e.g. model='anthropic/claude-3-5-haiku-latest'")
        key_env = setting(params, "api_key_env")
        api_key = os.environ.get(key_env) if key_env else None
        return LiteLLMBackend(model, base_url=params.get("base_url"), api_key=api_key,
                              timeout=params["timeout"], max_retries=params["max_retries"])
    if kind == "transformers":
        from .local import TransformersBackend

        model = setting(params, "model")
        if not model:
            raise JudgeConfigError(metric_id, "model",
                                   "backend 'transformers' needs model=<local model directory or .gguf file>")
        try:
            return TransformersBackend(model, gguf_file=setting(params, "gguf_file"))
        except FileNotFoundError as exc:
            raise JudgeConfigError(metric_id, "model", str(exc)) from None
    if kind is None:
        raise JudgeConfigError(
            metric_id, "backend",
            "no judge backend configured: set base_url and model (or $EVALCORE_JUDGE_BASE_URL / "
            "$OPENAI_BASE_URL and $EVALCORE_JUDGE_MODEL) for any OpenAI-compatible server, or pass "
            "judge=<callable>, judge='dspy' (the LM DSPy is configured with), backend='litellm' with a "
            "LiteLLM model string, or backend='transformers' with model=<path>",
        )
    raise JudgeConfigError(metric_id, "backend", f"unknown judge backend {kind!r}; use one of {', '.join(BACKENDS)}")


def _implied_kind(params: Mapping[str, Any], judge: Any) -> str | None:
    if judge == "dspy":
        return "dspy"
    if judge is not None and not isinstance(judge, str) and callable(getattr(judge, "score", None)):
        return "critic"
    if judge is not None:
        return "callable"
    if setting(params, "base_url"):
        return "http"
    if _configured_dspy_lm() is not None:
        return "dspy"
    return None


def _configured_dspy_lm() -> Any:
    """The LM DSPy is configured with in this context, if DSPy is in use (never imports it)."""
    dspy = sys.modules.get("dspy")
    settings = getattr(dspy, "settings", None)
    return getattr(settings, "lm", None) if settings is not None else None


def _dspy_lm(metric_id: str) -> Any:
    try:
        import dspy
    except ImportError:
        raise JudgeConfigError(metric_id, "judge", "judge='dspy' needs DSPy installed (pip install dspy)") from None
    lm = dspy.settings.lm
    if lm is None:
        raise JudgeConfigError(metric_id, "judge", "judge='dspy' but DSPy has no LM configured; "
                               "call dspy.configure(lm=...) or use dspy.context(lm=...)")
    return lm


def _client(params: Mapping[str, Any], metric_id: str) -> OpenAIClient:
    base_url, model = setting(params, "base_url"), setting(params, "model")
    if not base_url:
        raise JudgeConfigError(metric_id, "base_url", "backend 'http' needs base_url (or $EVALCORE_JUDGE_BASE_URL "
                               "or $OPENAI_BASE_URL)")
    if not model:
        raise JudgeConfigError(metric_id, "model", "backend 'http' needs model (or $EVALCORE_JUDGE_MODEL)")
    if not str(base_url).startswith(("http://", "https://")):
        raise JudgeConfigError(metric_id, "base_url", f"must start with http:// or https://; got {base_url!r}")
    return OpenAIClient(
        base_url, model, api_key_env=setting(params, "api_key_env") or DEFAULT_API_KEY_ENV,
        timeout=params["timeout"], max_retries=params["max_retries"], max_concurrency=params["concurrency"],
        backoff_base=params["backoff_base"], rng=random.Random(params["seed"]),
    )


def _resolve_callable(judge: Any, metric_id: str) -> Any:
    if callable(judge):
        return judge
    if isinstance(judge, str) and ":" in judge:
        module, _, attr = judge.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise JudgeConfigError(metric_id, "judge", f"cannot load judge callable {judge!r}: {exc}") from None
    raise JudgeConfigError(metric_id, "judge", f"must be a callable, 'module:attr', 'dspy' or an LLMCritic; "
                           f"got {judge!r}")
