"""Spans from OpenTelemetry trace files: the OTLP/JSON encoding and the span JSON of the Python SDK.

Two encodings are read, in any mix, from one file holding one JSON value, JSON lines, or JSON values
one after the other (as the SDK's ``ConsoleSpanExporter`` prints them):

* OTLP/JSON: ``{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`` (an OpenTelemetry
  Collector's file exporter writes one such export per line). Ids are hex, or base64 as protobuf's
  ``MessageToDict`` writes them; attributes are ``[{"key", "value": {"stringValue": ...}}]``; times
  are ``startTimeUnixNano`` / ``endTimeUnixNano``. Field names may be lowerCamelCase or snake_case.
* Span objects: the SDK's ``ReadableSpan.to_json()`` and Phoenix's span export (OpenInference):
  ``{"name", "context": {"trace_id", "span_id"}, "parent_id", "start_time", "end_time", "status",
  "attributes": {...}}`` with ``0x``-prefixed or plain hex ids and ISO 8601 times. A JSON list of
  them, or ``{"data": [...]}``, is read too.

The whole file is read into memory: the spans of one trace may be anywhere in it.
"""

from __future__ import annotations

import base64
import binascii
import calendar
import functools
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from evalcore.plugin import InputError

_ISO = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$")
_ERROR_CODES = {2, "2", "STATUS_CODE_ERROR", "ERROR"}
_SCALARS = {"stringValue": str, "boolValue": bool, "intValue": int, "doubleValue": float, "bytesValue": str}
MAX_DEPTH = 64
"""Levels an attribute value may nest (OTLP kvlist / array values, nested mappings)."""
MAX_ATTRIBUTE_CHARS = 8 * 1024 * 1024
"""Characters one string attribute may hold."""
_MAX_NS = 253_402_300_799_999_999_999  # 9999-12-31T23:59:59.999999999Z, the last time ISO 8601 writes


@dataclass(frozen=True)
class Span:
    """One span: ids as lower-case hex, times in nanoseconds since the epoch, flat attributes."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    """The status message when the span's status is an error (``""`` without a message)."""
    where: str = field(default="", compare=False)
    """The file and the span's place in it, for messages."""

    @property
    def latency_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


def read_spans(path: str | os.PathLike[str]) -> list[Span]:
    """Every span of the file, in file order; :class:`InputError` naming the file (and the span) when
    the file is not OTLP/JSON or span JSON."""
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=name) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason}", source=name) from None
    spans: list[Span] = []
    for line, value in _json_values(text, name):
        for raw in _raw_spans(value, f"{name}:{line}"):
            spans.append(_span(raw, f"{name}:{line} span {len(spans) + 1}"))
    if not spans:
        raise InputError("no spans: expected OTLP/JSON (resourceSpans) or span objects", source=name)
    return spans


