"""evalcore-agent: deterministic tool-call and trajectory metrics for agents."""

__version__ = "0.1.0"
