"""Corpus states to JSON and back, so they can be journalled, resumed and compared.

A corpus metric's per-sample state is plain Python data: numbers, strings, tuples, sets,
frozensets, dicts (also with non-string keys), :class:`~fractions.Fraction`,
:class:`~collections.Counter`, named tuples, attrs classes and numpy arrays. JSON has
only lists, objects and scalars, so everything else is written as a tagged object
``{"$t": tag, "v": ...}``. Classes (named tuples, attrs) are named by ``module:qualname``
and rebuilt only when their module is already imported by the metric itself — decoding
never imports anything, so a journal cannot make evalcore load code.
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction
from typing import Any

from .errors import EvalcoreError

_TAG = "$t"


class StateCodecError(EvalcoreError, ValueError):
    """A state holds a value the codec cannot write, or a journal holds one it cannot read (the
    metric's :meth:`~evalcore.plugin.CorpusMetric.encode_state` and ``decode_state`` add its id)."""


def encode_state(state: Any) -> Any:
    """A JSON-ready form of ``state``."""
    if state is None or isinstance(state, (bool, str)):
        return state
    if isinstance(state, int):
        return state
    if isinstance(state, float):
        if state != state or state in (float("inf"), float("-inf")):
            return {_TAG: "float", "v": repr(state)}
        return state
    if isinstance(state, Fraction):
        return {_TAG: "fraction", "v": [state.numerator, state.denominator]}
    if isinstance(state, Counter):
        return {_TAG: "counter", "v": [[encode_state(k), n] for k, n in state.items()]}
    if isinstance(state, dict):
        if all(isinstance(k, str) and k != _TAG for k in state):
            return {k: encode_state(v) for k, v in state.items()}
        return {_TAG: "dict", "v": [[encode_state(k), encode_state(v)] for k, v in state.items()]}
    if isinstance(state, tuple) and hasattr(state, "_fields"):
        return {_TAG: "class", "c": _class_name(state), "v": [encode_state(v) for v in state]}
    if isinstance(state, tuple):
        return {_TAG: "tuple", "v": [encode_state(v) for v in state]}
    if isinstance(state, list):
        return [encode_state(v) for v in state]
    if isinstance(state, (set, frozenset)):
        tag = "frozenset" if isinstance(state, frozenset) else "set"
        return {_TAG: tag, "v": sorted((encode_state(v) for v in state), key=_sort_key)}
    if hasattr(state, "__attrs_attrs__"):
        fields = {a.name: encode_state(getattr(state, a.name)) for a in state.__attrs_attrs__}
        return {_TAG: "class", "c": _class_name(state), "f": fields}
    if type(state).__module__ == "numpy":
        if getattr(state, "ndim", 0) == 0:
            return encode_state(state.item())
        return {_TAG: "ndarray", "dtype": str(state.dtype), "v": state.tolist()}
    raise StateCodecError(f"cannot journal a corpus state holding {type(state).__name__}")


def decode_state(data: Any) -> Any:
    """The state :func:`encode_state` wrote."""
    if isinstance(data, list):
        return [decode_state(v) for v in data]
    if not isinstance(data, dict):
        return data
    tag = data.get(_TAG)
    if tag is None:
        return {k: decode_state(v) for k, v in data.items()}
    value = data.get("v")
    if tag == "float":
        return float(value)
    if tag == "fraction":
        return Fraction(*value)
    if tag == "counter":
        return Counter({_hashable(decode_state(k)): n for k, n in value})
    if tag == "dict":
        return {_hashable(decode_state(k)): decode_state(v) for k, v in value}
    if tag == "tuple":
        return tuple(decode_state(v) for v in value)
    if tag in ("set", "frozenset"):
        items = (_hashable(decode_state(v)) for v in value)
        return frozenset(items) if tag == "frozenset" else set(items)
    if tag == "ndarray":
        import numpy as np

        return np.asarray(value, dtype=data["dtype"])
    if tag == "class":
        cls = _class(data["c"])
        if "f" in data:
            return cls(**{k: decode_state(v) for k, v in data["f"].items()})
        return cls(*(decode_state(v) for v in value))
    raise StateCodecError(f"unknown state tag {tag!r}")


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def _sort_key(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def _class_name(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def _class(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name)
    if module is None:
        raise StateCodecError(f"state class {name} belongs to a module that is not loaded")
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not isinstance(obj, type):
        raise StateCodecError(f"no state class {name}")
    return obj
