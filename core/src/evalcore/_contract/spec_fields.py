"""Checked conversions of metric spec fields (``attrs`` converters of :mod:`.spec`).

Each takes the value a plugin gave and the field's name, and returns the value in canonical form
(tuples for sequences, floats for numbers, enum members for their values, specs for their fields'
mappings) or raises :class:`SpecError` whose message starts with the field (``"name: ..."``).
Nothing but ``attrs`` is imported, so describing a metric builds no validation models.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any

import attrs

from .errors import SpecError

Convert = Callable[[Any], Any]


def field(name: str, convert: Callable[..., Any], **options: Any) -> Convert:
    """The converter of the field ``name``: ``convert(value, name, **options)``."""
    return functools.partial(convert, field=name, **options)


def _kind(value: Any) -> str:
    return type(value).__name__


def text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise SpecError(f"{field}: must be a string, got {_kind(value)}")
    return value


def optional_text(value: Any, field: str) -> str | None:
    return None if value is None else text(value, field)


def flag(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise SpecError(f"{field}: must be true or false, got {value!r}")
    return value


def count(value: Any, field: str) -> int:
    """A whole number >= 0 (an integral float is taken as its integer)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(f"{field}: must be an integer, got {value!r}")
    if value < 0:
        raise SpecError(f"{field}: must be >= 0, got {value!r}")
    return value


def number(value: Any, field: str, minimum: float | None = None) -> float | None:
    """A float, or ``None``; at least ``minimum`` when given."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{field}: must be a number or null, got {value!r}")
    if minimum is not None and value < minimum:
        raise SpecError(f"{field}: must be >= {minimum:g}, got {value!r}")
    return float(value)


def number_pair(value: Any, field: str) -> tuple[float | None, float | None]:
    """Two numbers or ``None``s (a value range)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise SpecError(f"{field}: must be a pair (low, high) of numbers or nulls, got {value!r}")
    low, high = value
    return number(low, f"{field}[0]"), number(high, f"{field}[1]")


def texts(value: Any, field: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise SpecError(f"{field}: must be a list of strings, got {_kind(value)}")
    return tuple(text(item, f"{field}[{index}]") for index, item in enumerate(value))


def values(value: Any, field: str) -> tuple[Any, ...] | None:
    """Any values as a tuple, or ``None``."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise SpecError(f"{field}: must be a list or null, got {_kind(value)}")
    return tuple(value)


def mapping(value: Any, field: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise SpecError(f"{field}: must be a mapping, got {_kind(value)}")
    return dict(value)


def member(value: Any, field: str, enum: type[Enum], optional: bool = False) -> Any:
    """The member of ``enum`` that ``value`` is or whose value it is (``None`` when ``optional``)."""
    if value is None and optional:
        return None
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum)
        raise SpecError(f"{field}: must be one of {allowed}, got {value!r}") from None


def literal(value: Any, field: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise SpecError(f"{field}: must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def records(value: Any, field: str, kind: type) -> tuple[Any, ...]:
    """Instances of ``kind``, each given as one or as the mapping of its fields."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise SpecError(f"{field}: must be a list, got {_kind(value)}")
    out = []
    for index, item in enumerate(value):
        if isinstance(item, kind):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise SpecError(f"{field}[{index}]: must be a {kind.__name__} or a mapping, got {_kind(item)}")
        out.append(build(kind, item, f"{field}[{index}]"))
    return tuple(out)


def build(kind: type, fields: Mapping[str, Any], where: str | None = None) -> Any:
    """``kind(**fields)``, an unknown or missing field reported as :class:`SpecError` (prefixed
    with ``where.``, as is an invalid value's)."""
    prefix = f"{where}." if where else ""
    known = {a.name for a in attrs.fields(kind)}
    unknown = [name for name in fields if name not in known]
    if unknown:
        raise SpecError(f"{prefix}{unknown[0]}: unknown field (the fields are {', '.join(sorted(known))})")
    try:
        return kind(**fields)
    except SpecError as exc:
        raise SpecError(f"{prefix}{exc}") from None
    except TypeError:  # a required field is missing
        missing = [a.name for a in attrs.fields(kind) if a.default is attrs.NOTHING and a.name not in fields]
        if not missing:
            raise
        raise SpecError(f"{prefix}{missing[0]}: required") from None


def json_ready(value: Any) -> Any:
    """``value`` with tuples as lists, at any depth (as JSON holds them)."""
    if isinstance(value, (tuple, list)):
        return [json_ready(item) for item in value]
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    return value
