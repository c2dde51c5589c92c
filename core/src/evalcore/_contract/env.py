"""The one place evalcore reads (and, for numpy's BLAS threads, sets) environment variables: the
registry's and the command line's switches, and the environment a run starts with
(:func:`environment`), from which the run context takes its settings: the cache's, and those of
the settings groups plugins declare, each from the variables its group names
(:func:`settings_from`). Metric and backend code
reads the run context instead.

Imports only ``os``, so the command line can decide what to load before loading it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

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


def one_blas_thread() -> None:
    """Have numpy's OpenBLAS start one thread unless ``$OPENBLAS_NUM_THREADS`` says otherwise
    (the command line's arrays are small, and the pool kept a core spinning for the first ~0.1 s
    of every command). Only before numpy is imported does it matter."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def cache_root(environ: Mapping[str, str] | None = None) -> str:
    """``$EVALCORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/evalcore``, else ``~/.cache/evalcore``
    (in ``environ``, default the process's environment)."""
    env = os.environ if environ is None else environ
    if env.get(CACHE_DIR_ENV):
        return env[CACHE_DIR_ENV]
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "evalcore")


def terminal_columns() -> str | None:
    """``$COLUMNS``: the terminal width a table is fitted to."""
    return os.environ.get("COLUMNS")


def environment() -> dict[str, str]:
    """The process's environment now: what a run starts with."""
    return dict(os.environ)



def settings_from(environ: Mapping[str, str], variables: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """The settings ``environ`` gives, ``variables`` mapping each setting to the variables that give
    it: per setting, the value of the first of them that is set (to a non-empty value)."""
    found = {}
    for setting, names in variables.items():
        value = next((environ[name] for name in names if environ.get(name)), None)
        if value is not None:
            found[setting] = value
    return found
