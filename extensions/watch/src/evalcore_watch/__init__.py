"""evalcore-watch: online evaluation of OpenTelemetry traces (``evalcore watch``).

Names are imported on first use, so listing plugins (which imports ``evalcore_watch._register``)
imports neither aiohttp nor numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Budget", "Monitor", "MonitorSpec", "Rule", "Watch", "WatchConfig", "load_config", "weighted_mean"]

_WHERE = {"Budget": "sampling", "Rule": "sampling", "Monitor": "monitor", "MonitorSpec": "monitor",
          "Watch": "server", "WatchConfig": "config", "load_config": "config", "weighted_mean": "estimates"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'evalcore_watch' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)


def __dir__() -> list[str]:
    return sorted(__all__)
