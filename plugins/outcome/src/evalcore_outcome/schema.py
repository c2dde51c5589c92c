"""``tool_params_schema``: tool-call params validated against the tool's JSON Schema."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score, schema_validator
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
        tool, params = tool_call(prediction, "prediction")
        schemas = self._schemas(example)
        if tool not in schemas:
            return Score(0.0, feedback=f"unknown tool {tool!r}", details={"tool": tool, "known_tool": False})
        try:
            validator = self._validator(schemas[tool])
        except SchemaError as exc:
            return Score(0.5, feedback=f"schema of {tool!r} does not compile: {exc.message}",
                         details={"tool": tool, "schema_error": exc.message})
        errors = sorted(validator.iter_errors(params), key=lambda e: list(e.absolute_path))
        if not errors:
            return Score(1.0, details={"tool": tool, "params_valid": True})
        messages = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors[:5]]
        return Score(0.0, feedback="; ".join(messages),
                     details={"tool": tool, "params_valid": False, "errors": messages})
