"""The ``report`` command's spec (imports only ``evalcore.plugin``; the page's code loads when it runs)."""

from __future__ import annotations

from evalcore.plugin import CommandSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_commands"]

PLUGIN_API_VERSION = 2  # commands are a plugin API 2 hook


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    return [CommandSpec(name="report", implementation="evalcore_report.command:report_command",
                        summary="Write one self-contained HTML page about a saved run "
                                "(and its comparison with others).")]
