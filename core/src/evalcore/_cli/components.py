"""Command-line options that plugins' components declare: readers' files, executors', trackers' and
settings groups' settings.

Each option a reader declares is added to ``evaluate`` under its own ``dest``; an executor's, a
tracker's or a settings group's under ``<component>_<dest>`` (``--ray-address`` of the ``ray``
executor is ``ray_address``), so two components may declare the same option name. Only the chosen
executor's and tracker's options may be given; every settings group's may.
"""

from __future__ import annotations

from typing import Any

import click

from evalcore._contract.components import ComponentSpec, ReaderOption
from evalcore._contract.errors import EvalcoreError
from evalcore._lazy import publish

_TYPES: dict[str, Any] = {"path": click.Path(dir_okay=False), "int": click.IntRange(min=1), "float": float,
                          "str": str}
_SELECTS = {"executors": "--executor", "trackers": "--log-to"}
"""The kinds whose options are named ``<component>_<dest>``, with the flag that chooses the component."""
_PREFIXED = (*_SELECTS, "settings")


def _param_name(kind: str, spec: ComponentSpec, option: ReaderOption) -> str:
    return f"{spec.name}_{option.dest}" if kind in _PREFIXED else option.dest


def _owner(kind: str, spec: ComponentSpec) -> str:
    if kind == "readers":
        return f"{spec.namespace} reader"
    if kind == "settings":
        return f"{spec.name} settings of {spec.namespace}"
    return f"{_SELECTS[kind]} {spec.name}"


def click_options(registry: Any, kinds: tuple[str, ...], known: set[str]) -> list[click.Option]:
    """The click options of every component of ``kinds``, except flags in ``known`` (which it extends)."""
    extra = []
    for kind in kinds:
        for spec in registry.components(kind):
            for option in spec.options:
                if option.flag in known:
                    continue
                known.add(option.flag)
                name = _param_name(kind, spec, option)
                help_text = f"{option.help} ({_owner(kind, spec)})".strip()
                if option.kind == "flag":
                    extra.append(click.Option([option.flag, name], is_flag=True, default=None, help=help_text))
                else:
                    extra.append(click.Option([option.flag, name], type=_TYPES[option.kind], help=help_text))
    return extra


def take_options(registry: Any, kind: str, chosen: str | None, options: dict[str, Any]) -> dict[str, Any]:
    """Remove every ``kind`` component's options from ``options``; the values given for ``chosen``, by
    ``dest``. An option of another component is an error naming the flag that selects that one."""
    values: dict[str, Any] = {}
    for spec in registry.components(kind):
        for option in spec.options:
            value = options.pop(_param_name(kind, spec, option), None)
            if value is None:
                continue
            if spec.name != chosen:
                raise EvalcoreError(f"{option.flag} is an option of the {spec.name} {spec.kind} "
                                    f"({_SELECTS[kind]} {spec.name})")
            values[option.dest] = value
    return values


def group_options(registry: Any, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Remove every settings group's options from ``options``; the values given, ``{group: {dest: value}}``."""
    settings: dict[str, dict[str, Any]] = {}
    for spec in registry.components("settings"):
        for option in spec.options:
            value = options.pop(_param_name("settings", spec, option), None)
            if value is not None:
                settings.setdefault(spec.name, {})[option.dest] = value
    return settings


class SettingsCommand(click.Command):
    """A command with the options of every installed settings group (``--judge-model``,
    ``--embedding-base-url`` ...), as ``evaluate`` has them; the command receives their values as one
    keyword argument, ``settings``: ``{group: {setting: value}}`` (see :func:`evalcore.plugin.open_metric`)."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        if not ctx.find_root().obj:
            return params  # building help outside a run
        from .common import registry_of

        known = {opt for p in params for opt in getattr(p, "opts", [])}
        return params[:-1] + click_options(registry_of(ctx.find_root()), ("settings",), known) + params[-1:]

    def invoke(self, ctx: click.Context) -> Any:
        settings: dict[str, dict[str, Any]] = {}
        if ctx.find_root().obj:
            from .common import registry_of

            settings = group_options(registry_of(ctx.find_root()), ctx.params)
        ctx.params["settings"] = settings
        return super().invoke(ctx)


publish(globals())
