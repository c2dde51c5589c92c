"""The run context: every setting a metric may need while scoring, handed to ``Metric.open``.

The environment is read once, where a run starts (:meth:`RunContext.from_environment`, called
by the CLI and :func:`evalcore.evaluate`); metric and backend code asks the context instead:
:meth:`RunContext.setting` for a model setting (the metric's own parameter wins over the
run's) and :meth:`RunContext.secret` for an API key. evalcore-http builds the model-call cache,
the OpenAI-compatible client and the price table from a context (``evalcore.cache.run_cache``,
``evalcore.http.run_client``, ``evalcore.http.run_prices``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from evalcore._lazy import publish

from .budget import Budget
from .cache_settings import CacheMode, check_cache_mode
from .env import cache_root, environment, model_settings

MODEL_GROUPS = ("judge", "embedding")
"""The kinds of model a run configures: the judge (LLM-as-judge metrics) and the embedding model."""


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


@attrs.frozen
class RunContext:
    """What one evaluation run tells its metrics.

    ``cache_mode`` / ``cache_dir`` — the model-call cache (``None``: ``readwrite`` in the
    default folder); ``budget`` — the spending budget shared by every metric of the run;
    ``timeout_s`` — the per-sample time limit (``None``: the metric's default); ``seed`` — the
    run's seed; ``executor`` — ``"local"`` or the name of a plugin's executor (``"ray"``);
    ``judge`` / ``embedding`` — the run's model settings (``backend``, ``model``, ``base_url``,
    ``api_key_env``, ...), which a metric's parameter of the same name overrides; ``environ`` —
    the environment as the run started (API keys and prices are read from it, never from
    ``os.environ``).
    """

    cache_mode: CacheMode | None = None
    cache_dir: str | None = None
    budget: Budget = attrs.field(factory=lambda: Budget(None))
    timeout_s: float | None = None
    seed: int = 0
    executor: str = "local"
    judge: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)
    embedding: Mapping[str, Any] = attrs.field(factory=dict, converter=_frozen_mapping)
    environ: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_mapping, repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, **settings: Any) -> RunContext:
        """A context from explicit ``settings`` over what the environment sets.

        Read from the environment (``environ``, default the process's): ``$EVALCORE_CACHE_MODE``,
        ``$EVALCORE_CACHE_DIR`` (else ``$XDG_CACHE_HOME/evalcore`` or ``~/.cache/evalcore``),
        the judge's ``$EVALCORE_JUDGE_BACKEND`` / ``_MODEL`` / ``_BASE_URL`` (then
        ``$OPENAI_BASE_URL``) / ``_API_KEY_ENV`` / ``_CALLABLE`` / ``_GGUF_FILE``, and
        ``$EVALCORE_EMBEDDING_MODEL``. Explicit settings win; ``judge`` and ``embedding`` are
        merged key by key.
        """
        env = environment() if environ is None else dict(environ)
        from_env = model_settings(env)
        values: dict[str, Any] = {key: value for key, value in settings.items() if value is not None}
        for group in MODEL_GROUPS:
            values[group] = {**from_env[group], **{k: v for k, v in dict(settings.get(group) or {}).items()
                                                   if v is not None}}
        values.setdefault("cache_mode", env.get("EVALCORE_CACHE_MODE") or None)
        values.setdefault("cache_dir", cache_root(env))
        check_cache_mode(values["cache_mode"])
        return cls(environ=env, **values)

    # -- what metrics ask for ------------------------------------------------------------

    def setting(self, params: Mapping[str, Any], name: str, group: str = "judge") -> Any:
        """The metric's parameter ``name`` when given, else the run's ``group`` setting, else ``None``."""
        value = params.get(name)
        return value if value is not None else getattr(self, group).get(name)

    def secret(self, variable: str | None) -> str | None:
        """The value of the environment variable ``variable`` as the run started."""
        return self.environ.get(variable) or None if variable else None


publish(globals())
