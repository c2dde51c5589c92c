"""The command of evalcore-watch (imports only ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import CommandSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_commands"]

PLUGIN_API_VERSION = 2  # the evalcore plugin API these specs are written for


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    return [CommandSpec(name="watch", implementation="evalcore_watch.command:watch_command",
                        summary="Receive OpenTelemetry traces (OTLP/HTTP), score them as they arrive, raise alarms.")]
