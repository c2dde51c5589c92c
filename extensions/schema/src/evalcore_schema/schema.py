"""JSON Schema validators whose regular expressions run in linear time (jsonschema + RE2).

jsonschema runs ``pattern``, ``patternProperties`` and the pattern part of
``additionalProperties`` on Python's backtracking ``re``; a schema taken from data could
make it run for ever. The validators built here replace those three keywords with ones
that search through :func:`evalcore_schema.regex_search`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from .regex import regex_search


def _keywords() -> dict[str, Any]:
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, patrn: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not regex_search(patrn, instance, where="schema pattern"):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: Mapping[str, Any], instance: Any,
                           schema: Mapping[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in patterns.items():
            for key, value in instance.items():
                if regex_search(patrn, key, where="schema patternProperties"):
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(validator: Any, extra_schema: Any, instance: Any,
                              schema: Mapping[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        properties = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [key for key in instance if key not in properties and not any(
            regex_search(p, key, where="schema patternProperties") for p in patterns)]
        if validator.is_type(extra_schema, "object"):
            for key in extras:
                yield from validator.descend(instance[key], extra_schema, path=key)
        elif not extra_schema and extras:
            yield ValidationError(_extras_message(sorted(extras, key=str), patterns))

    return {"pattern": pattern, "patternProperties": pattern_properties,
            "additionalProperties": additional_properties}


def _extras_message(extras: list[str], patterns: list[str]) -> str:
    """jsonschema's wording for unexpected properties."""
    listed = ", ".join(repr(key) for key in extras)
    if patterns:
        verb = "does" if len(extras) == 1 else "do"
        return f"{listed} {verb} not match any of the regexes: {', '.join(repr(p) for p in sorted(patterns))}"
    verb = "was" if len(extras) == 1 else "were"
    return f"Additional properties are not allowed ({listed} {verb} unexpected)"


@functools.cache
def _linear_class(cls: type) -> type:
    from jsonschema import validators

    return validators.extend(cls, _keywords())


def schema_validator(schema: Any, *, check_formats: bool = False) -> Any:
    """A validator for ``schema`` in its own draft (by ``$schema``, default 2020-12).

    Raises ``jsonschema.exceptions.SchemaError`` when the schema is invalid.
    """
    from jsonschema import validators
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, (Mapping, bool)):
        raise SchemaError(f"a JSON schema must be an object or a boolean, got {type(schema).__name__}")
    cls = validators.validator_for(schema)
    cls.check_schema(schema)
    return _linear_class(cls)(schema, format_checker=cls.FORMAT_CHECKER if check_formats else None)

