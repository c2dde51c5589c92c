"""The ``evalcore`` command line: list, describe, plugins, evaluate, new-plugin, and the commands
plugins add (evalcore-stats adds compare, gate, plan, ppi, runs and calibrate; evalcore-report adds report).

Only click is imported up front, so ``--help`` stays fast; each command imports what it needs. A
plugin's command (the ``evalcore_commands`` hook) is looked up only when a name is not one of
evalcore's own, and listed in ``--help`` from the listing cache without loading a plugin.
"""

from __future__ import annotations

import contextlib
import gc
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

import click

from evalcore._contract.env import one_blas_thread
from evalcore._contract.errors import EvalcoreError

from .common import echo_json, echo_rows, registry_of, render_listing, reports_errors

if TYPE_CHECKING:
    from evalcore._registry.listing import Listing

EXTENSION_COMMANDS: dict[str, str] = {
    **{name: "evalcore-stats" for name in ("compare", "gate", "plan", "ppi", "runs", "calibrate")},
    "report": "evalcore-report",
}
"""The commands of evalcore's own extensions, by the distribution that adds them: without it, the
command says what to install instead of click's 'No such command'."""


class _LazyGroup(click.Group):
    """Commands that live in their own modules, or in plugins, load only when they run (or help lists them)."""

    lazy = {"evaluate": "_cli.evaluate:evaluate_command"}

    def list_commands(self, ctx: click.Context) -> list[str]:
        own = [*super().list_commands(ctx), *self.lazy]
        return sorted([*own, *(name for name in self._plugin_commands(ctx) if name not in own)])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            import importlib

            module, _, attr = self.lazy[name].partition(":")
            return getattr(importlib.import_module(f"evalcore.{module}"), attr)
        found = super().get_command(ctx, name)
        if found is None and name in self._plugin_commands(ctx):
            return _load_command(self._plugin_commands(ctx)[name])
        if found is None and name in EXTENSION_COMMANDS:
            distribution = EXTENSION_COMMANDS[name]
            click.echo(f"error: evalcore {name} is part of {distribution}, which is not installed: "
                       f"pip install {distribution}", err=True)
            ctx.exit(2)
        return found

    def _plugin_commands(self, ctx: click.Context) -> dict[str, Any]:
        """The command specs plugins provide, by name; one whose name is taken is left out with a warning.

        Looked up before the group's own callback runs (click resolves the command first), with a
        registry of its own: the listing cache tells the names without loading a plugin."""
        from evalcore._registry.registry import Registry

        obj = ctx.find_root().ensure_object(dict)
        if "commands" not in obj:
            taken = {*super().list_commands(ctx), *self.lazy}
            obj["commands"] = {}
            try:
                specs = Registry(strict=False).components("commands")
            except EvalcoreError as exc:
                click.echo(f"warning: plugin commands are not available: {exc}", err=True)
                specs = []
            for spec in specs:
                if spec.name in taken or spec.name in obj["commands"]:
                    owner = obj["commands"][spec.name].namespace if spec.name in obj["commands"] else "evalcore"
                    click.echo(f"warning: the {spec.namespace} plugin's command {spec.name!r} is not added: "
                               f"{owner} has a command of that name", err=True)
                else:
                    obj["commands"][spec.name] = spec
        return obj["commands"]


def _load_command(spec: Any) -> click.Command:
    """The click command a plugin's :class:`~evalcore.plugin.CommandSpec` names; its evalcore errors
    print as one line, as evalcore's own commands' do."""
    command = spec.load()
    if not isinstance(command, click.Command):
        raise click.ClickException(f"the {spec.namespace} plugin's command {spec.name!r} ({spec.implementation}) "
                                   f"is {type(command).__name__}, not a click command")
    if command.callback is not None and not getattr(command.callback, "reports_errors", False):
        command.callback = reports_errors(command.callback)
    return command


@click.group(cls=_LazyGroup)
@click.option("--strict", is_flag=True, help="Fail if any plugin fails to load (also EVALCORE_STRICT_PLUGINS=1).")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.version_option(package_name="evalcore-core")
@click.pass_context
def main(ctx: click.Context, strict: bool, debug: bool) -> None:
    """Evaluation metrics for ML, LLM, RAG and agent systems."""
    one_blas_thread()  # before numpy loads
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    ctx.obj["strict"] = True if strict else None
    ctx.with_resource(_deprecated_names_on_one_line())
    if ctx.obj.get("own_process") and ctx.invoked_subcommand not in KEEPS_LOADED:
        gc.enable()  # run() paused it for the start-up


KEEPS_LOADED = frozenset({"evaluate"})
"""The commands that, run by :func:`run`, resume the garbage collector themselves once they have
loaded what they need (:func:`.common.keep_loaded`)."""


@contextlib.contextmanager
def _deprecated_names_on_one_line() -> Iterator[None]:
    """Print an old parameter name's warning, and a journal read without checksums, as one
    ``warning:`` line on standard error."""
    from evalcore._contract.vocabulary import DeprecatedParameterWarning

    with warnings.catch_warnings():
        show = warnings.showwarning

        def one_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: TextIO | None = None, line: str | None = None) -> None:
            from evalcore._engine.journal import JournalWarning

            if issubclass(category, (DeprecatedParameterWarning, JournalWarning)):
                click.echo(f"warning: {message}", err=True)
            else:
                show(message, category, filename, lineno, file, line)

        warnings.showwarning = one_line
        yield


@main.command("list")
@click.option("--family", help="Only metrics of this family or namespace.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--no-cache", is_flag=True,
              help="Load every plugin instead of reading the cached listing (also EVALCORE_NO_LIST_CACHE=1).")
