"""The OpenTelemetry trace reader on spans made by the real opentelemetry-sdk (and OpenInference's
tracer), written as OTLP/JSON (opentelemetry-exporter-otlp-proto-common's encoder, then protobuf's
MessageToDict) and as the SDK's span JSON (ConsoleSpanExporter), read through ``evalcore evaluate
--traces``. Expected values are derived by hand from the toy agents below."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import evalcore
import pytest
from evalcore.plugin import InputError
from evalcore.testing import run_evalcore

pytest.importorskip("opentelemetry.sdk")
encoder = pytest.importorskip("opentelemetry.exporter.otlp.proto.common.trace_encoder")
json_format = pytest.importorskip("google.protobuf.json_format")

from evalcore_agent.traces import read_traces, trace_source  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

MS = 1_000_000  # nanoseconds
T0 = 1_700_000_000_000 * MS


def _provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _otlp(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """The OTLP/JSON form of ``spans``, as the OTLP exporters encode them."""
    return json_format.MessageToDict(encoder.encode_spans(spans))


# -- a toy agent traced with the GenAI semantic conventions, at fixed times --------------------------

# (task, answer, steps, end ms): a step is ("chat", input tokens, output tokens) or ("tool", name, arguments, result)
WEATHER = ("weather in Paris?", "18 C and sunny", [
    ("chat", 10, 4), ("tool", "search_city", {"q": "Paris"}, {"id": 7}),
    ("chat", 20, 6), ("tool", "get_weather", {"city": "Paris", "unit": "C"}, "18 C, sunny"),
    ("chat", 30, 8)], 1500)
FLIGHT = ("book a flight to Oslo", "no flight found", [
    ("chat", 5, 2), ("tool", "find_flights", {"to": "Oslo", "from": "LHR"}, "[]"),
    ("tool", "find_flights", {"to": "Oslo", "from": "LHR"}, "[]"), ("chat", 7, 3)], 500)


def genai_agent(provider: TracerProvider, task: tuple, start: int) -> str:
    """Runs one toy agent task under ``provider``; each step takes 100 ms. Returns the trace id (hex)."""
    tracer = provider.get_tracer("toy-agent")
    question, answer, steps, end_ms = task
    root = tracer.start_span("invoke_agent toy", start_time=start, attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "toy",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}]),
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}],
                                               "finish_reason": "stop"}])})
    with trace.use_span(root, end_on_exit=False):
        for index, step in enumerate(steps):
            at = start + (index + 1) * 100 * MS
            if step[0] == "chat":
                span = tracer.start_span("chat toy-model", start_time=at, attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.request.model": "toy-model",
                    "gen_ai.usage.input_tokens": step[1], "gen_ai.usage.output_tokens": step[2]})
            else:
                span = tracer.start_span(f"execute_tool {step[1]}", start_time=at, attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": step[1],
                    "gen_ai.tool.call.arguments": json.dumps(step[2]),
                    "gen_ai.tool.call.result": step[3] if isinstance(step[3], str) else json.dumps(step[3])})
            span.end(end_time=at + 50 * MS)
    root.end(end_time=start + end_ms * MS)
    return format(root.get_span_context().trace_id, "032x")


@pytest.fixture
def genai_traces(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """traces.json (OTLP/JSON) with the two toy tasks, and examples.jsonl with their expected calls:
    the weather task keyed by trace id, the flight task by its query."""
    provider, exporter = _provider()
    ids = [genai_agent(provider, WEATHER, T0), genai_agent(provider, FLIGHT, T0 + 10_000 * MS)]
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(_otlp(exporter.get_finished_spans())))
    examples = tmp_path / "examples.jsonl"
    examples.write_text("\n".join(json.dumps(line) for line in [
        {"trace_id": ids[0], "expected_tool_calls": [
            {"name": "search_city", "arguments": {"q": "Paris"}},
            {"name": "get_weather", "arguments": {"city": "Paris", "unit": "F"}}]},
        {"query": "book a flight to Oslo", "expected_tool_calls": [
            {"name": "find_flights", "arguments": {"to": "Oslo", "from": "OSL"}},
            {"name": "book_flight", "arguments": {"flight": "SK 123"}}]},
    ]) + "\n")
    return traces, examples, ids


def cli(tmp_path: Path, *args: str, check: bool = True) -> tuple[dict[str, list[Any]], Any]:
    """``evalcore evaluate ARGS`` in a fresh process: each metric's values in input order (from the rows
    journal), and the process."""
    rows = tmp_path / "rows.jsonl"
    proc = run_evalcore("evaluate", *args, "--samples", str(rows), "--overwrite", check=check)
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    scored = sorted((line for line in lines if "scores" in line), key=lambda line: line["i"])
    metrics = lines[0]["fingerprint"]["metrics"]
    return {m: [row["scores"][m]["value"] for row in scored] for m in metrics}, proc


def test_genai_trace_becomes_one_record(genai_traces):
    traces, examples, ids = genai_traces
    weather, flight = read_traces(traces, examples)
    assert weather["id"] == ids[0] and flight["id"] == ids[1]
    assert weather["example"]["query"] == "weather in Paris?"
    assert weather["example"]["expected_tool_calls"][1]["arguments"]["unit"] == "F"  # joined by trace id
    assert flight["example"]["expected_tool_calls"][1]["name"] == "book_flight"  # joined by query
    prediction = weather["prediction"]
    assert prediction["response"] == "18 C and sunny"
    assert prediction["tool_calls"] == [  # in order; JSON results decoded, text results kept
        {"name": "search_city", "arguments": {"q": "Paris"}, "result": {"id": 7}},
        {"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}, "result": "18 C, sunny"}]
    # 3 chat spans: tokens 10+20+30 in, 4+6+8 out; each 50 ms; the agent span lasts 1500 ms
    assert prediction["usage"] == {"prompt_tokens": 60, "completion_tokens": 18, "total_tokens": 78}
    assert prediction["timings"] == {"end_to_end": 1500.0, "llm": 150.0, "tools": 100.0}
    assert [c["model"] for c in prediction["llm_calls"]] == ["toy-model"] * 3
    assert [(s["kind"], s["name"]) for s in prediction["trajectory"]] == [
        ("agent", "invoke_agent toy"), ("llm", "chat toy-model"), ("tool", "search_city"),
        ("llm", "chat toy-model"), ("tool", "get_weather"), ("llm", "chat toy-model")]
    assert [t["role"] for t in prediction["turns"]] == ["user", "assistant", "tool", "assistant", "tool",
                                                         "assistant", "assistant"]
    assert prediction["turns"][-1] == {"role": "assistant", "content": "18 C and sunny"}
    assert prediction["status"] == "ok"
    # the two identical calls of the flight task stay two calls
    assert [c["name"] for c in flight["prediction"]["tool_calls"]] == ["find_flights", "find_flights"]


def test_agent_metrics_on_traces_through_the_cli(genai_traces):
    traces, examples, _ = genai_traces
    metrics = ["agent/tool_call_correctness", "agent/tool_argument_correctness",
               "agent/trajectory_match(mode='superset', arguments='ignore')", "agent/trajectory_match"]
    values, _ = cli(traces.parent, "--traces", str(traces), "--trace-examples", str(examples),
                    *[a for m in metrics for a in ("-m", m)])
    ids = list(values)
    # tool names: weather 2 of 2 expected tools called; flight: find_flights yes, book_flight no -> 1/2
    assert values[ids[0]] == [1.0, 0.5]
    # arguments (DeepEval's partial credit: agreeing keys / keys of either): weather (1 + 1/2) / 2;
    # flight: find_flights agrees on 'to' only (1/2), book_flight missing (0) -> 1/4
    assert values[ids[1]] == [0.75, 0.25]
    # superset, names only: weather made both expected calls; flight never booked
    assert values[ids[2]] == [1.0, 0.0]
    # exact: the weather task asked for unit F; the flight task differs
    assert values[ids[3]] == [0.0, 0.0]


def test_reader_named_on_the_command_line(genai_traces):
    """``evalcore evaluate traces.json --reader otel`` reads DATA as the reader's --traces file."""
    traces, examples, _ = genai_traces
    named, _ = cli(traces.parent, str(traces), "--reader", "otel", "--trace-examples", str(examples),
                   "-m", "agent/tool_call_correctness")
    assert named == {"agent/tool_call_correctness": [1.0, 0.5]}  # as --traces gives it (above)
    _, proc = cli(traces.parent, str(traces), "--reader", "otle", "-m", "agent/tool_call_correctness", check=False)
    assert proc.returncode != 0 and "no reader named 'otle'" in proc.stderr and "otel" in proc.stderr


