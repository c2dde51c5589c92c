"""Choosing a judge backend from metric parameters and the run's judge settings.

This plugin declares the settings group ``judge`` (``context.settings["judge"]``) and five
backends for it; another distribution may add one (``evalcore_backends`` returning a
``BackendSpec(name=..., group="judge", implementation="module:factory")``), called as
``factory(settings, context, metric_id)`` with the judge's settings (the metric's parameters over
the run's) and returning an object with ``name``, ``model`` and ``agenerate`` (see
:class:`~evalcore_judge.backends.Backend`).

A metric's parameter wins over the run's setting (``evaluate(..., judge={...})``, the CLI's
``--judge-*`` flags), which wins over the environment variable read when the run started:

=================  ==============================  =========================================
parameter          environment variable            meaning
=================  ==============================  =========================================
``backend``        ``EVALCORE_JUDGE_BACKEND``      ``http``, ``litellm``, ``dspy``, ``callable``,
                                                   ``transformers``, or one another plugin adds
``base_url``       ``EVALCORE_JUDGE_BASE_URL``,    OpenAI-compatible API root (``.../v1``)
                   then ``OPENAI_BASE_URL``
``model``          ``EVALCORE_JUDGE_MODEL``        model name (http), LiteLLM model string
                                                   (``anthropic/claude-...``) or local path
``api_key_env``    ``EVALCORE_JUDGE_API_KEY_ENV``  variable holding the API key (``OPENAI_API_KEY``)
``judge``          ``EVALCORE_JUDGE_CALLABLE``     a callable, ``"module:attr"``, an LLMCritic
                                                   object (``score`` / ``ascore``) or ``"dspy"``
``gguf_file``      ``EVALCORE_JUDGE_GGUF_FILE``    GGUF file inside the model directory
``batch``          ``EVALCORE_JUDGE_BATCH``        send the http backend's requests through a batch
                                                   API at the batch rate (``--judge-batch``)
``batch_api``      ``EVALCORE_JUDGE_BATCH_API``    ``openai`` (the Batch API) or ``anthropic``
                                                   (Message Batches)
``batch_poll_s``   ``EVALCORE_JUDGE_BATCH_POLL_S`` seconds between polls of a batch (30)
``temperature``    ``EVALCORE_JUDGE_TEMPERATURE``  sampling temperature (0)
``seed``           ``EVALCORE_JUDGE_SEED``         seed, sent where the backend takes one (0)
``max_tokens``     ``EVALCORE_JUDGE_MAX_TOKENS``   longest answer, in tokens (256)
=================  ==============================  =========================================

With no ``backend`` given: ``judge='dspy'`` selects the LM DSPy is configured with; an
object with ``score`` / ``ascore`` is used as the RAG metric spec's LLMCritic (its ``score``
called with keywords only, as the spec's abstract class declares it; a critic class, also as
``"module:attr"``, is made with no arguments); another ``judge`` callable selects ``callable``;
a base URL selects ``http``; and when nothing is set but DSPy has an LM configured
(``dspy.configure(lm=...)`` or ``dspy.context(lm=...)``), DSPy's LM judges. DSPy's LM is the
one configured where the judge is called, as for DSPy's own metrics, and evalcore's answer
cache is off for it unless a cache mode is set (the LM has its own cache).

A ``judge`` given as ``"module:attr"`` is imported only when the run allows code loading
(``--allow-code``, ``evaluate(..., allow_code=True)``: :meth:`RunContext.load_code`); a callable
passed itself needs no allowance.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import ParameterError, RunContext, SetupError, backend
from evalcore_http.batch import BATCH_APIS, OPENAI
from evalcore_http.cache import run_cache
from evalcore_http.client import OpenAIClient, run_client
from evalcore_http.prices import run_prices

from .backends import (
    Backend,
    BatchBackend,
    CallableBackend,
    CriticBackend,
    Decoding,
    DSPyBackend,
    HTTPBackend,
    LiteLLMBackend,
)
from .critic import LLMCritic

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
GROUP = "judge"
"""The settings group of the judge (``context.settings["judge"]``), and the group its backends serve."""
class JudgeConfigError(SetupError):
    """The parameters and environment do not name a usable judge."""


def judge_settings(params: Mapping[str, Any], context: RunContext) -> dict[str, Any]:
    """The metric's parameters over the run's judge settings (``context.settings["judge"]``)."""
    given = {name: value for name, value in params.items() if value is not None}
    return {**context.settings.get(GROUP, {}), **given}


DECODING: dict[str, tuple[type, float | int, float | None]] = {
    "temperature": (float, 0.0, 0.0), "seed": (int, 0, None), "max_tokens": (int, 256, 1)}
"""The decoding settings: their type, the value when neither the metric nor the run sets them (greedy), and
their least value."""


def decoding_settings(params: Mapping[str, Any], context: RunContext, metric_id: str = "judge") -> dict[str, Any]:
    """``temperature``, ``seed`` and ``max_tokens`` in effect: the metric's parameter when given, else the
    run's judge setting (``--judge-temperature``, ``$EVALCORE_JUDGE_TEMPERATURE`` ...), else :data:`DECODING`'s."""
    effective = {}
    for name, (kind, fallback, least) in DECODING.items():
        value = context.setting(params, name, GROUP)
        try:
            number = fallback if value is None else kind(value)
        except (TypeError, ValueError):
            number = None
        if number is None or (least is not None and number < least):
            at_least = "" if least is None else f" of at least {least:g}"
            raise JudgeConfigError(metric_id, name, f"must be an {kind.__name__}{at_least}; got {value!r}"
                                   if kind is int else f"must be a number{at_least}; got {value!r}")
        effective[name] = number
    return effective


def build_critic(params: Mapping[str, Any], context: RunContext, metric_id: str = "judge") -> LLMCritic:
    """The critic the parameters of the judge metric ``metric_id`` describe, in the run ``context``."""
    judge = context.setting(params, "judge", GROUP)
    if isinstance(judge, LLMCritic):
        return judge
    decoding = Decoding(**decoding_settings(params, context, metric_id))
    backend = build_backend(params, context, metric_id)
    mode = params["cache_mode"]
    if isinstance(backend, DSPyBackend) and mode is None and context.cache_mode is None:
        mode = "off"  # DSPy's LM caches for itself (dspy.LM(cache=...)), as it does for DSPy's own metrics
    cache = run_cache(context, mode, params.get("cache_dir"))
    prices = run_prices(context, params.get("prices"))
    if isinstance(backend, BatchBackend):
        prices = prices.at_batch_rate()
    return LLMCritic(backend, decoding=decoding, cache=cache, prices=prices, budget=context.budget)


def build_backend(params: Mapping[str, Any], context: RunContext, metric_id: str = "judge") -> Backend:
    """The backend named by ``backend`` (or implied by the other settings): the installed judge
    backend of that name (:func:`evalcore.plugin.backend`) made from the judge's settings."""
    settings = judge_settings(params, context)
    kind, judge = settings.get("backend"), settings.get("judge")
    if kind in (None, "callable") and isinstance(judge, str) and ":" in judge:
        judge = settings["judge"] = _resolve_callable(judge, context, metric_id)  # a callable, or an LLMCritic (class)
    if kind is None:
        kind = _implied_kind(settings, judge)
    if kind in ("critic", "callable") and _is_critic(judge):
        return CriticBackend(_as_critic(judge, metric_id))
    if kind is None:
        raise JudgeConfigError(
            metric_id, "backend",
            "no judge backend configured: set base_url and model (--judge-base-url / --judge-model, "
            "evaluate(..., judge={'base_url': ..., 'model': ...}), or $EVALCORE_JUDGE_BASE_URL / "
            "$OPENAI_BASE_URL and $EVALCORE_JUDGE_MODEL) for any OpenAI-compatible server, or pass "
            "judge=<callable>, judge='dspy' (the LM DSPy is configured with), backend='litellm' with a "
            "LiteLLM model string, or backend='transformers' with model=<path>",
        )
    if _on(settings.get("batch")) and kind != "http":
        raise JudgeConfigError(metric_id, "batch", f"batch APIs serve the http backend (an OpenAI or Anthropic "
                               f"API root as base_url); the judge's backend is {kind!r}")
    try:
        spec = backend(GROUP, str(kind))
    except ParameterError as exc:
        raise JudgeConfigError(metric_id, "backend", str(exc)) from None
    return spec.load()(settings, context, metric_id)