@click.pass_context
@reports_errors
def list_command(ctx: click.Context, family: str | None, as_json: bool, no_cache: bool) -> None:
    """List installed metrics (each id can be evaluated as printed)."""
    from evalcore._contract.env import list_cache_disabled, strict_from_env

    strict = ctx.obj["strict"] or (ctx.obj["strict"] is None and strict_from_env())
    ctx.obj["no_list_cache"] = no_cache  # neither read nor written
    listing = _listing(ctx) if no_cache or strict or list_cache_disabled() else _cached_listing(ctx)
    render_listing(listing, family, as_json)


def _cached_listing(ctx: click.Context) -> Listing:
    """The cached listing while the installed distributions are unchanged, else a fresh one (then cached)."""
    from evalcore._registry import list_cache as cache

    now = cache.scan()
    listing = cache.load(now) if now is not None else None
    if listing is not None:
        if listing.warning:
            click.echo(f"warning: {listing.warning}", err=True)
        return listing
    listing = _listing(ctx)
    if now is not None:
        packages = {p.module.partition(":")[0].partition(".")[0] for p in registry_of(ctx).plugins()}
        cache.store(now, listing, ["evalcore", *sorted(packages)])
    return listing


def _listing(ctx: click.Context) -> Listing:
    """The listing of this invocation's registry (plugins loaded now)."""
    from evalcore._registry.listing import listing_from_registry

    registry = registry_of(ctx)
    return listing_from_registry(registry, ctx.obj.get("warning"))


@main.command()
@click.argument("metric_id")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def describe(ctx: click.Context, metric_id: str, as_json: bool) -> None:
    """Show everything known about one metric (its parameters checked as evaluate checks them)."""
    import textwrap

    from evalcore._contract.display import dollars, scale, terminal_width
    from evalcore._contract.identity import canonical_id

    info, params = registry_of(ctx).resolve(metric_id)
    data = info.to_dict()
    data["id"] = canonical_id(info.spec, info.spec.bind_params(params))
    if as_json:
        echo_json(data)
        return
    click.echo(f"{data['id']}  ({data['distribution']} {data['version']}, metric version "
               f"{data['metric_version']})")
    click.echo(f"  {data['summary']}")
    if data["description"]:
        click.echo("")
        width = min(terminal_width() or 100, 100) - 2
        for line in data["description"].splitlines():
            click.echo(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="  ") if line else "")
    click.echo("")
    shown = {"scale": scale(info.spec), "cost": f"{dollars(info.spec.cost_msats)} per sample (estimate)"}
    for key in ("family", "target", "tier", "direction", "scale", "granularity", "deterministic",
                "cost", "inputs", "requires", "env", "implementation"):
        click.echo(f"  {key + ':':<16}{shown.get(key, data.get(key))}")
    if data["verified_against"]:
        click.echo(f"  {'verified:':<16}equals {data['verified_against']} (tolerance {data['tolerance']:g})")
    if data["params"]:
        click.echo("  params:")
        for param in data["params"]:
            flags = " (identity)" if param["identity"] else ""
            choices = f" one of {param['choices']}" if param["choices"] else ""
            click.echo(f"    {param['name']}: {param['type']} = {param['default']!r}{choices}{flags}"
                       f"  {param['description']}".rstrip())


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@reports_errors
def plugins(ctx: click.Context, as_json: bool) -> None:
    """List discovered plugins with their load status."""
    infos = registry_of(ctx).plugins()
    if as_json:
        echo_json([p.to_dict() for p in infos])
        return
    rows = [(p.name, p.distribution, p.version, p.status.value, p.error or _provides(p)) for p in infos]
    echo_rows(("plugin", "distribution", "version", "status", "provides / error"), rows)


def _provides(plugin: Any) -> str:
    """What a plugin provides, in words: ``12 metrics, 1 reader``."""
    from evalcore._contract.components import COMPONENT_KINDS

    counts = [(len(plugin.metrics), "metric")]
    counts += [(len(names), COMPONENT_KINDS[kind].kind) for kind, names in plugin.components.items()]
    return ", ".join(f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n or what == "metric")


@main.command("new-plugin")
@click.argument("name")
@click.option("--kind", default="metrics", show_default=True,
              type=click.Choice(["metrics", "executor", "tracker", "command"]),
              help="What the plugin adds: metrics (a sample and a corpus metric), an executor, a tracker or a command.")
@click.option("--dir", "parent", default=".", show_default=True, type=click.Path(file_okay=False),
              help="Folder to create the package in.")
@click.pass_context
@reports_errors
def new_plugin(ctx: click.Context, name: str, kind: str, parent: str) -> None:
    """Create a plugin package evalcore-NAME that builds, installs and passes its tests with the conformance kit."""
    import pathlib

    from .scaffold import scaffold

    taken = frozenset(p.name for p in registry_of(ctx).plugins())
    root = scaffold(name, pathlib.Path(parent), kind, taken)
    namespace = root.name.removeprefix("evalcore-").replace("-", "_")
    shown = {"metrics": f"evalcore list --family {namespace}"}.get(kind, "evalcore plugins")
    click.echo(f"created {root} (namespace {namespace}); next: pip install -e '{root}[test]' && "
               f"{shown} && pytest {root / 'tests'}")


def run() -> None:
    """The ``evalcore`` console script and ``python -m evalcore``: :func:`main` in a process that
    ends with the command (so a command may keep what it loaded until then: :func:`.common.keep_loaded`).

    The garbage collector is paused while the command starts: the imports make many objects and
    hardly any garbage, and its passes through them took about 20 ms of ``evaluate``'s start-up.
    The group resumes it before a command runs, or the command once it has loaded (:data:`KEEPS_LOADED`)."""
    gc.disable()
    main(obj={"own_process": True})
