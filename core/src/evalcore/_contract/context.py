"""The run context: every setting a metric may need while scoring, handed to ``Metric.open``.

The environment is read once, where a run starts (:meth:`RunContext.from_environment`, called
by the CLI and :func:`evalcore.evaluate`); metric and backend code asks the context instead:
:meth:`RunContext.setting` for a setting of a settings group a plugin declares (the metric's
own parameter wins over the run's) and :meth:`RunContext.secret` for an API key. evalcore-http
builds the model-call cache, the OpenAI-compatible client and the price table from a context
(``evalcore.cache.run_cache``, ``evalcore.http.run_client``, ``evalcore.http.run_prices``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from evalcore._lazy import publish

from .budget import Budget
from .cache_settings import CacheMode, check_cache_mode
from .env import cache_root, environment
from .errors import ParameterError
from .references import import_object

if TYPE_CHECKING:
    from .components import SettingsSpec

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
    run's seed; ``executor`` — ``"local"`` or the name of a plugin's executor; ``settings`` — the
    run's settings by group, ``{group: {setting: value}}``, for the settings groups plugins
    declare (a metric's parameter of the same name overrides a setting); ``environ`` — the
    environment as the run started (API keys and prices are read from it, never from ``os.environ``);
    ``allow_code`` — whether a parameter or setting may name Python code as ``"module:attr"`` for
    the run to import (``--allow-code``, ``evaluate(..., allow_code=True)``; see :meth:`load_code`).
    """

    cache_mode: CacheMode | None = None
    cache_dir: str | None = None
    budget: Budget = attrs.field(factory=lambda: Budget(None))
    timeout_s: float | None = None
    seed: int = 0
    executor: str = "local"
    settings: Settings = attrs.field(factory=dict, converter=_settings)
    environ: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen_mapping, repr=False)
    allow_code: bool = False

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
        values: dict[str, Any] = {key: value for key, value in options.items() if value is not None}
        merged = {group.name: group.from_environment(env) for group in groups}
        for group, chosen in dict(settings or {}).items():
            merged[group] = {**merged.get(group, {}), **{k: v for k, v in dict(chosen or {}).items() if v is not None}}
        place = "cache_mode" if "cache_mode" in values else "$EVALCORE_CACHE_MODE"
        values.setdefault("cache_mode", env.get("EVALCORE_CACHE_MODE") or None)
        values.setdefault("cache_dir", cache_root(env))
        check_cache_mode(values["cache_mode"], place)
        return cls(environ=env, settings=merged, **values)

    # -- what metrics ask for ------------------------------------------------------------

    def setting(self, params: Mapping[str, Any], name: str, group: str) -> Any:
        """The metric's parameter ``name`` when given, else the run's setting ``name`` of the settings
        group ``group``, else ``None``."""
        value = params.get(name)
        return value if value is not None else self.settings.get(group, {}).get(name)

    def load_code(self, reference: str, place: str) -> Any:
        """The object ``reference`` (``"module:attr"``) names, imported only when the run allows code
        loading (``allow_code``); otherwise a :class:`~evalcore.ParameterError` that names ``place``
        (e.g. ``"judge/faithfulness: parameter 'judge'"``) and says how to allow it, with nothing
        imported. Entry points are the only code a run loads without being asked."""
        if not self.allow_code:
            raise ParameterError(
                f"{place}: {reference!r} names Python code to import; a run loads code named in a parameter "
                "only when allowed: add --allow-code (evaluate(..., allow_code=True)), or pass the callable "
                "itself in Python")
        try:
            return import_object(reference)
        except (ImportError, AttributeError) as exc:
            raise ParameterError(f"{place}: cannot load {reference!r}: {exc}") from None

    def secret(self, variable: str | None) -> str | None:
        """The value of the environment variable ``variable`` as the run started."""
        return self.environ.get(variable) or None if variable else None


publish(globals())