def test_system_metrics_read_timings_and_usage(genai_traces):
    pytest.importorskip("evalcore_system")
    traces, _, _ = genai_traces
    values, _ = cli(traces.parent, "--traces", str(traces), "-m", "system/mean_latency",
                    "-m", "system/cost_efficiency(score_value=1.0)")
    # per record the agent span's duration, 1500 and 500 ms (the corpus value is their mean)
    assert values["system/mean_latency"] == [1500.0, 500.0]
    # 1 / total tokens: weather 78, flight 5+2+7+3 = 17
    assert values["system/cost_efficiency(score_value=1.0)"] == [pytest.approx(1 / 78), pytest.approx(1 / 17)]


def test_tool_call_records_feed_the_step_metrics(genai_traces):
    pytest.importorskip("evalcore_outcome")
    traces, _, ids = genai_traces
    result = evalcore.evaluate(trace_source(traces, trace_records="tool_calls"), ["outcome/was_repeated"])
    rows = {row["id"]: row["scores"]["outcome/was_repeated"]["value"] for row in result.samples}
    # the flight task's second find_flights repeats the first, same arguments
    assert rows == {f"{ids[0]}/0": 1.0, f"{ids[0]}/1": 1.0, f"{ids[1]}/0": 1.0, f"{ids[1]}/1": 0.0}
    assert result.metrics["outcome/was_repeated"].value == 0.75


