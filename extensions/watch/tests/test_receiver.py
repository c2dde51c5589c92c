"""The OTLP/HTTP receiver in process: protobuf and JSON (gzip) requests from the OpenTelemetry SDK's
own encoder and exporter, the answers the OTLP/HTTP specification asks for, 429 with Retry-After when
the queue is full (and the exporter's retry getting through once it drains), and traces without a
root span scored after the timeout."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading
from pathlib import Path

import pytest
from aiohttp import ClientSession
from evalcore.plugin import InputError
from evalcore_watch import Rule, Watch, WatchConfig
from evalcore_watch.otlp import decompress
from google.protobuf.json_format import MessageToDict
from google.rpc.status_pb2 import Status
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def _spans(n: int, answer: str = "Monday", root: bool = True) -> list:
    """``n`` traces of an agent span with a tool span under it, as the SDK records them."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("t")
    for i in range(n):
        with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT",
                                                               "input.value": f"q{i}", "output.value": answer}):
            with tracer.start_as_current_span("tool", attributes={"openinference.span.kind": "TOOL"}):
                pass
    spans = memory.get_finished_spans()
    return [s for s in spans if s.parent is not None] if not root else list(spans)


def _watch(tmp_path: Path, **settings) -> Watch:
    return Watch(WatchConfig(rules=[Rule("all", ["checks/format"])], store=str(tmp_path / "store"),
                             host="127.0.0.1", port=0, batch_wait_s=0.05, **settings))


async def _serving(watch: Watch):
    from aiohttp import web

    runner = watch.runner()
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    return runner, f"http://127.0.0.1:{port}/v1/traces"


def _rows(store: Path) -> list[dict]:
    return [json.loads(line) for rows in sorted(store.glob("runs/*/*/*.rows.jsonl"))
            for line in rows.read_text().splitlines() if '"scores"' in line]


def test_protobuf_and_gzip_json_requests_are_scored_and_answered_in_kind(tmp_path: Path) -> None:
    proto_spans, json_spans = _spans(3), _spans(2, answer="")
    proto = encode_spans(proto_spans).SerializeToString()
    as_json = MessageToDict(encode_spans(json_spans))  # then ids to hex, as OTLP/JSON writes them
    for rs in as_json["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        import base64

                        span[key] = base64.b64decode(span[key]).hex()

    async def scenario() -> list:
        watch = _watch(tmp_path)
        runner, url = await _serving(watch)
        loop = asyncio.create_task(watch.score_loop())
        answers, refused = [], []
        async with ClientSession() as session:
            async with session.post(url, data=proto, headers={"Content-Type": "application/x-protobuf"}) as r:
                answers.append((r.status, r.headers["Content-Type"], await r.read()))
            async with session.post(url, data=gzip.compress(json.dumps(as_json).encode()),
                                    headers={"Content-Type": "application/json", "Content-Encoding": "gzip"}) as r:
                answers.append((r.status, r.headers["Content-Type"], await r.read()))
            async with session.post(url, data=b"not otlp", headers={"Content-Type": "application/json"}) as r:
                answers.append((r.status, r.headers["Content-Type"], await r.read()))
            async with session.post(url, data=b"\xff\xff not otlp",
                                    headers={"Content-Type": "application/x-protobuf"}) as r:
                answers.append((r.status, r.headers["Content-Type"], await r.read()))
            async with session.post(url, data=b"not gzip", headers={"Content-Type": "application/json",
                                                                    "Content-Encoding": "gzip"}) as r:
                refused.append((r.status, r.headers["Content-Type"], await r.read()))
            async with session.post(url, data=proto, headers={"Content-Type": "text/plain"}) as r:
                refused.append((r.status, r.headers["Content-Type"], await r.read()))
            bad = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "xyz", "spanId": "01" * 8}]}]}]}
            async with session.post(url, json=bad) as r:
                answers.append((r.status, r.headers["Content-Type"], await r.read()))
        for _ in range(100):
            if len(_rows(tmp_path / "store")) == 5:
                break
            await asyncio.sleep(0.05)
        loop.cancel()
        await runner.cleanup()
        return answers, refused

    answers, refused = asyncio.run(scenario())
    status, kind, body = answers[0]
    assert (status, kind) == (200, "application/x-protobuf")
    assert ExportTraceServiceResponse.FromString(body) == ExportTraceServiceResponse()
    assert answers[1][:2] == (200, "application/json") and json.loads(answers[1][2]) == {}
    # a refused request is answered with a google.rpc.Status in its own encoding (OTLP/HTTP's failure answer);
    # code 3 is google.rpc.Code INVALID_ARGUMENT
    assert answers[2][:2] == (400, "application/json")
    assert set(json.loads(answers[2][2])) == {"code", "message"} and json.loads(answers[2][2])["code"] == 3
    assert json.loads(answers[2][2])["message"].startswith("body: not JSON: Expecting value")
    assert answers[3][:2] == (400, "application/x-protobuf")
    status = Status.FromString(answers[3][2])
    assert status.code == 3 and status.message.startswith("body: not an ExportTraceServiceRequest")
    assert refused[0][:2] == (400, "application/json")
    assert json.loads(refused[0][2])["message"].startswith("body: not gzip data")
    assert refused[1][:2] == (415, "application/x-protobuf")  # neither encoding: the protobuf Status
    assert Status.FromString(refused[1][2]) == Status(code=3, message=(
        "Content-Type: expected application/x-protobuf or application/json, got 'text/plain'"))
    assert answers[4][0] == 200 and json.loads(answers[4][2]) == {"partialSuccess": {
        "rejectedSpans": "1", "errorMessage": "1 spans without a valid traceId and spanId (hex)"}}
    values = {row["id"]: row["scores"]["checks/format"]["value"] for row in _rows(tmp_path / "store")}
    expected = {format(s.context.trace_id, "032x"): 1.0 for s in proto_spans}
    expected |= {format(s.context.trace_id, "032x"): 0.0 for s in json_spans}  # the empty answers
    assert values == expected


