"""Where a metric comes from (kept apart from the metric classes, so the registry can list
metrics without importing those)."""

from __future__ import annotations

import attrs


@attrs.frozen
class Origin:
    """The distribution (and its version) that provides a metric."""

    distribution: str
    version: str

    @classmethod
    def local(cls) -> Origin:
        return cls("local", "")
