"""The metrics ``list_metrics`` reads from the listing cache, kept for the rest of the process.

The listing cache (:mod:`.list_cache`) holds each metric's :meth:`MetricInfo.to_dict`; while it is
valid, ``list_metrics()`` returns infos made from it, without loading a plugin. They are read once
per process, as the registry loads once, and forgotten with the process-wide registry.
"""

from __future__ import annotations

from . import list_cache
from .info import MetricInfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .info import SpecLookup

_TEXT_FIELDS = ("id", "key", "namespace", "family", "distribution", "version")
_listed: list[MetricInfo] | None = None
"""Set and cleared whole (two threads reading the cache at once each set an equal list)."""


def remembered() -> list[MetricInfo] | None:
    """The metrics this process read from the cache, if it did."""
    return _listed


def read(now: list_cache.Scan, lookup: SpecLookup) -> list[MetricInfo] | None:
    """Every metric of the cached listing made in the environment ``now`` describes (specs from
    ``lookup`` on first access), kept for later calls; ``None`` when there is no such listing."""
    global _listed
    listing = list_cache.load(now)
    if listing is None or not all(_usable(entry["data"]) for entry in listing.metrics):
        return None
    _listed = [MetricInfo.from_listing(entry["data"], lookup) for entry in listing.metrics]
    return _listed


def forget() -> None:
    """Drop the metrics read from the cache (the next ``list_metrics`` looks again)."""
    global _listed
    _listed = None


def _usable(data: dict[str, object]) -> bool:
    """Whether ``data`` holds what :meth:`MetricInfo.from_listing` reads."""
    return (all(isinstance(data.get(name), str) for name in _TEXT_FIELDS)
            and isinstance(conflicts := data.get("conflicts_with"), list)
            and all(isinstance(c, str) for c in conflicts))
