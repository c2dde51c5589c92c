"""The ``ui`` command's spec (imports only ``evalcore.plugin``; the server's code loads when it runs)."""

from __future__ import annotations

from evalcore.plugin import CommandSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_commands"]

PLUGIN_API_VERSION = 2  # commands are a plugin API 2 hook


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    return [CommandSpec(name="ui", implementation="evalcore_ui.command:ui_command",
                        summary="Open the evaluation workbench in the browser: runs, records, comparisons, "
                                "annotation queues.")]
