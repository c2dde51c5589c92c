"""evalcore-schema: regular expressions and JSON Schemas taken from data, run in linear time
(RE2, with a time-limited fallback), shared by evalcore's metric families. Importing this package
loads neither jsonschema nor RE2."""

from __future__ import annotations

from .regex import FALLBACK_TIMEOUT_S, regex_search
from .schema import schema_validator

__all__ = ["FALLBACK_TIMEOUT_S", "regex_search", "schema_validator"]
