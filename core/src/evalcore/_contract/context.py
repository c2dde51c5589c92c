"""The run context: every setting a metric may need while scoring, handed to ``Metric.open``.

The environment is read once, where a run starts (:meth:`RunContext.from_environment`, called
by the CLI and :func:`evalcore.evaluate`); metric and backend code asks the context instead:
:meth:`RunContext.setting` for a setting of a settings group a plugin declares (the metric's
own parameter wins over the run's), :meth:`RunContext.cache` for the model-call cache, :meth:`RunContext.client` for an
OpenAI-compatible client, :meth:`RunContext.prices` for the price table and
:meth:`RunContext.secret` for an API key.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from evalcore._lazy import publish

from .budget import Budget
from .env import cache_root, environment
from .errors import ParameterError

if TYPE_CHECKING:
    from .cache import ContentCache
    from .components import SettingsSpec
    from .http import OpenAIClient, PriceTable

CacheMode = Literal["readwrite", "readonly", "refresh", "off"]
CACHE_MODES: tuple[str, ...] = ("readwrite", "readonly", "refresh", "off")
Settings = Mapping[str, Mapping[str, Any]]
"""Settings by group: ``{group name: {setting: value}}``."""


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return dict(value or {})


def _settings(value: Settings | None) -> Settings:
    return {str(group): dict(values) for group, values in dict(value or {}).items()}


@attrs.frozen
class RunContext:
    """What one evaluation run tells its metrics.

    ``cache_mode`` / ``cache_dir`` — the model-call cache (``None``: ``readwrite`` in the
    default folder); ``budget`` — the spending budget shared by every metric of the run;
    ``timeout_s`` — the per-sample time limit (``None``: the metric's default); ``seed`` — the
    run's seed; ``executor`` — ``"local"`` or ``"ray"``; ``settings`` — the run's settings by
    group, ``{group: {setting: value}}``, for the settings groups plugins declare (a metric's
    parameter of the same name overrides a setting); ``environ`` — the environment as the run
    started (API keys and prices are read from it, never from ``os.environ``).
    """

    cache_mode: CacheMode | None = None
    cache_dir: str | None = None
    budget: Budget = attrs.field(factory=lambda: Budget(None))
    timeout_s: float | None = None
    seed: int = 0
    executor: str = "local"
    settings: Settings = attrs.field(factory=dict, converter=_settings)
    environ: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_mapping, repr=False)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, *, groups: Iterable[SettingsSpec] = (),
                         settings: Settings | None = None, **options: Any) -> RunContext:
        """A context from explicit ``options`` and ``settings`` over what the environment sets.

        Read from the environment (``environ``, default the process's): ``$EVALCORE_CACHE_MODE``,
        ``$EVALCORE_CACHE_DIR`` (else ``$XDG_CACHE_HOME/evalcore`` or ``~/.cache/evalcore``), and
        the variables each settings group of ``groups`` declares. Explicit values win; each
        group's settings are merged key by key.
        """
        env = environment() if environ is None else dict(environ)
        given = dict(settings or {})
        values: dict[str, Any] = {key: value for key, value in options.items() if value is not None}
        merged = {group.name: group.from_environment(env) for group in groups}
        for group, chosen in given.items():
            merged[group] = {**merged.get(group, {}), **{k: v for k, v in dict(chosen or {}).items() if v is not None}}
        values.setdefault("cache_mode", env.get("EVALCORE_CACHE_MODE") or None)
        values.setdefault("cache_dir", cache_root(env))
        if values["cache_mode"] not in (None, *CACHE_MODES):
            raise ParameterError(f"cache_mode must be one of {', '.join(CACHE_MODES)}; got {values['cache_mode']!r}")
        return cls(environ=env, settings=merged, **values)

    # -- what metrics ask for ------------------------------------------------------------

    def setting(self, params: Mapping[str, Any], name: str, group: str) -> Any:
        """The metric's parameter ``name`` when given, else the run's setting ``name`` of the settings
        group ``group``, else ``None``."""
        value = params.get(name)
        return value if value is not None else self.settings.get(group, {}).get(name)

    def secret(self, variable: str | None) -> str | None:
        """The value of the environment variable ``variable`` as the run started."""
        return self.environ.get(variable) or None if variable else None

    def cache(self, mode: str | None = None, folder: str | None = None) -> ContentCache | None:
        """The model-call cache: ``mode`` / ``folder`` (a metric's own parameters) when given, else
        the run's, else ``readwrite`` in the default folder; ``None`` when the mode is ``off``."""
        from .cache import ContentCache

        mode = mode or self.cache_mode or "readwrite"
        if mode == "off":
            return None
        return ContentCache(folder or self.cache_dir, mode)

    def prices(self, explicit: Mapping[str, Any] | None = None) -> PriceTable:
        """The price table: ``explicit`` (a metric's ``prices``), else ``$EVALCORE_PRICES`` as the run started."""
        from .http import PriceTable

        if explicit:
            return PriceTable(explicit)
        raw = self.environ.get("EVALCORE_PRICES")
        if not raw:
            return PriceTable()
        try:
            return PriceTable(json.loads(raw))
        except ValueError as exc:
            raise ParameterError(f"$EVALCORE_PRICES is not a JSON price table: {exc}") from None

    def client(self, base_url: str, model: str, *, api_key_env: str | None = None, seed: int | None = None,
               **options: Any) -> OpenAIClient:
        """An OpenAI-compatible client for ``model`` at ``base_url``, its key read from ``api_key_env``
        (default ``OPENAI_API_KEY``) as the run started; ``options`` go to :class:`OpenAIClient`."""
        from .http import ENV_API_KEY, OpenAIClient

        variable = api_key_env or ENV_API_KEY
        rng = random.Random(self.seed if seed is None else seed)
        return OpenAIClient(base_url, model, api_key=self.secret(variable), api_key_env=variable, rng=rng,
                            **options)


publish(globals())
