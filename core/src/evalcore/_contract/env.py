"""Settings the command line and the registry read from environment variables.

Imports only ``os``, so the command line can decide what to load before loading it.
"""

from __future__ import annotations

import os

STRICT_ENV = "EVALCORE_STRICT_PLUGINS"
CACHE_DIR_ENV = "EVALCORE_CACHE_DIR"
NO_LIST_CACHE_ENV = "EVALCORE_NO_LIST_CACHE"

_TRUE = {"1", "true", "yes", "on"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def strict_from_env() -> bool:
    """Whether ``$EVALCORE_STRICT_PLUGINS`` asks for strict plugin loading."""
    return _flag(STRICT_ENV)


def list_cache_disabled() -> bool:
    """Whether ``$EVALCORE_NO_LIST_CACHE`` turns the cache of ``evalcore list`` off."""
    return _flag(NO_LIST_CACHE_ENV)


def cache_root() -> str:
    """``$EVALCORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/evalcore``, else ``~/.cache/evalcore``."""
    if os.environ.get(CACHE_DIR_ENV):
        return os.environ[CACHE_DIR_ENV]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "evalcore")
