"""Spans into traces: a trace is complete when its root span (no parent) has arrived, or after a timeout."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["Trace", "Assembler"]

log = logging.getLogger("evalcore.watch")

_ERROR = (2, "STATUS_CODE_ERROR", "ERROR")
_TRACE_ID, _SPAN_ID = re.compile("[0-9a-f]{32}"), re.compile("[0-9a-f]{16}")  # 16 and 8 bytes in hex


@attrs.define
class Trace:
    """The spans of one trace as OTLP/JSON ``resourceSpans`` entries (one per span), with what rules look at."""

    trace_id: str
    entries: list[dict[str, Any]] = attrs.field(factory=list)
    attributes: dict[str, Any] = attrs.field(factory=dict)
    error: bool = False
    has_root: bool = False
    last_seen: float = 0.0

    def add(self, resource: dict[str, Any], scope: dict[str, Any], span: dict[str, Any], now: float) -> None:
        self.entries.append({"resource": resource, "scopeSpans": [{"scope": scope, "spans": [span]}]})
        for source in (resource.get("attributes") or [], span.get("attributes") or []):
            self.attributes.update({a.get("key"): _value(a.get("value") or {}) for a in source})
        self.error = self.error or (span.get("status") or {}).get("code") in _ERROR
        self.has_root = self.has_root or not span.get("parentSpanId")
        self.last_seen = now

    def to_otlp(self) -> dict[str, Any]:
        """The trace as one OTLP/JSON line the trace reader reads."""
        return {"resourceSpans": self.entries}

    @property
    def n_spans(self) -> int:
        return len(self.entries)


def _value(value: dict[str, Any]) -> Any:
    """A plain value of an OTLP ``AnyValue`` (scalars; arrays and maps as lists and dicts)."""
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_value(v) for v in value["arrayValue"].get("values") or []]
    if "kvlistValue" in value:
        return {kv.get("key"): _value(kv.get("value") or {}) for kv in value["kvlistValue"].get("values") or []}
    return None


class Assembler:
    """Collects spans by trace id and hands each trace to ``complete`` once: when its root span has
    arrived, or ``timeout_s`` after its last span without one (logged)."""

    def __init__(self, complete: Callable[[Trace], None], timeout_s: float = 30.0,
                 skip: Callable[[str], bool] = lambda _: False) -> None:
        self.complete, self.timeout_s, self.skip = complete, timeout_s, skip
        self.open: dict[str, Trace] = {}

    @property
    def pending_spans(self) -> int:
        return sum(t.n_spans for t in self.open.values())

    def add(self, request: dict[str, Any], now: float | None = None) -> int:
        """Adds the spans of one OTLP/JSON request; hands on the traces it completes. Returns the
        number of spans rejected (without a valid hex ``traceId`` and ``spanId``)."""
        now = time.monotonic() if now is None else now
        touched: dict[str, Trace] = {}
        rejected = 0
        for resource_spans in request.get("resourceSpans") or []:
            resource = resource_spans.get("resource") or {}
            for scope_spans in resource_spans.get("scopeSpans") or []:
                scope = scope_spans.get("scope") or {}
                for span in scope_spans.get("spans") or []:
                    trace_id = str(span.get("traceId", "")).lower()
                    if not (_TRACE_ID.fullmatch(trace_id) and _SPAN_ID.fullmatch(str(span.get("spanId", "")).lower())):
                        rejected += 1
                        continue
                    if self.skip(trace_id):
                        continue
                    trace = self.open.setdefault(trace_id, Trace(trace_id))
                    trace.add(resource, scope, span, now)
                    touched[trace_id] = trace
        for trace_id, trace in touched.items():
            if trace.has_root:
                self.complete(self.open.pop(trace_id))
        return rejected

    def expire(self, now: float | None = None) -> int:
        """Completes the traces without a root span for ``timeout_s``; how many."""
        now = time.monotonic() if now is None else now
        late = [t for t in self.open.values() if now - t.last_seen >= self.timeout_s]
        for trace in late:
            log.warning("trace %s: no root span %.0f s after its last span; scored with the %d spans received",
                        trace.trace_id, self.timeout_s, trace.n_spans)
            self.complete(self.open.pop(trace.trace_id))
        return len(late)
