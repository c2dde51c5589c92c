"""``checks/completeness``: share of required fields present in a structured output (benchmark engine)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample, get_path

from ._inputs import field_value, list_setting, parse_structure

_MISSING = object()


def is_present(data: Mapping[str, Any], name: str, *, nested: bool) -> bool:
    """Whether ``name`` is a key of ``data`` with a non-null value (a dotted path when ``nested``)."""
    value = get_path(data, name, _MISSING) if nested else data.get(name, _MISSING)
    return value is not _MISSING and value is not None


class Completeness(SampleMetric):
    """``present / required`` for the required fields of the object at ``field``."""

    def score(self, example: Record, prediction: Record) -> Score:
        required = list_setting(self.params, "required_fields", example, "required_fields")
        if not required:
            raise SkipSample("no required fields (parameter 'required_fields' or example.required_fields)")
        path = self.params["field"]
        raw = field_value(prediction, path)
        try:
            data = parse_structure(raw)
        except ValueError:
            raise InputError("expected an object or a JSON object string",
                             field=f"prediction.{path}") from None
        if not isinstance(data, Mapping):
            raise InputError(f"expected an object, got {type(data).__name__}", field=f"prediction.{path}")
        nested = self.params["allow_nested"]
        missing = [name for name in required if not is_present(data, name, nested=nested)]
        present = len(required) - len(missing)
        value = present / len(required)
        feedback = f"missing: {', '.join(missing)}" if missing else "all required fields present"
        return Score(value, feedback=feedback, details={
            "present": present, "required": len(required), "completeness": value, "missing": missing,
        })