# -- OpenInference: a toy agent traced by openinference-instrumentation's tracer ----------------------

def test_openinference_agent(tmp_path):
    oi = pytest.importorskip("openinference.instrumentation")
    provider, exporter = _provider()
    tracer = oi.OITracer(provider.get_tracer("toy"), config=oi.TraceConfig())

    @tracer.tool
    def get_weather(city: str, unit: str = "C") -> str:
        """Weather of a city."""
        return f"18 {unit} in {city}"

    @tracer.agent
    def agent(question: str) -> str:
        with tracer.start_as_current_span("plan", openinference_span_kind="llm") as span:
            span.set_attributes(oi.get_llm_attributes(
                model_name="toy-model", token_count={"prompt": 12, "completion": 5},
                output_messages=[{"role": "assistant", "content": "Let me look that up."}]))
        return get_weather("Paris")

    assert agent("weather in Paris?") == "18 C in Paris"
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(_otlp(exporter.get_finished_spans())))
    (record,) = read_traces(traces)
    assert record["example"] == {"query": "weather in Paris?"}
    assert record["prediction"]["response"] == "18 C in Paris"
    # OpenInference records a tool's bound arguments (defaults included) as input.value
    assert record["prediction"]["tool_calls"] == [
        {"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}, "result": "18 C in Paris"}]
    assert record["prediction"]["usage"] == {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    assert record["prediction"]["llm_calls"][0]["model"] == "toy-model"
    # the LLM's reply (llm.output_messages) opens the assistant turn that holds the call
    assert record["prediction"]["turns"][1]["content"] == "Let me look that up."
    assert record["prediction"]["turns"][1]["tool_calls"][0]["name"] == "get_weather"
    examples = tmp_path / "examples.jsonl"
    examples.write_text(json.dumps({"query": "weather in Paris?", "expected_tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Paris"}}]}) + "\n")
    values, _ = cli(tmp_path, "--traces", str(traces), "--trace-examples", str(examples),
                    "-m", "agent/tool_call_correctness", "-m", "agent/tool_argument_correctness",
                    "-m", "agent/trajectory_match(arguments='expected_keys')")
    # one expected call, made; its arguments share city of {city, unit} -> 1/2; city is all it asks for
    assert list(values.values()) == [[1.0], [0.5], [1.0]]
    if all(importlib.util.find_spec(name) for name in ("evalcore_outcome", "jsonschema")):
        # tool.parameters (the tool's JSON schema, from its signature) checks the call's arguments
        step, _ = cli(tmp_path, "--traces", str(traces), "--trace-records", "tool_calls",
                      "-m", "outcome/tool_params_schema")
        assert step == {"outcome/tool_params_schema": [1.0]}


# -- encodings -----------------------------------------------------------------------------------------

