"""Registration of evalcore-dropins: the program adapter that lets ``evaluate(program=...)`` run a
DSPy module. Light: DSPy is imported only when a DSPy module is evaluated."""

from __future__ import annotations

from typing import Any

from evalcore.plugin import PLUGIN_API_VERSION, ProgramSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_programs"]


@hookimpl
def evalcore_programs() -> list[Any]:
    return [ProgramSpec(name="dspy", implementation="evalcore_dropins.programs:adapt",
                        summary="DSPy modules, called with their inputs as keywords as dspy.Evaluate calls them")]
