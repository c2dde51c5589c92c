"""Reading what the checks look at: a field of the prediction, expectations from the example."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record, SkipSample, get_path, reference_answers

_MISSING = object()


def field_value(prediction: Record, path: str) -> Any:
    """The value at ``path`` in the prediction; skips the sample when it is absent or ``None``."""
    value = get_path(prediction, path, _MISSING)
    if value is _MISSING or value is None:
        raise SkipSample(f"prediction.{path} is missing")
    return value


def field_text(prediction: Record, path: str) -> str:
    """The string at ``path`` in the prediction (:class:`InputError` if it is not a string)."""
    value = field_value(prediction, path)
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", field=f"prediction.{path}")
    return value


def parse_structure(value: Any) -> Any:
    """Structured data as is; a string parsed as JSON (``ValueError`` if it is not JSON)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except RecursionError:
            raise ValueError("the JSON is nested too deeply") from None
    return value


def expectations(example: Record, given: Any, path: str | None) -> list[Any]:
    """The expected values to compare with, best match wins.

    ``given`` (a parameter) wins; else ``example[path]`` when ``path`` is set; else
    ``example.expected_output`` (seed 004, any JSON value); else the strings of
    ``example.reference_answer`` (seed 002). Skips the sample when there is none.
    """
    if given is not None:
        return [given]
    if path is not None:
        value = get_path(example, path, None)
        if value is None:
            raise SkipSample(f"example.{path} is missing")
        return [value]
    if example.get("expected_output") is not None:
        return [example["expected_output"]]
    return list(reference_answers(example))


def string_list(value: Any, field: str) -> list[str]:
    """A list of strings from a parameter or example field (:class:`InputError` otherwise)."""
    if isinstance(value, str) or not isinstance(value, Sequence) \
            or not all(isinstance(v, str) for v in value):
        raise InputError(f"expected a list of strings, got {value!r:.80}", field=field)
    return list(value)


def list_setting(params: Mapping[str, Any], name: str, example: Record, example_field: str) -> list[str]:
    """A list parameter, or when it is unset the example's ``example_field`` (may be empty)."""
    if params.get(name) is not None:
        return list(params[name])
    value = example.get(example_field)
    return [] if value is None else string_list(value, f"example.{example_field}")
