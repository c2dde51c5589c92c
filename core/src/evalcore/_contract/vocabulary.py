"""One vocabulary for metric parameters: the canonical names, the synonyms they replace, and
the warning an old name gives.

Every plugin names the same idea the same way: ``k`` for a cut-off, ``ignore_case`` for
case-folded comparison, ``field`` for a path into the record (read with
:func:`evalcore.plugin.get_path`, dotted keys and list indices; a metric reading two paths names
them ``<what>_field``), ``timeout_s``, ``cost_msats``, ``relevance_level`` and ``threshold``. A
parameter renamed to this vocabulary keeps its old name as a deprecated alias
(``ParamSpec(name="k", aliases=("top_k",))``): the old name still binds, with one
:class:`DeprecatedParameterWarning` per process, metric and name. The conformance kit fails a
parameter *named* with one of the synonyms below.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Mapping
from types import MappingProxyType

from evalcore._lazy import publish

__all__ = ["CANONICAL_NAMES", "SYNONYMS", "DeprecatedParameterWarning", "canonical_name", "naming_problems"]

CANONICAL_NAMES = ("k", "ignore_case", "field", "timeout_s", "cost_msats", "relevance_level", "threshold")
"""The parameter names every plugin uses for these ideas."""

SYNONYMS: Mapping[str, str] = MappingProxyType({
    # cut-offs
    "top_k": "k", "topk": "k", "top_n": "k", "cutoff": "k", "cut_off": "k",
    # case folding
    "lowercase": "ignore_case", "lower_case": "ignore_case", "lowercased": "ignore_case",
    "case_insensitive": "ignore_case", "caseless": "ignore_case", "casefold": "ignore_case",
    "case_fold": "ignore_case", "ignorecase": "ignore_case",
    # paths into the record
    "field_path": "field", "path": "field", "key_path": "field", "field_name": "field",
    "expected_path": "expected_field", "timing_key": "timing_field",
    # time limits, costs, relevance grades, pass marks
    "timeout": "timeout_s", "timeout_sec": "timeout_s", "timeout_secs": "timeout_s",
    "timeout_seconds": "timeout_s", "time_limit": "timeout_s",
    "cost": "cost_msats", "msats": "cost_msats",
    "rel_level": "relevance_level", "relevance_threshold": "relevance_level", "min_relevance": "relevance_level",
    "thresh": "threshold", "score_threshold": "threshold",
})
"""Names that mean one of the canonical ideas, each with the name to use instead. Besides
these, a name ending in ``_field_path`` or ``_key_path`` means ``<what>_field``."""

_SUFFIXES = (("_field_path", "_field"), ("_key_path", "_field"))


def canonical_name(name: str) -> str | None:
    """The vocabulary's name for a parameter called ``name``, or ``None`` when ``name`` is fine.

    >>> canonical_name("top_k"), canonical_name("score_field_path"), canonical_name("k")
    ('k', 'score_field', None)
    """
    if name in SYNONYMS:
        return SYNONYMS[name]
    for suffix, replacement in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)] + replacement
    return None


def naming_problems(spec: object) -> list[str]:
    """One line per parameter of ``spec`` (a :class:`~evalcore.plugin.MetricSpec`) named with a synonym.

    A synonym declared as a deprecated alias is fine; only a parameter's own name counts.
    """
    key = getattr(spec, "key", "metric")
    problems = []
    for param in getattr(spec, "params", ()):
        better = canonical_name(param.name)
        if better is not None:
            problems.append(
                f"{key}: parameter {param.name!r} should be named {better!r} (evalcore's vocabulary); "
                f"declare the old name as ParamSpec(name={better!r}, aliases=({param.name!r},))"
            )
    return problems


class DeprecatedParameterWarning(FutureWarning):
    """A metric parameter was given by an old name; the message names the canonical one.

    A :class:`FutureWarning`, so Python shows it by default (the old names are for users'
    scripts, not only for library code); given once per process, metric and old name.
    """


_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_deprecated_name(metric: str, old: str, new: str) -> None:
    """Warn that ``metric``'s parameter ``old`` is now ``new`` (the first time in this process only)."""
    with _warned_lock:
        if (metric, old) in _warned:
            return
        _warned.add((metric, old))
    warnings.warn(
        f"{metric}: parameter {old!r} is deprecated; use {new!r} (the old name still works for now)",
        DeprecatedParameterWarning, stacklevel=_outside_evalcore(),
    )


def _outside_evalcore() -> int:
    """The ``stacklevel`` that points a warning at the first caller outside the evalcore package."""
    level, frame = 2, sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


publish(globals())
