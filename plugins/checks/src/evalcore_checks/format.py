"""``checks/format``: the output is non-empty, valid JSON, and has a named field (dsrs)."""

from __future__ import annotations

from typing import Any

from evalcore.plugin import Record, SampleMetric, Score, get_path

from ._inputs import parse_structure

_MISSING = object()


def is_non_empty(value: Any) -> bool:
    """A string with non-whitespace content, a non-empty container, or any other value."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (dict, list, tuple)):
        return bool(value)
    return value is not None


class FormatCheck(SampleMetric):
    """1.0 when every enabled check passes, else 0.0; the details list each check."""

    def score(self, example: Record, prediction: Record) -> Score:
        path = self.params["field"]
        value = get_path(prediction, path, None)
        if value is None:
            return Score(0.0, feedback=f"prediction.{path} is missing", details={"present": False})
        checks: dict[str, bool] = {}
        problems: list[str] = []
        if self.params["require_non_empty"]:
            checks["non_empty"] = is_non_empty(value)
            if not checks["non_empty"]:
                problems.append("output is empty")
        json_field = self.params["json_field"]
        if self.params["require_valid_json"] or json_field is not None:
            parsed, error = _parse(value)
            checks["valid_json"] = error is None
            if error is not None:
                problems.append(f"not valid JSON: {error}")
            elif json_field is not None:
                checks["has_field"] = get_path(parsed, json_field, _MISSING) is not _MISSING \
                    if isinstance(parsed, (dict, list)) else False
                if not checks["has_field"]:
                    problems.append(f"JSON has no field {json_field!r}")
        value_ = 0.0 if problems else 1.0
        return Score(value_, feedback="; ".join(problems) or "format ok", details=checks)


def _parse(value: Any) -> tuple[Any, str | None]:
    if not isinstance(value, str):
        return value, None
    try:
        return parse_structure(value), None
    except ValueError as exc:
        return None, str(exc)
