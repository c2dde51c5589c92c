"""The run's model-call cache settings: the cache modes and the default cache folder.

The cache itself belongs to evalcore-http; the core carries its settings (``cache_mode``,
``cache_dir`` of :class:`~evalcore.plugin.RunContext`, ``--cache-mode``, ``--cache-dir``) and
checks them here, once, for the options, the command line and the cache alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from evalcore._lazy import publish

from .env import cache_root
from .errors import ParameterError

CacheMode = Literal["readwrite", "readonly", "refresh", "off"]
CACHE_MODES: tuple[CacheMode, ...] = get_args(CacheMode)


def check_cache_mode(mode: object, name: str = "cache_mode") -> CacheMode | None:
    """``mode`` when it is one of :data:`CACHE_MODES` or ``None``, else a :class:`ParameterError` naming ``name``."""
    if mode is not None and mode not in CACHE_MODES:
        raise ParameterError(f"{name} must be one of {', '.join(CACHE_MODES)}; got {mode!r}")
    return mode  # type: ignore[return-value]


def default_cache_dir() -> Path:
    """``$EVALCORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/evalcore``, else ``~/.cache/evalcore``."""
    return Path(cache_root())


publish(globals())
