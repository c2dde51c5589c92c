"""Programs for the evaluator: plain callables of one record, or programs of another kind (a DSPy
module) that an installed extension adapts (its :class:`~evalcore.plugin.ProgramSpec`)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from evalcore._lazy import publish
from evalcore._registry.functions import RecordView
from evalcore._registry.registry import Registry, default_registry


def adapt_program(program: Callable[..., Any], registry: Registry | None = None) -> Callable[..., Any]:
    """``program`` as a callable of one record: the first installed adapter that knows its kind
    wraps it, else it is one already."""
    for spec in (registry or default_registry()).components("programs"):
        adapted = spec.load()(program)
        if adapted is not None:
            return adapted
    return program


def call_program(program: Callable[..., Any], example: Any) -> Any:
    """The prediction ``program`` makes for one example, called as :func:`evalcore.evaluate` calls
    it: adapted to its kind, given a mapping's fields with attribute access too, awaited if async."""
    view = RecordView(example) if isinstance(example, Mapping) else example
    output = adapt_program(program)(view)
    return asyncio.run(output) if inspect.isawaitable(output) else output


publish(globals())
