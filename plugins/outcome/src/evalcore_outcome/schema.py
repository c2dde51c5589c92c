"""``tool_params_schema``: tool-call params validated against the tool's JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score
from evalcore_schema import schema_validator
from jsonschema.exceptions import SchemaError

from .repetition import tool_call


class ToolParamsSchema(SampleMetric):
    """1.0 valid, 0.0 invalid or unknown tool, 0.5 when the tool's schema does not compile."""

    def setup(self) -> None:
        self._validators: dict[str, Any] = {}

    def _schemas(self, example: Record) -> Mapping[str, Any]:
        schemas = example.get("tool_schemas", self.params["schemas"])
        if schemas is None:
            return {}
        if not isinstance(schemas, Mapping):
            raise InputError(f"expected a mapping of tool name to schema, got {type(schemas).__name__}",
                             field="example.tool_schemas")
        return schemas

    def _validator(self, schema: Any) -> Any:
        key = json.dumps(schema, sort_keys=True, default=repr)
        if key not in self._validators:
            self._validators[key] = schema_validator(schema)
        return self._validators[key]

    def score(self, example: Record, prediction: Record) -> Score:
        tool, params, notes = tool_call(prediction, "prediction")
        schemas = self._schemas(example)
        name = tool if isinstance(tool, str) else ""  # the dsrs code's as_str().unwrap_or("")
        if name not in schemas:
            return self._scored(0.0, [f"unknown tool {name!r}", *notes], {"tool": name, "known_tool": False})
        try:
            validator = self._validator(schemas[name])
        except SchemaError as exc:
            return self._scored(0.5, [f"schema of {name!r} does not compile: {exc.message}", *notes],
                                {"tool": name, "schema_error": exc.message})
        errors = sorted(validator.iter_errors(params), key=lambda e: list(e.absolute_path))
        if not errors:
            return self._scored(1.0, notes, {"tool": name, "params_valid": True})
        messages = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors[:5]]
        return self._scored(0.0, [*messages, *notes], {"tool": name, "params_valid": False, "errors": messages})

    @staticmethod
    def _scored(value: float, feedback: list[str], details: dict[str, Any]) -> Score:
        return Score(value, feedback="; ".join(feedback) or None, details=details, confidence=1.0)
