"""What ``evalcore list`` shows, as plain data: built from the registry or read from its cache.

Both ways give the same :class:`Listing`, and :func:`render_listing` prints either, so the
output cannot depend on where the listing came from.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .registry import Registry

HEADER = ("id", "family", "scale", "summary")


class Listing(NamedTuple):
    """Every installed metric, the number of plugins that did not load cleanly, and the warning
    about a foreign ``evalcore`` distribution (if any)."""

    metrics: list[dict[str, Any]]
    """Per metric: ``family``, ``namespace``, the table ``row`` and the JSON ``data``."""
    failed: int
    warning: str | None


def listing_from_registry(registry: Registry, warning: str | None) -> Listing:
    """The listing of every metric ``registry`` knows (its JSON data as ``json`` reads it back)."""
    from evalcore._contract.display import listing_id, required_choices, scale

    metrics = []
    for info in registry.metrics():
        spec = info.spec
        choices = required_choices(spec)
        summary = (("CONFLICT: " if info.conflicts_with else "") + (f"[{choices}] " if choices else "")
                   + spec.summary)
        metrics.append({
            "family": spec.family, "namespace": spec.namespace,
            "row": [listing_id(spec), spec.family, scale(spec), summary],
            "data": json.loads(json.dumps(info.to_dict(), default=str)),
        })
    failed = sum(1 for plugin in registry.plugins() if not plugin.ok)
    return Listing(metrics, failed, warning)


def is_listing(value: Any) -> bool:
    """Whether ``value`` (read from a cache file) has the shape of :class:`Listing`'s fields."""
    if not isinstance(value, list) or len(value) != 3:
        return False
    metrics, failed, warning = value
    return (isinstance(metrics, list) and all(map(_is_metric, metrics))
            and isinstance(failed, int) and (warning is None or isinstance(warning, str)))


def _is_metric(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("family"), str)
            and isinstance(entry.get("namespace"), str) and isinstance(entry.get("data"), dict)
            and isinstance(row := entry.get("row"), list) and len(row) == len(HEADER)
            and all(isinstance(cell, str) for cell in row))
