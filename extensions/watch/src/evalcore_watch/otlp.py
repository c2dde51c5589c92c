"""OTLP/HTTP trace requests: decoding bodies (protobuf or JSON) and the answers."""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any

from evalcore.plugin import InputError

if TYPE_CHECKING:
    from google.protobuf.message import Message

__all__ = ["PROTOBUF", "JSON", "decode_request", "decompress", "encode_response", "encode_status", "media_type",
           "spans_of"]

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


def media_type(content_type: str) -> str:
    """The media type of a Content-Type header, without parameters, in lower case."""
    return content_type.split(";")[0].strip().lower()


def decompress(body: bytes, encoding: str | None, limit: int) -> bytes:
    """The body of a request sent with Content-Encoding ``encoding`` (gzip, or none as OTLP/HTTP allows),
    refused beyond ``limit`` bytes once decompressed."""
    encoding = (encoding or "identity").strip().lower()
    if encoding == "identity":
        return body
    if encoding != "gzip":
        raise InputError(f"expected gzip or none, got {encoding!r}", field="Content-Encoding")
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = inflate.decompress(body, limit + 1)
    except zlib.error as exc:
        raise InputError(f"not gzip data ({exc})", field="body") from None
    if len(data) > limit:
        raise InputError(f"more than {limit} bytes once decompressed", field="body")
    if not inflate.eof:
        raise InputError("gzip data cut short", field="body")
    return data


def decode_request(body: bytes, content_type: str) -> dict[str, Any]:
    """The OTLP/JSON form (``{"resourceSpans": [...]}``, ids in hex) of an export request body
    (already decompressed, see :func:`decompress`)."""
    kind = media_type(content_type)
    if kind == PROTOBUF:
        return _from_protobuf(body)
    if kind == JSON:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(f"not JSON: {exc}", field="body") from None
        if not isinstance(data, dict) or not isinstance(data.get("resourceSpans", []), list):
            raise InputError("expected an OTLP/JSON ExportTraceServiceRequest (resourceSpans)", field="body")
        return data
    raise InputError(f"expected {PROTOBUF} or {JSON}, got {content_type!r}", field="Content-Type")


def _from_protobuf(body: bytes) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except DecodeError as exc:
        raise InputError(f"not an ExportTraceServiceRequest: {exc}", field="body") from None
    data = MessageToDict(request)
    for span in spans_of(data):  # OTLP/JSON writes ids in hex, protobuf's JSON mapping in base64
        for key in ("traceId", "spanId", "parentSpanId"):
            if span.get(key):
                span[key] = _hex(span[key])
    return data


def _hex(value: str) -> str:
    import base64

    return base64.b64decode(value).hex()


def spans_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span of an OTLP/JSON request, in order."""
    return [span for resource in data.get("resourceSpans") or [] for scope in resource.get("scopeSpans") or []
            for span in scope.get("spans") or []]


def encode_response(content_type: str, rejected: int = 0, message: str = "") -> tuple[bytes, str]:
    """The body and content type of an ExportTraceServiceResponse (partial success when ``rejected``)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    response = ExportTraceServiceResponse()
    if rejected or message:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = message
    return _encode(response, content_type)


def encode_status(content_type: str, code: int, message: str) -> tuple[bytes, str]:
    """The body and content type of a refused request's answer: a ``google.rpc.Status`` (``code`` a
    ``google.rpc.Code``), in the request's encoding, as OTLP/HTTP asks of every 4xx and 5xx answer."""
    from google.rpc.status_pb2 import Status

    return _encode(Status(code=code, message=message), content_type)


def _encode(message: Message, content_type: str) -> tuple[bytes, str]:
    """``message`` as JSON for a JSON request, else as protobuf."""
    if media_type(content_type) == JSON:
        from google.protobuf.json_format import MessageToDict

        return json.dumps(MessageToDict(message)).encode(), JSON
    return message.SerializeToString(), PROTOBUF
