"""The settings groups and backends plugins declare, and the run context they make.

A settings group (:class:`~evalcore.plugin.SettingsSpec`) names run settings a plugin's metrics
read from ``context.settings[group]``; a backend (:class:`~evalcore.plugin.BackendSpec`) is a
model backend for one group, which the plugin owning the group looks up by name. Both list from
the listing cache without importing a plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evalcore._contract.context import RunContext, Settings
from evalcore._contract.errors import EvalcoreError, ParameterError
from evalcore._lazy import publish

if TYPE_CHECKING:
    from evalcore._contract.components import BackendSpec, SettingsSpec

    from .registry import Registry


def _registry(registry: Registry | None) -> Registry:
    from .registry import default_registry

    return registry if registry is not None else default_registry()


def settings_groups(registry: Registry | None = None) -> dict[str, SettingsSpec]:
    """The installed settings groups by name; two plugins declaring one group is an error naming both."""
    groups: dict[str, SettingsSpec] = {}
    for spec in _registry(registry).components("settings"):
        if spec.name in groups:
            raise EvalcoreError(f"the settings group {spec.name!r} is declared by several plugins: "
                                f"{groups[spec.name].namespace}, {spec.namespace}; uninstall all but one")
        groups[spec.name] = spec
    return groups


def backends(group: str, registry: Registry | None = None) -> list[BackendSpec]:
    """The backends installed for the settings group ``group``, plugin by plugin."""
    return [spec for spec in _registry(registry).components("backends") if spec.group == group]


def backend(group: str, name: str, registry: Registry | None = None) -> BackendSpec:
    """The one backend called ``name`` for the settings group ``group``; a :class:`ParameterError`
    names the installed ones (or the plugins that both provide it)."""
    installed = backends(group, registry)
    found = [spec for spec in installed if spec.name == name]
    if not found:
        known = ", ".join(sorted({spec.name for spec in installed})) or "none"
        raise ParameterError(f"no {group} backend named {name!r} is installed ({group} backends: {known})")
    if len(found) > 1:
        raise ParameterError(f"the {group} backend {name!r} is provided by several plugins: "
                             + ", ".join(sorted(spec.namespace for spec in found)) + "; uninstall all but one")
    return found[0]


def group_settings(raw: dict[str, Any], registry: Registry | None = None) -> Settings:
    """Remove each keyword of ``raw`` that names an installed settings group (``GROUP={"model": ...}``)
    and return them as ``{group: settings}``; a group's value must be a mapping."""
    settings: dict[str, dict[str, Any]] = {}
    for name in settings_groups(registry):
        if name not in raw:
            continue
        value = raw.pop(name)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise ParameterError(f"{name} must be a mapping of settings of the {name} group; got {value!r}")
        settings[name] = dict(value)
    return settings


def run_context(registry: Registry | None = None, *, settings: Settings | None = None, **options: Any) -> RunContext:
    """The run context of ``options`` and ``settings`` over the environment as it is now, read for
    the cache and for every installed settings group (the one place a run reads it)."""
    return RunContext.from_environment(groups=settings_groups(registry).values(), settings=settings, **options)


publish(globals())