def test_a_gzip_body_is_refused_beyond_the_limit_cut_short_or_in_another_encoding() -> None:
    data = json.dumps({"resourceSpans": []}).encode() * 100
    assert decompress(gzip.compress(data), "gzip", len(data)) == data
    assert decompress(data, None, 10) == data  # not compressed: the HTTP server's own limit applies
    failures = [(gzip.compress(data), "gzip", len(data) - 1), (gzip.compress(data)[:-12], "gzip", len(data)),
                (data, "br", len(data))]
    messages = []
    for body, encoding, limit in failures:
        with pytest.raises(InputError) as caught:
            decompress(body, encoding, limit)
        messages.append(str(caught.value))
    assert messages == [f"body: more than {len(data) - 1} bytes once decompressed", "body: gzip data cut short",
                        "Content-Encoding: expected gzip or none, got 'br'"]


def test_a_full_queue_answers_429_and_the_exporter_gets_through_after_it_drains(tmp_path: Path) -> None:
    first, second = _spans(4), _spans(4)

    async def scenario() -> tuple:
        watch = _watch(tmp_path, max_queue_spans=8, retry_after_s=1)
        runner, url = await _serving(watch)
        async with ClientSession() as session:  # fills the queue (nothing scores yet)
            async with session.post(url, data=encode_spans(first).SerializeToString(),
                                    headers={"Content-Type": "application/x-protobuf"}) as r:
                assert r.status == 200
            async with session.post(url, data=encode_spans(second).SerializeToString(),
                                    headers={"Content-Type": "application/x-protobuf"}) as r:
                full = (r.status, r.headers.get("Retry-After"), Status.FromString(await r.read()))
            async with session.post(url, json=MessageToDict(encode_spans(second))) as r:
                full_json = (r.status, r.headers["Content-Type"], json.loads(await r.read()))
        exported: list = []
        exporter = OTLPSpanExporter(endpoint=url, timeout=20)
        thread = threading.Thread(target=lambda: exported.append(exporter.export(second)))
        thread.start()
        await asyncio.sleep(0.5)  # the exporter has been answered 429 and waits Retry-After
        refused_while_full = not exported
        loop = asyncio.create_task(watch.score_loop())
        while thread.is_alive():
            await asyncio.sleep(0.05)
        for _ in range(100):
            if len(_rows(tmp_path / "store")) == 8:
                break
            await asyncio.sleep(0.05)
        loop.cancel()
        await runner.cleanup()
        return full, full_json, refused_while_full, exported

    full, full_json, refused_while_full, exported = asyncio.run(scenario())
    # code 8 is google.rpc.Code RESOURCE_EXHAUSTED
    assert full == (429, "1", Status(code=8, message="queue full (8 spans), retry later"))
    assert full_json == (429, "application/json", {"code": 8, "message": "queue full (8 spans), retry later"})
    assert refused_while_full
    assert exported == [SpanExportResult.SUCCESS]
    assert len({row["id"] for row in _rows(tmp_path / "store")}) == 8


def test_a_trace_without_its_root_span_is_scored_after_the_timeout_and_logged(tmp_path: Path, caplog,
                                                                              monkeypatch) -> None:
    orphans = _spans(1, root=False)
    # a library configured by an earlier test (logging.config with disable_existing_loggers) may have
    # switched the logger off: the message is what is tested here
    monkeypatch.setattr(logging.getLogger("evalcore.watch"), "disabled", False)
    monkeypatch.setattr(logging.getLogger("evalcore.watch"), "propagate", True)

    async def scenario() -> None:
        watch = _watch(tmp_path, trace_timeout_s=1.0)  # a margin over a busy machine's 0.1 s
        runner, url = await _serving(watch)
        loop = asyncio.create_task(watch.score_loop())
        async with ClientSession() as session:
            async with session.post(url, data=encode_spans(orphans).SerializeToString(),
                                    headers={"Content-Type": "application/x-protobuf"}) as r:
                assert r.status == 200
        await asyncio.sleep(0.1)
        assert not _rows(tmp_path / "store")  # still waiting for the root span
        for _ in range(600):  # scored once the timeout has passed: up to 30 s on a busy machine
            if _rows(tmp_path / "store"):
                break
            await asyncio.sleep(0.05)
        loop.cancel()
        await runner.cleanup()

    with caplog.at_level(logging.WARNING, logger="evalcore.watch"):
        asyncio.run(scenario())
    trace_id = format(orphans[0].context.trace_id, "032x")
    assert [row["id"] for row in _rows(tmp_path / "store")] == [trace_id]
    assert f"trace {trace_id}: no root span" in caplog.text