# -- the backends this plugin provides (see _register.evalcore_backends) ---------------------------

def http_backend(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> Backend:
    """Chat completions from an OpenAI-compatible server (``base_url``, ``model``, ``api_key_env``); with
    ``batch``, sent through the batch API ``batch_api`` (``openai`` or ``anthropic``) instead."""
    client = _client(settings, context, metric_id)
    if not _on(settings.get("batch")):
        return HTTPBackend(client)
    kind = settings.get("batch_api") or OPENAI
    if kind not in BATCH_APIS:
        raise JudgeConfigError(metric_id, "batch_api", f"must be one of {', '.join(BATCH_APIS)}; got {kind!r}")
    return BatchBackend(client, kind, api_key=context.secret(client.api_key_env),
                        folder=settings.get("cache_dir") or context.cache_dir,
                        poll_s=_seconds(settings.get("batch_poll_s"), metric_id))


def litellm_backend(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> Backend:
    """A LiteLLM model string (``model``), optionally at ``base_url``."""
    model = settings.get("model")
    if not model:
        raise JudgeConfigError(metric_id, "model", "backend 'litellm' needs a LiteLLM model string, "
                               "e.g. model='anthropic/claude-3-5-haiku-latest'")
    return LiteLLMBackend(model, base_url=settings.get("base_url"), api_key=context.secret(settings.get("api_key_env")),
                          timeout=settings["timeout_s"], max_retries=settings["max_retries"])


def dspy_backend(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> Backend:
    """The LM DSPy is configured with where the judge is called."""
    return DSPyBackend(_dspy_lm(metric_id))


def callable_backend(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> Backend:
    """A Python callable (``judge``: the callable or ``"module:attr"``) answering each prompt."""
    judge = settings.get("judge")
    if judge is None:
        raise JudgeConfigError(metric_id, "judge", "backend 'callable' needs judge=<callable or 'module:attr'>")
    return CallableBackend(_resolve_callable(judge, context, metric_id))


def transformers_backend(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> Backend:
    """A local model (``model``: a directory or ``.gguf`` file, ``gguf_file`` inside a directory)."""
    from .local import TransformersBackend

    model = settings.get("model")
    if not model:
        raise JudgeConfigError(metric_id, "model",
                               "backend 'transformers' needs model=<local model directory or .gguf file>")
    try:
        return TransformersBackend(model, gguf_file=settings.get("gguf_file"))
    except FileNotFoundError as exc:
        raise JudgeConfigError(metric_id, "model", str(exc)) from None


def _on(value: Any) -> bool:
    """A switch given as a bool or as text from the environment (``1``, ``true``, ``yes``, ``on``)."""
    return value.strip().lower() in ("1", "true", "yes", "on") if isinstance(value, str) else bool(value)


def _seconds(value: Any, metric_id: str) -> float:
    """``batch_poll_s`` as a number of seconds (30 when not set)."""
    try:
        seconds = 30.0 if value is None else float(value)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise JudgeConfigError(metric_id, "batch_poll_s", f"must be a positive number of seconds; got {value!r}")
    return seconds


def _implied_kind(settings: Mapping[str, Any], judge: Any) -> str | None:
    if judge == "dspy":
        return "dspy"
    if _is_critic(judge):
        return "critic"
    if judge is not None:
        return "callable"
    if settings.get("base_url"):
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
    """The LM DSPy is configured with now (``None`` when none is: the judge then needs one where it
    is called, as DSPy's own metrics do)."""
    try:
        import dspy
    except ImportError:
        raise JudgeConfigError(metric_id, "judge", "judge='dspy' needs DSPy installed (pip install dspy)") from None
    return dspy.settings.lm


def _is_critic(judge: Any) -> bool:
    """Whether ``judge`` is the RAG metric spec's LLMCritic: an object with ``score`` (or ``ascore``),
    or a class of such objects."""
    return judge is not None and not isinstance(judge, str) and (
        callable(getattr(judge, "score", None)) or callable(getattr(judge, "ascore", None)))


def _as_critic(judge: Any, metric_id: str) -> Any:
    """The LLMCritic ``judge`` as an object (a critic class made with no arguments)."""
    if not inspect.isclass(judge):
        return judge
    try:
        return judge()
    except TypeError as exc:
        raise JudgeConfigError(metric_id, "judge", f"cannot make the critic {judge.__qualname__}() with no "
                               f"arguments: {exc}; pass an instance") from None


def _client(settings: Mapping[str, Any], context: RunContext, metric_id: str) -> OpenAIClient:
    base_url, model = settings.get("base_url"), settings.get("model")
    if not base_url:
        raise JudgeConfigError(metric_id, "base_url", "backend 'http' needs base_url (or --judge-base-url, "
                               "$EVALCORE_JUDGE_BASE_URL or $OPENAI_BASE_URL)")
    if not model:
        raise JudgeConfigError(metric_id, "model", "backend 'http' needs model (or --judge-model, "
                               "$EVALCORE_JUDGE_MODEL)")
    if not str(base_url).startswith(("http://", "https://")):
        raise JudgeConfigError(metric_id, "base_url", f"must start with http:// or https://; got {base_url!r}")
    return run_client(
        context, base_url, model, api_key_env=settings.get("api_key_env") or DEFAULT_API_KEY_ENV,
        seed=settings.get("seed"), timeout=settings["timeout_s"], max_retries=settings["max_retries"],
        max_concurrency=settings["concurrency"], backoff_base=settings["backoff_base"],
    )


def _resolve_callable(judge: Any, context: RunContext, metric_id: str) -> Any:
    """The callable ``judge`` is, or the one its ``"module:attr"`` names when the run allows code loading."""
    if callable(judge):
        return judge
    if isinstance(judge, str) and ":" in judge:
        return context.load_code(judge, f"{metric_id}: parameter 'judge'")
    raise JudgeConfigError(metric_id, "judge", f"must be a callable, 'module:attr', 'dspy' or an LLMCritic; "
                           f"got {judge!r}")
