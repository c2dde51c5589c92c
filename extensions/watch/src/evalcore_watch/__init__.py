"""evalcore-watch: online evaluation of OpenTelemetry traces (``evalcore watch``)."""

from __future__ import annotations

from .config import WatchConfig, load_config
from .estimates import weighted_mean
from .monitor import Monitor, MonitorSpec
from .sampling import Budget, Rule
from .server import Watch

__all__ = ["Budget", "Monitor", "MonitorSpec", "Rule", "Watch", "WatchConfig", "load_config", "weighted_mean"]
