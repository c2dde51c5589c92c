"""evalcore-checks: cheap, deterministic proxy checks (format, keywords, length, syntax, diff, ...)."""

__version__ = "0.1.0"
