"""The pluggy hooks a plugin's registration module implements."""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT_NAME = "evalcore"
ENTRY_POINT_GROUP = "evalcore.plugins"
PLUGIN_API_VERSION = 2
"""The plugin API this evalcore provides; registration modules declare the one they target
as a module constant ``PLUGIN_API_VERSION``. Version 2 added the executor, tracker, command, program,
record view, settings and backend hooks."""
SUPPORTED_API_VERSIONS = (1, 2)
"""The plugin API versions this evalcore loads: a version-1 plugin (metrics, readers, metric
sets) loads unchanged."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


class PluginHooks:
    """Hook specifications for evalcore plugins."""

    @hookspec
    def evalcore_metrics(self) -> list[Any]:
        """Return the plugin's metric specs (:class:`~evalcore.MetricSpec` or plain dicts).

        The namespace of each spec defaults to the plugin's entry-point name. The module
        that implements this hook must stay light: no numpy, no model libraries, no
        metric implementations at import time.
        """
        raise NotImplementedError

    @hookspec
    def evalcore_readers(self) -> list[Any]:
        """Return the plugin's readers (:class:`~evalcore.plugin.ReaderSpec` or dicts): input
        formats with their command-line options, e.g. TREC qrels and run files. Optional."""
        raise NotImplementedError

    @hookspec
    def evalcore_metric_sets(self) -> dict[str, list[str]]:
        """Return named sets of metric ids, ``{set name: [metric id, ...]}`` (optional hook).

        A set name is used wherever a metric id is (``evalcore evaluate -m all_trec``) and
        expands to its metrics. Ids without a namespace get the plugin's. Same lightness
        rule as :meth:`evalcore_metrics`.
        """
        raise NotImplementedError

    @hookspec
    def evalcore_executors(self) -> list[Any]:
        """Return the plugin's executors (:class:`~evalcore.plugin.ExecutorSpec` or dicts): where
        a run's chunks are scored, chosen with ``--executor NAME`` / ``executor=NAME``. Optional;
        plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_trackers(self) -> list[Any]:
        """Return the plugin's trackers (:class:`~evalcore.plugin.TrackerSpec` or dicts): where
        finished runs are logged, chosen with ``--log-to NAME`` / ``log_to=NAME``. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_commands(self) -> list[Any]:
        """Return the plugin's commands (:class:`~evalcore.plugin.CommandSpec` or dicts): click
        commands added under ``evalcore``. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_programs(self) -> list[Any]:
        """Return the plugin's program adapters (:class:`~evalcore.plugin.ProgramSpec` or dicts): kinds
        of program ``evaluate(program=...)`` runs beside plain callables (a DSPy module). Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_record_views(self) -> list[Any]:
        """Return the plugin's record views (:class:`~evalcore.plugin.RecordViewSpec` or dicts): what the
        report shows of a record beside its input, prediction and scores, e.g. a trace's tool calls.
        Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_settings(self) -> list[Any]:
        """Return the plugin's settings groups (:class:`~evalcore.plugin.SettingsSpec` or dicts): run
        settings its metrics read from ``context.settings[NAME]``, with their command-line options
        and environment variables. Optional; plugin API 2."""
        raise NotImplementedError

    @hookspec
    def evalcore_backends(self) -> list[Any]:
        """Return the plugin's model backends (:class:`~evalcore.plugin.BackendSpec` or dicts), each
        for a settings group, which the plugin owning the group chooses by name. Optional; plugin API 2."""
        raise NotImplementedError


def new_plugin_manager() -> pluggy.PluginManager:
    """A plugin manager that knows the evalcore hook specifications."""
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(PluginHooks)
    return manager
