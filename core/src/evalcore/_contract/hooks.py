"""The pluggy hooks a plugin's registration module implements, and how they are called.

Every hook is called once for all the plugins loaded together (1:N, as pluggy intends), with
keyword arguments; an implementation takes those it names and no others (pluggy's rule), so a
hook written without arguments, as in plugin API 1, keeps working. Each call returns one
:class:`Contribution` per plugin that implements the hook: its result, or the exception it
raised. A plugin that raises thus loses only its own results, and each result is attributed to
the plugin that gave it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import pluggy

PROJECT_NAME = "evalcore"
ENTRY_POINT_GROUP = "evalcore.plugins"
PLUGIN_API_VERSION = 2
"""The plugin API this evalcore provides; registration modules declare the one they target
as a module constant ``PLUGIN_API_VERSION``. Version 2 added the executor, tracker, command, program,
record view, settings and backend hooks, and the run hooks (:class:`RunHooks`)."""
SUPPORTED_API_VERSIONS = (1, 2)
"""The plugin API versions this evalcore loads: a version-1 plugin (metrics, readers, metric
sets) loads unchanged."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@attrs.frozen
class Contribution:
    """What one plugin gave to one hook call: its ``result``, or the ``error`` it raised."""

    plugin: str
    """The name the plugin is registered under."""
    result: Any = None
    error: BaseException | None = None


class PluginManager(pluggy.PluginManager):
    """A pluggy plugin manager whose hook calls reach every registered plugin and return one
    :class:`Contribution` each, in pluggy's order (the last registered first), instead of stopping
    at the first plugin that raises. A hook wrapper has no place here: it is an error of its plugin."""

    def _hookexec(self, hook_name: str, methods: Sequence[pluggy.HookImpl], kwargs: Mapping[str, object],
                  firstresult: bool) -> list[Contribution]:
        contributions = []
        for impl in reversed(methods):
            try:
                if impl.hookwrapper or impl.wrapper:
                    raise TypeError(f"{hook_name} is an evalcore hook: it takes no hook wrapper")
                result = impl.function(*(kwargs[name] for name in impl.argnames))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - the plugin's failure is its own
                contributions.append(Contribution(impl.plugin_name, error=exc))
            else:
                contributions.append(Contribution(impl.plugin_name, result))
        return contributions


class PluginHooks:
    """Hook specifications for evalcore plugins.

    Each hook is called once for every plugin loaded together, with ``api_version`` (the plugin
    API of the evalcore calling, :data:`PLUGIN_API_VERSION`); an implementation names it as an
    argument when it needs it (``def evalcore_metrics(api_version): ...``) and leaves it out
    otherwise."""

    @hookspec
    def evalcore_metrics(self, api_version: int) -> list[Any]:
        """Return the plugin's metric specs (:class:`~evalcore.MetricSpec` or plain dicts).

        The namespace of each spec defaults to the plugin's entry-point name. The module
        that implements this hook must stay light: no numpy, no model libraries, no
        metric implementations at import time.
        """
        raise NotImplementedError

    @hookspec
    def evalcore_readers(self, api_version: int) -> list[Any]:
        """Return the plugin's readers (:class:`~evalcore.plugin.ReaderSpec` or dicts): input
        formats with their command-line options, e.g. TREC qrels and run files. Optional."""
        raise NotImplementedError

    @hookspec
    def evalcore_metric_sets(self, api_version: int) -> dict[str, list[str]]:
        """Return named sets of metric ids, ``{set name: [metric id, ...]}`` (optional hook).

        A set name is used wherever a metric id is (``evalcore evaluate -m all_trec``) and
        expands to its metrics. Ids without a namespace get the plugin's. Same lightness
        rule as :meth:`evalcore_metrics`.
        """
        raise NotImplementedError

    @hookspec
    def evalcore_executors(self, api_version: int) -> list[Any]:
        """Return the plugin's executors (:class:`~evalcore.plugin.ExecutorSpec` or dicts): where
        a run's chunks are scored, chosen with ``--executor NAME`` / ``executor=NAME``. Optional;
        plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_trackers(self, api_version: int) -> list[Any]:
        """Return the plugin's trackers (:class:`~evalcore.plugin.TrackerSpec` or dicts): where
        finished runs are logged, chosen with ``--log-to NAME`` / ``log_to=NAME``. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_commands(self, api_version: int) -> list[Any]:
        """Return the plugin's commands (:class:`~evalcore.plugin.CommandSpec` or dicts): click
        commands added under ``evalcore``. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_programs(self, api_version: int) -> list[Any]:
        """Return the plugin's program adapters (:class:`~evalcore.plugin.ProgramSpec` or dicts): kinds
        of program ``evaluate(program=...)`` runs beside plain callables (a DSPy module). Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_record_views(self, api_version: int) -> list[Any]:
        """Return the plugin's record views (:class:`~evalcore.plugin.RecordViewSpec` or dicts): what the
        report shows of a record beside its input, prediction and scores, e.g. a trace's tool calls.
        Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_settings(self, api_version: int) -> list[Any]:
        """Return the plugin's settings groups (:class:`~evalcore.plugin.SettingsSpec` or dicts): run
        settings its metrics read from ``context.settings[NAME]``, with their command-line options
        and environment variables. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_backends(self, api_version: int) -> list[Any]:
        """Return the plugin's model backends (:class:`~evalcore.plugin.BackendSpec` or dicts), each
        for a settings group, which the plugin owning the group chooses by name. Optional; plugin API 2."""
        raise NotImplementedError