def test_span_json_and_otlp_json_read_alike(tmp_path):
    """The SDK's span JSON (ConsoleSpanExporter: 0x hex ids, ISO times, one object after another) and
    OTLP/JSON as JSON lines (hex ids, as a Collector's file exporter writes) give the same records."""
    console = io.StringIO()
    provider, exporter = _provider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=console)))
    genai_agent(provider, WEATHER, T0)
    genai_agent(provider, FLIGHT, T0 + 10_000 * MS)
    (tmp_path / "console.json").write_text(console.getvalue())
    lines = []
    for span in exporter.get_finished_spans():  # one export per span, ids in hex
        export = _otlp([span])
        raw = export["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in raw:
                raw[key] = base64.b64decode(raw[key]).hex()
        lines.append(json.dumps(export))
    (tmp_path / "otlp.jsonl").write_text("\n".join(lines + lines[:3]) + "\n")  # 3 spans written twice
    from_console = read_traces(tmp_path / "console.json")
    assert from_console == read_traces(tmp_path / "otlp.jsonl")
    assert [r["prediction"]["timings"]["end_to_end"] for r in from_console] == [1500.0, 500.0]


def test_phoenix_span_export_and_error_status(tmp_path):
    """Phoenix's span list (``{"data": [...]}``, nested attributes, ``status_code`` beside the span) and
    an agent span whose status is an error."""
    provider, exporter = _provider()
    tracer = provider.get_tracer("toy")
    with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT",
                                                           "input.value": "divide 1 by 0"}) as agent:
        with tracer.start_as_current_span("divide", attributes={
                "openinference.span.kind": "TOOL", "tool.name": "divide", "input.value": '{"a": 1, "b": 0}'}) as tool:
            tool.set_status(trace.StatusCode.ERROR, "division by zero")
        agent.set_status(trace.StatusCode.ERROR, "the tool failed")
    data = []
    for span in exporter.get_finished_spans():
        raw = json.loads(span.to_json())
        flat = raw.pop("attributes")
        raw["attributes"] = {"openinference": {"span": {"kind": flat.pop("openinference.span.kind")}}, **flat}
        status = raw.pop("status")
        raw["status_code"], raw["status_message"] = status["status_code"], status.get("description", "")
        data.append(raw)
    path = tmp_path / "phoenix.json"
    path.write_text(json.dumps({"data": data, "next_cursor": None}))
    (record,) = read_traces(path)
    prediction = record["prediction"]
    assert record["example"]["query"] == "divide 1 by 0" and prediction["response"] is None
    assert prediction["tool_calls"] == [{"name": "divide", "arguments": {"a": 1, "b": 0}, "result": None}]
    assert prediction["status"] == "error"
    assert [(s["name"], s.get("error")) for s in prediction["trajectory"]] == [
        ("agent", "the tool failed"), ("divide", "division by zero")]


# -- bad input -----------------------------------------------------------------------------------------

def test_bad_files_are_named(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [')
    with pytest.raises(InputError, match=r"broken\.json: not JSON"):
        read_traces(broken)
    no_id = tmp_path / "no_id.json"
    no_id.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"spanId": "00f067aa0ba902b7", "name": "agent", "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]}))
    with pytest.raises(InputError, match=r"no_id\.json:1 span 1: traceId: expected a 16-byte id"):
        read_traces(no_id)
    proc = run_evalcore("evaluate", "--traces", str(broken), "-m", "agent/tool_call_correctness", check=False)
    assert proc.returncode != 0 and "broken.json: not JSON" in proc.stderr


def test_a_bad_trace_is_rejected_alone(genai_traces, tmp_path):
    traces, _, ids = genai_traces
    export = json.loads(traces.read_text())
    for span in export["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        if span["name"] == "chat toy-model" and base64.b64decode(span["traceId"]).hex() == ids[1]:
            for attribute in span["attributes"]:
                if attribute["key"] == "gen_ai.usage.input_tokens":
                    attribute["value"] = {"stringValue": "many"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(export))
    values, proc = cli(tmp_path, "--traces", str(bad), "-m", "system/mean_latency", check=False)
    assert proc.returncode == 1  # a rejected record; the other trace is still scored
    assert f"trace {ids[1]}" in proc.stderr and "gen_ai.usage.input_tokens" in proc.stderr
    assert values == {"system/mean_latency": [1500.0]}  # one row: the weather trace's agent span, 1500 ms


def test_one_span_id_on_two_spans_rejects_the_trace(genai_traces, tmp_path):
    traces, _, ids = genai_traces
    export = json.loads(traces.read_text())
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans.append({**spans[0], "name": "another"})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(export))
    with pytest.raises(InputError, match=r"bad\.json trace [0-9a-f]{32}: span [0-9a-f]{16} appears twice with"):
        read_traces(bad)


def test_examples_file_errors(genai_traces, tmp_path):
    traces, _, _ = genai_traces
    examples = tmp_path / "examples.jsonl"
    examples.write_text('{"query": "a"}\n{"expected_tool_calls": []}\n')
    with pytest.raises(InputError, match=r"examples\.jsonl:2: query: an example needs a trace_id or a query"):
        read_traces(traces, examples)
    examples.write_text('{"query": "a"}\n{"query": "a"}\n')
    with pytest.raises(InputError, match="a second example for the same query"):
        read_traces(traces, examples)
    with pytest.raises(InputError, match="expected one of traces, tool_calls"):
        read_traces(traces, records="spans")
