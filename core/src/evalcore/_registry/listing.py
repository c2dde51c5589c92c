"""What ``evalcore list`` shows, as plain data: built from the registry or read from its cache.

Both ways give the same :class:`Listing`, and :func:`render_listing` prints either, so the
output cannot depend on where the listing came from.
"""

from __future__ import annotations

import json
from collections import namedtuple

TYPE_CHECKING = False  # typing itself is not imported: ``list_metrics()`` reads a listing at start-up
if TYPE_CHECKING:
    from typing import Any, NamedTuple, Protocol

    from .info import MetricInfo
    from .plugin_index import PluginEntry

    class Registry(Protocol):
        """What a listing is made from (:class:`~evalcore.Registry`; named here by its methods,
        as the registry module imports this layer's cache)."""

        def metrics(self) -> list[MetricInfo]: ...

        def plugins(self) -> list[Any]: ...

        def plugin_index(self) -> list[PluginEntry]: ...

HEADER = ("id", "family", "scale", "summary")


if TYPE_CHECKING:
    class Listing(NamedTuple):
        """Every installed metric, the number of plugins that did not load cleanly, and the warning
        about a foreign ``evalcore`` distribution (if any), and which plugin provides what."""

        metrics: list[dict[str, Any]]
        """Per metric: ``family``, ``namespace``, the table ``row`` and the JSON ``data``."""
        failed: int
        warning: str | None
        plugins: list[PluginEntry]
        """Per plugin: what it provides (:mod:`.plugin_index`), so a metric loads its plugin alone."""
else:  # the same named tuple, made without importing typing
    Listing = namedtuple("Listing", ["metrics", "failed", "warning", "plugins"])


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
    return Listing(metrics, failed, warning, registry.plugin_index())


def plugin_packages(registry: Registry) -> list[str]:
    """The top-level packages a listing of ``registry`` is made from: evalcore's and each plugin's."""
    return ["evalcore", *sorted({p.module.partition(":")[0].partition(".")[0] for p in registry.plugins()})]


def is_listing(value: Any) -> bool:
    """Whether ``value`` (read from a cache file) has the shape of :class:`Listing`'s fields."""
    from .plugin_index import is_index

    if not isinstance(value, list) or len(value) != 4:
        return False
    metrics, failed, warning, plugins = value
    return (isinstance(metrics, list) and all(map(_is_metric, metrics))
            and isinstance(failed, int) and (warning is None or isinstance(warning, str)) and is_index(plugins))


def _is_metric(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("family"), str)
            and isinstance(entry.get("namespace"), str) and isinstance(entry.get("data"), dict)
            and isinstance(row := entry.get("row"), list) and len(row) == len(HEADER)
            and all(isinstance(cell, str) for cell in row))