class RunHooks:
    """Hook specifications called around a run, each once for the plugins implementing it (1:N),
    with the run's arguments. Only those plugins load, and only when a run needs the hook (the
    listing cache tells which plugins implement which run hook); each returns ``None`` when it has
    nothing to add. A run hook that raises stops the run with its error (plugin API 2)."""

    @hookspec
    def evalcore_run_check(self, options: Any, extras: Mapping[str, Any]) -> list[str] | None:
        """Check the run's options before any record is read, so that a bad input costs no scoring.
        ``options`` holds the run's options (``rollouts``, ``output``, ``seed`` ...); ``extras`` the keywords of
        :func:`evalcore.evaluate` that no core stage reads (``labels``, ``labels_metric``), given or
        ``None``. Return the names in ``extras`` the plugin takes (a given one that no plugin takes
        is an error), or raise an :class:`~evalcore.plugin.EvalcoreError` naming the bad one.
        Called when some extra is given."""
        raise NotImplementedError

    @hookspec
    def evalcore_summary_details(self, summaries: Mapping[str, Any], rows: Any,
                                 options: Any) -> Mapping[str, Mapping[str, Any]] | None:
        """Details to add to a finished run's summaries, by metric id. They are ``{metric id: {key:
        value}}``, merged into each summary's ``details``. ``summaries`` are the summaries by
        metric id, ``rows`` the run's rows (iterable, more than once), ``options`` its options.
        Called when records were scored over several rollouts
        (``options.rollouts > 1``): what a single pass cannot tell (rollout noise, pass^k)."""
        raise NotImplementedError

    @hookspec
    def evalcore_run_finished(self, result: Any, options: Any,
                              extras: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """Fields to set on a finished run's :class:`~evalcore.EvaluationResult`, such as its ``ppi``.
        Called after its outputs are written (``options.output``: the JSON report, which the plugin may add
        its section to). Called, after :meth:`evalcore_run_check`, when some extra is given."""
        raise NotImplementedError

    @hookspec
    def evalcore_summary_lines(self, metrics: Mapping[str, Mapping[str, Any]]) -> list[str] | None:
        """Lines shown under a run's table, in the terminal and the report. ``metrics`` holds its
        summaries as JSON by metric id; a line says, for example, the rollout noise the plugin added with
        :meth:`evalcore_summary_details`. Called when a run's table is shown and a summary holds details
        beyond the core's own (``usage``, ``reasons``, ``warnings``, ``aggregate``, ``error``, ``reason``)."""
        raise NotImplementedError


def new_plugin_manager() -> PluginManager:
    """A plugin manager that knows the evalcore hook specifications and calls them 1:N."""
    manager = PluginManager(PROJECT_NAME)
    manager.add_hookspecs(PluginHooks)
    manager.add_hookspecs(RunHooks)
    return manager


RUN_HOOKS = tuple(name for name in RunHooks.__dict__ if name.startswith("evalcore_"))
"""The names of the run hooks (:class:`RunHooks`)."""
