"""evalcore-system: latency, cost efficiency and diversity metrics."""

__version__ = "0.1.0"
