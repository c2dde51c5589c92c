"""Objects named by ``"module:attr"`` references: metric implementations, readers, plugin entry points."""

from __future__ import annotations

import importlib
from typing import Any


def import_object(reference: str) -> Any:
    """The object ``reference`` names: ``"package.module:Class.attr"``, or the module itself without
    ``:attr`` (extras in brackets, as an entry point may carry them, are ignored)."""
    module_name, _, attr = reference.partition("[")[0].partition(":")
    target: Any = importlib.import_module(module_name.strip())
    for part in filter(None, attr.strip().split(".")):
        target = getattr(target, part)
    return target