def _json_values(text: str, name: str) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` for each JSON value in ``text`` (one, JSON lines, or one after another)."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg} (line {exc.lineno} column {exc.colno})", source=name) from None
        except RecursionError:
            raise InputError(f"a JSON value from line {line} is nested too deeply to read", source=name) from None
        yield line, value


def _get(data: Mapping[str, Any], camel: str, default: Any = None) -> Any:
    """``data[camel]``, else the snake_case spelling (OTLP/JSON receivers accept both)."""
    if camel in data:
        return data[camel]
    return data.get(_snake(camel), default)


@functools.cache
def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def _raw_spans(value: Any, where: str) -> Iterator[Mapping[str, Any]]:
    """The span objects in one JSON value of the file."""
    if isinstance(value, list):
        for item in value:
            yield from _raw_spans(item, where)
    elif isinstance(value, Mapping) and _get(value, "resourceSpans") is not None:
        for resource in _list(_get(value, "resourceSpans"), where, "resourceSpans"):
            scopes = _get(resource, "scopeSpans") or _get(resource, "instrumentationLibrarySpans") or []
            for scope in _list(scopes, where, "scopeSpans"):
                yield from _list(_get(scope, "spans", []), where, "spans")
    elif isinstance(value, Mapping) and isinstance(value.get("data"), list):
        yield from value["data"]  # Phoenix's REST span list
    elif isinstance(value, Mapping) and ("context" in value or _get(value, "spanId") is not None):
        yield value
    else:
        raise InputError("expected OTLP/JSON (an object with resourceSpans) or span objects (with context or "
                         f"spanId), got {type(value).__name__}", source=where)


def _list(value: Any, where: str, name: str) -> list[Any]:
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise InputError(f"expected a list of objects, got {type(value).__name__}", source=where, field=name)
    return value


def _span(raw: Any, where: str) -> Span:
    if not isinstance(raw, Mapping):
        raise InputError(f"expected a span object, got {type(raw).__name__}", source=where)
    context = raw.get("context") if isinstance(raw.get("context"), Mapping) else {}
    trace_id = _id(context.get("trace_id", _get(raw, "traceId")), 16, where, "traceId")
    span_id = _id(context.get("span_id", _get(raw, "spanId")), 8, where, "spanId")
    parent = _get(raw, "parentSpanId", raw.get("parent_id"))
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise InputError(f"expected a string, got {type(name).__name__}", source=where, field="name")
    where = f"{where} ({name!r}, trace {trace_id}, span {span_id})"
    start = _time(_get(raw, "startTimeUnixNano", raw.get("start_time")), where, "startTimeUnixNano")
    end = _time(_get(raw, "endTimeUnixNano", raw.get("end_time")), where, "endTimeUnixNano")
    return Span(trace_id, span_id, _id(parent, 8, where, "parentSpanId") if parent else None, name, start,
                max(end, start), _attributes(raw.get("attributes"), where), _error(raw), where)


def _id(value: Any, size: int, where: str, name: str) -> str:
    """A trace (16 bytes) or span (8 bytes) id as lower-case hex, from hex (``0x`` optional) or base64."""
    if isinstance(value, str):
        text = value[2:] if value[:2].lower() == "0x" else value
        if len(text) == 2 * size and re.fullmatch(r"[0-9a-fA-F]+", text):
            return text.lower()
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if len(decoded) == size:
            return decoded.hex()
    raise InputError(f"expected a {size}-byte id in hex or base64, got {value!r:.60}", source=where, field=name)


def _time(value: Any, where: str, name: str) -> int:
    """Nanoseconds since the epoch from an integer (or its string) or an ISO 8601 time."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _possible(value, where, name)
    if isinstance(value, str):
        if value.isdigit():
            return _possible(int(value), where, name)
        match = _ISO.match(value)
        if match:
            try:
                stamp = datetime.fromisoformat(match.group(1) + (match.group(3) or "Z").replace("Z", "+00:00"))
            except ValueError as exc:
                raise InputError(f"impossible time {value!r:.60} ({exc})", source=where, field=name) from None
            return calendar.timegm(stamp.utctimetuple()) * 10**9 + int((match.group(2) or "0").ljust(9, "0"))
    raise InputError(f"expected nanoseconds since the epoch or an ISO 8601 time, got {value!r:.60}",
                     source=where, field=name)


def _possible(value: int, where: str, name: str) -> int:
    """``value`` when it is a time between 1970 and the end of year 9999 in nanoseconds."""
    if not 0 <= value <= _MAX_NS:
        raise InputError(f"impossible time {value} (nanoseconds since 1970 up to the year 9999 are possible)",
                         source=where, field=name)
    return value


def _error(raw: Mapping[str, Any]) -> str | None:
    """The status message of a span whose status is an error, else ``None``."""
    status = raw.get("status") if isinstance(raw.get("status"), Mapping) else {}
    code = status.get("code", status.get("status_code", raw.get("status_code")))
    if code not in _ERROR_CODES:
        return None
    message = status.get("message", status.get("description", raw.get("status_message")))
    return message if isinstance(message, str) else ""


def _attributes(raw: Any, where: str, depth: int = 0) -> dict[str, Any]:
    """Flat attributes from OTLP key-values or a (possibly nested) mapping; nested keys joined by dots."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return _flatten(raw, "", where, depth)
    flat: dict[str, Any] = {}
    for item in _list(raw, where, "attributes"):
        key = item.get("key")
        if not isinstance(key, str):
            raise InputError(f"an attribute needs a string key, got {key!r:.40}", source=where, field="attributes")
        flat[key] = _any_value(item.get("value"), where, key, depth)
    return flat


def _flatten(data: Mapping[str, Any], prefix: str, where: str, depth: int) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            _check_depth(depth + 1, where, f"{prefix}{key}")
            flat.update(_flatten(value, f"{prefix}{key}.", where, depth + 1))
        else:
            flat[f"{prefix}{key}"] = _sized(value, where, f"{prefix}{key}")
    return flat


def _any_value(value: Any, where: str, key: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as plain JSON (bytes stay base64 text; an empty value is ``None``)."""
    if not isinstance(value, Mapping):
        raise InputError(f"expected an AnyValue object, got {value!r:.40}", source=where, field=f"attributes {key}")
    for camel, kind in _SCALARS.items():
        raw = _get(value, camel)
        if raw is not None:
            return _sized(_scalar(raw, kind, where, key), where, key)
    array = _get(value, "arrayValue")
    if array is not None:
        _check_depth(depth + 1, where, key)
        return [_any_value(v, where, key, depth + 1)
                for v in _list(_get(array, "values", []), where, f"attributes {key}")]
    kvlist = _get(value, "kvlistValue")
    if kvlist is not None:
        _check_depth(depth + 1, where, key)
        return _attributes(_get(kvlist, "values", []), where, depth + 1)
    return None


def _check_depth(depth: int, where: str, key: str) -> None:
    if depth > MAX_DEPTH:
        raise InputError(f"nested more than {MAX_DEPTH} levels deep", source=where, field=f"attributes {key}")


def _sized(value: Any, where: str, key: str) -> Any:
    """``value``, when it is not a string longer than :data:`MAX_ATTRIBUTE_CHARS`."""
    if isinstance(value, str) and len(value) > MAX_ATTRIBUTE_CHARS:
        raise InputError(f"{len(value)} characters; an attribute may hold at most {MAX_ATTRIBUTE_CHARS}",
                         source=where, field=f"attributes {key}")
    return value


def _scalar(raw: Any, kind: type, where: str, key: str) -> Any:
    if kind is int and isinstance(raw, str) and re.fullmatch(r"-?\d+", raw):
        return int(raw)  # OTLP/JSON writes 64-bit integers as strings
    if kind is float and raw in ("NaN", "Infinity", "-Infinity"):
        return float(raw.replace("Infinity", "inf"))
    if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
        raise InputError(f"expected a {kind.__name__}, got {raw!r:.40}", source=where, field=f"attributes {key}")
    return raw
