"""``checks/json_schema``: a field of the prediction validated with ``jsonschema``."""

from __future__ import annotations

from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample, get_path
from evalcore_schema import schema_validator
from jsonschema.exceptions import SchemaError

from ._inputs import field_value, parse_structure

_MAX_REPORTED = 5


class JsonSchemaCheck(SampleMetric):
    """1.0 when the value at ``field`` is valid against the schema, else 0.0."""

    def setup(self) -> None:
        self._validator: Any = None
        self._schema_error: SchemaError | None = None
        if self.params["schema"] is not None:
            try:
                self._validator = self._build(self.params["schema"])
            except SchemaError as exc:
                self._schema_error = exc

    def _build(self, schema: Any) -> Any:
        return schema_validator(schema, check_formats=self.params["check_formats"])

    def _validator_for(self, example: Record) -> Any:
        if self._schema_error is not None:
            raise self._schema_error
        if self._validator is not None:
            return self._validator
        schema = get_path(example, self.params["schema_field"], None)
        if schema is None:
            raise SkipSample(f"no schema: parameter 'schema' or example.{self.params['schema_field']}")
        return self._build(schema)

    def score(self, example: Record, prediction: Record) -> Score:
        try:
            validator = self._validator_for(example)
        except SchemaError as exc:
            fallback = self.params["invalid_schema_score"]
            if fallback is None:
                raise InputError(f"invalid JSON schema: {exc.message}", field="schema") from None
            return Score(fallback, feedback=f"invalid JSON schema: {exc.message}",
                         details={"schema_valid": False})
        path = self.params["field"]
        raw = field_value(prediction, path)
        try:
            instance = parse_structure(raw) if self.params["parse_json"] else raw
        except ValueError as exc:
            return Score(0.0, feedback=f"prediction.{path} is not valid JSON: {exc}",
                         details={"valid_json": False})
        errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
        messages = [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
                    for e in errors[:_MAX_REPORTED]]
        if errors:
            return Score(0.0, feedback="; ".join(messages),
                         details={"valid_json": True, "errors": len(errors)})
        return Score(1.0, feedback="valid against the schema", details={"valid_json": True, "errors": 0})
