"""The run context: settings a metric may need while scoring, passed to it explicitly."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .budget import Budget

CacheMode = Literal["readwrite", "readonly", "refresh", "off"]


@attrs.frozen
class RunContext:
    """What one evaluation run tells its metrics.

    ``cache_mode`` / ``cache_dir`` — the model-call cache (``None``: the metric's own
    parameter, else its default); ``budget`` — the spending budget shared by every metric
    of the run; ``timeout_s`` — the per-sample time limit (``None``: the metric's default);
    ``seed`` — the run's seed; ``executor`` — ``"local"`` or ``"ray"``.
    """

    cache_mode: CacheMode | None = None
    cache_dir: str | None = None
    budget: Budget = attrs.field(factory=lambda: Budget(None))
    timeout_s: float | None = None
    seed: int = 0
    executor: str = "local"

    def cache_options(self, params: dict[str, Any]) -> dict[str, Any]:
        """``mode`` and ``folder`` for a metric's cache: its parameters win over the run's."""
        return {
            "mode": params.get("cache_mode") or self.cache_mode,
            "folder": params.get("cache_dir") or self.cache_dir,
        }
