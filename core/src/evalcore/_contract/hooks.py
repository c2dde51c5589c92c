"""The pluggy hooks a plugin's registration module implements."""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT_NAME = "evalcore"
ENTRY_POINT_GROUP = "evalcore.plugins"
PLUGIN_API_VERSION = 1
"""The plugin API this evalcore provides; registration modules declare the one they target
as a module constant ``PLUGIN_API_VERSION``."""

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


def new_plugin_manager() -> pluggy.PluginManager:
    """A plugin manager that knows the evalcore hook specifications."""
    manager = pluggy.PluginManager(PROJECT_NAME)
    manager.add_hookspecs(PluginHooks)
    return manager
