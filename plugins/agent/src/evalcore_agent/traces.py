"""OpenTelemetry traces of agent runs as evalcore records (the ``--traces`` reader).

Each trace becomes one record: the task (the input of the agent span, else of the root span) is
``example.query``; the prediction holds the final answer (``response``), the tool calls in order
(``tool_calls``, ``{name, arguments, result}``), the conversation (``turns``), the LLM calls with
their prompt, reply, token usage and latency (``llm_calls``), the summed ``usage`` (and ``cost`` when recorded),
``timings`` in milliseconds, the ``trajectory`` of every span, and ``status``. With
``records="tool_calls"`` each tool call is a record instead (``prediction.tool`` / ``params`` and
``example.execution_history``, the step records of the outcome metrics).

Span roles follow the OpenInference conventions (``openinference.span.kind`` AGENT / CHAIN / LLM /
TOOL, ``input.value``, ``output.value``, ``tool.name``, ``llm.token_count.*``, ``llm.model_name``)
and the OpenTelemetry GenAI conventions (``gen_ai.operation.name`` invoke_agent / chat / execute_tool,
``gen_ai.tool.name``, ``gen_ai.tool.call.arguments`` / ``result``, ``gen_ai.usage.input_tokens`` /
``output_tokens``, ``gen_ai.request.model``, ``gen_ai.input.messages`` / ``output.messages``).
Expected values are not in a trace: an examples file (JSON lines, each keyed by ``trace_id`` or by
``query``, the task) adds its other fields to the example of the trace it matches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalcore import Record
from evalcore.plugin import Chunk, InputError, file_fingerprint, iter_jsonl

from ._spans import Span, read_spans

__all__ = ["RECORDS", "TraceSource", "read_traces", "trace_source"]

RECORDS = ("traces", "tool_calls")
"""What one record is: a whole trace, or one tool call of a trace."""

_KIND = "openinference.span.kind"
_OPERATIONS = {"chat": "llm", "text_completion": "llm", "generate_content": "llm", "execute_tool": "tool",
               "invoke_agent": "agent", "create_agent": "agent", "invoke_workflow": "chain"}


def trace_source(traces: str | os.PathLike[str], trace_examples: str | None = None,
                 trace_records: str | None = None) -> TraceSource:
    """The reader of ``evalcore evaluate --traces FILE [--trace-examples FILE] [--trace-records R]``."""
    return TraceSource(traces, trace_examples, trace_records or "traces")


def read_traces(traces: str | os.PathLike[str], examples: str | os.PathLike[str] | None = None,
                records: str = "traces") -> list[dict[str, Any]]:
    """The records of a trace file, as dicts ``{id, example, prediction}``; a trace that cannot be read
    raises its :class:`~evalcore.plugin.InputError`."""
    found = []
    for item in TraceSource(traces, examples, records).items():
        if isinstance(item, InputError):
            raise item
        found.append(item)
    return found


class TraceSource:
    """The traces of an OpenTelemetry trace file (OTLP/JSON or span JSON) as evalcore records."""

    def __init__(self, traces: str | os.PathLike[str], examples: str | os.PathLike[str] | None = None,
                 records: str = "traces") -> None:
        if records not in RECORDS:
            raise InputError(f"expected one of {', '.join(RECORDS)}, got {records!r}", field="--trace-records")
        self.path = Path(os.fspath(traces))
        self.examples_path = Path(os.fspath(examples)) if examples is not None else None
        self.records = records
        self.name = os.fspath(traces)
        self._traces: dict[str, list[Span]] | None = None

    @property
    def traces(self) -> dict[str, list[Span]]:
        """Spans by trace id, traces in the order their first span appears in the file."""
        if self._traces is None:
            grouped: dict[str, list[Span]] = {}
            for span in read_spans(self.path):
                grouped.setdefault(span.trace_id, []).append(span)
            self._traces = grouped
        return self._traces

    def inputs(self) -> list[Path]:
        return [p for p in (self.path, self.examples_path) if p is not None]

    def fingerprint(self) -> dict[str, Any]:
        return {"traces": file_fingerprint(self.path), "records": self.records,
                "examples": file_fingerprint(self.examples_path) if self.examples_path else None}

    def total(self) -> int | None:
        return len(self.traces) if self.records == "traces" else None

    def items(self) -> Iterator[dict[str, Any] | InputError]:
        """Each record as a dict, or the error of a trace that cannot be read, in file order."""
        examples = _Examples(self.examples_path)
        for trace_id, spans in self.traces.items():
            try:
                trace = _Trace(trace_id, spans, f"{self.name} trace {trace_id}")
                example = examples.find(trace_id, trace.task)
                if trace.task is not None:
                    example = {"query": trace.task, **example}
                yield from (trace.record(example) if self.records == "traces" else trace.steps(example))
            except InputError as exc:
                yield exc

    def chunks(self, size: int) -> Iterator[Chunk]:
        index, records, positions, errors = 0, [], [], []
        for position, item in enumerate(self.items()):
            if isinstance(item, InputError):
                errors.append(item)
            else:
                records.append(Record(item["id"], {**item["example"], "id": item["id"]}, item["prediction"],
                                      f"{self.name} trace {item['trace_id']}"))
                positions.append(position)
            if len(records) + len(errors) >= size:
                yield Chunk(index, records, positions, errors)
                index, records, positions, errors = index + 1, [], [], []
        if records or errors:
            yield Chunk(index, records, positions, errors)


class _Examples:
    """Example fields joined onto traces: JSON lines keyed by ``trace_id``, else by ``query``."""

    def __init__(self, path: Path | None) -> None:
        self.by_trace: dict[str, dict[str, Any]] = {}
        self.by_query: dict[str, dict[str, Any]] = {}
        for source, _, value in iter_jsonl(path) if path is not None else ():
            if isinstance(value, InputError):
                raise value
            if not isinstance(value, dict):
                raise InputError(f"expected an object, got {type(value).__name__}", source=source)
            key = value.get("trace_id")
            table, field = (self.by_trace, "trace_id") if key is not None else (self.by_query, "query")
            key = value.get(field)
            if not isinstance(key, str) or not key:
                raise InputError("an example needs a trace_id or a query (a non-empty string) to match a trace",
                                 source=source, field=field)
            if field == "trace_id":
                key = key.lower().removeprefix("0x")
            if key in table:
                raise InputError(f"a second example for the same {field} {key!r:.60}", source=source, field=field)
            table[key] = {k: v for k, v in value.items() if k != "trace_id"}

    def find(self, trace_id: str, task: str | None) -> dict[str, Any]:
        found = self.by_trace.get(trace_id)
        if found is None and task is not None:
            found = self.by_query.get(task)
        return dict(found or {})


def _kind(span: Span) -> str:
    """``agent``, ``chain``, ``llm``, ``tool``, another OpenInference kind in lower case, or ``span``."""
    kind = span.attributes.get(_KIND)
    if isinstance(kind, str) and kind:
        return kind.lower()
    return _OPERATIONS.get(str(span.attributes.get("gen_ai.operation.name")), "span")


class _Trace:
    """One trace's spans, ordered by start time, with its task span."""

    def __init__(self, trace_id: str, spans: list[Span], where: str) -> None:
        self.id, self.where = trace_id, where
        by_id: dict[str, Span] = {}
        for span in spans:
            if span.span_id in by_id and by_id[span.span_id] != span:
                raise InputError(f"span {span.span_id} appears twice with different contents", source=where)
            by_id[span.span_id] = span
        spans = list(by_id.values())  # a span exported twice (an exporter's retry) counts once
        depth: dict[str, int] = {}

        def depth_of(span: Span) -> int:
            seen, current, steps = set(), span, 0
            while current.parent_id in by_id and current.span_id not in depth:
                if current.span_id in seen:
                    raise InputError(f"span {span.span_id} is its own ancestor", source=where)
                seen.add(current.span_id)
                current, steps = by_id[current.parent_id], steps + 1  # type: ignore[index]
            return steps + depth.get(current.span_id, 0)

        for span in spans:
            depth[span.span_id] = depth_of(span)
        self.spans = sorted(spans, key=lambda s: (s.start_ns, depth[s.span_id]))
        roots = [s for s in self.spans if depth[s.span_id] == 0]
        agents = [s for s in self.spans if _kind(s) == "agent"]
        self.task_span = min(agents, key=lambda s: depth[s.span_id]) if agents else roots[0]
        candidates = (self.task_span, roots[0])
        self.task = next((t for t in (_text(s, "input") for s in candidates) if t is not None), None)
        self.answer = next((t for t in (_text(s, "output") for s in candidates) if t is not None), None)
        self.calls = [_tool_call(s) for s in self.spans if _kind(s) == "tool"]
        self.llm = [_llm_call(s, self.where) for s in self.spans if _kind(s) == "llm"]

    def record(self, example: dict[str, Any]) -> Iterator[dict[str, Any]]:
        start = min(s.start_ns for s in self.spans)
        prediction: dict[str, Any] = {
            "response": self.answer, "tool_calls": [c["call"] for c in self.calls], "turns": self._turns(),
            "llm_calls": [{k: v for k, v in c.items() if k != "start_ns" and v is not None} for c in self.llm],
            "timings": {"end_to_end": (max(s.end_ns for s in self.spans) - start) / 1e6,
                        "llm": sum(c["latency_ms"] for c in self.llm),
                        "tools": sum(c["latency_ms"] for c in self.calls)},
            "trajectory": [_step(s, start) for s in self.spans],
            "status": "error" if self.task_span.error is not None else "ok",
        }
        usage = _usage([c["usage"] for c in self.llm if c.get("usage")]) \
            or _usage([u for u in [_tokens(self.task_span, self.where)] if u])
        if usage:
            prediction["usage"] = usage
        costs = [c["cost"] for c in self.llm if "cost" in c]
        if costs:
            prediction["cost"] = sum(costs)
        yield {"id": self.id, "trace_id": self.id, "example": example, "prediction": prediction}

    def steps(self, example: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """One record per tool call: the call, the calls before it, and the tools' schemas."""
        schemas = {c["call"]["name"]: c["schema"] for c in self.calls if c.get("schema") is not None}
        for index, call in enumerate(self.calls):
            history = [{"tool": c["call"]["name"], "params": c["call"]["arguments"]} for c in self.calls[:index]]
            step_example = {**example, "execution_history": history}
            if schemas:
                step_example.setdefault("tool_schemas", schemas)
            yield {"id": f"{self.id}/{index}", "trace_id": self.id, "example": step_example, "prediction": {
                "tool": call["call"]["name"], "params": call["call"]["arguments"], "result": call["call"]["result"],
                "timings": {"end_to_end": call["latency_ms"]},
                "status": "error" if call["error"] is not None else "ok",
            }}

    def _turns(self) -> list[dict[str, Any]]:
        """The user's task, then for each LLM call an assistant turn with the tool calls that follow it
        (before the next LLM call) and a tool turn per result, then the final answer."""
        turns: list[dict[str, Any]] = [{"role": "user", "content": self.task or ""}]
        events = sorted([(c["start_ns"], 0, c) for c in self.llm] + [(c["start_ns"], 1, c) for c in self.calls],
                        key=lambda e: (e[0], e[1]))
        assistant: dict[str, Any] | None = None
        results: list[dict[str, Any]] = []
        for _, is_tool, event in events:
            if not is_tool or assistant is None:
                turns.extend(results)
                results = []
                assistant = {"role": "assistant", "content": "" if is_tool else event.get("output") or ""}
                turns.append(assistant)
            if is_tool:
                assistant.setdefault("tool_calls", []).append(event["call"])
                results.append({"role": "tool", "content": _content(event["call"]["result"])})
        turns.extend(results)
        last = turns[-1]
        if self.answer is not None and not (last["role"] == "assistant" and not last.get("tool_calls")
                                            and last["content"] == self.answer):
            turns.append({"role": "assistant", "content": self.answer})
        return turns


def _step(span: Span, start: int) -> dict[str, Any]:
    """One span of the trajectory: its kind, name, start offset and latency (ms), and error."""
    step = {"kind": _kind(span), "name": span.attributes.get("tool.name") or span.attributes.get(
        "gen_ai.tool.name") or span.name, "start_ms": (span.start_ns - start) / 1e6, "latency_ms": span.latency_ms}
    if span.error is not None:
        step["error"] = span.error
    return step


def _content(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else json.dumps(value, ensure_ascii=False)


def _text(span: Span, side: str) -> str | None:
    """The input or output text of a span: OpenInference ``input.value`` / ``output.value``, else the
    text parts of the last user (input) or assistant (output) message in ``gen_ai.input.messages`` /
    ``gen_ai.output.messages``."""
    value = span.attributes.get(f"{side}.value")
    if value is not None:
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    messages = _json(span.attributes.get(f"gen_ai.{side}.messages"))
    if not isinstance(messages, list):
        return None
    role = "user" if side == "input" else "assistant"
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == role:
            content = message.get("content")
            if isinstance(content, str):
                return content
            parts = message.get("parts")
            if isinstance(parts, list):
                texts = [p["content"] for p in parts if isinstance(p, Mapping) and p.get("type") == "text"
                         and isinstance(p.get("content"), str)]
                if texts:
                    return "\n".join(texts)
    return None


def _message_text(attributes: Mapping[str, Any], prefix: str) -> str | None:
    """The content of the last message with text in OpenInference's flattened
    ``llm.output_messages.<i>.message.content`` (an LLM span's reply, where ``output.value`` often
    holds the provider's raw response)."""
    found: dict[int, str] = {}
    for key, value in attributes.items():
        index, _, rest = key.removeprefix(f"{prefix}.").partition(".")
        if key.startswith(f"{prefix}.") and rest == "message.content" and index.isdigit() and isinstance(value, str):
            found[int(index)] = value
    return found[max(found)] if found else None


def _json(value: Any) -> Any:
    """``value`` decoded when it is a string holding a JSON object or array, else as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to read: the text itself
            return value
    return value


def _tool_call(span: Span) -> dict[str, Any]:
    """A tool span as ``{name, arguments, result}`` with its timing and the tool's schema."""
    attributes = span.attributes
    name = attributes.get("tool.name") or attributes.get("gen_ai.tool.name") or span.name
    raw = attributes.get("gen_ai.tool.call.arguments", attributes.get("input.value"))
    arguments = _json(raw)
    if raw is None:
        arguments = {}
    elif not isinstance(arguments, Mapping):
        arguments = {"input": arguments}  # a tool called with one plain value
    result = _json(attributes.get("gen_ai.tool.call.result", attributes.get("output.value")))
    schema = _json(attributes.get("tool.parameters"))
    return {"call": {"name": str(name), "arguments": dict(arguments), "result": result},
            "schema": schema if isinstance(schema, Mapping) else None,
            "start_ns": span.start_ns, "latency_ms": span.latency_ms, "error": span.error}


def _count(span: Span, key: str, where: str) -> int | None:
    value = span.attributes.get(key)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"expected a token count (an integer >= 0), got {value!r:.40}", source=where,
                         field=f"span {span.span_id} ({span.name!r}) attribute {key}")
    return value


def _tokens(span: Span, where: str) -> dict[str, int] | None:
    """``{prompt_tokens, completion_tokens, total_tokens}`` of a span, from either convention."""
    prompt = _count(span, "llm.token_count.prompt", where)
    if prompt is None:
        prompt = _count(span, "gen_ai.usage.input_tokens", where)
    completion = _count(span, "llm.token_count.completion", where)
    if completion is None:
        completion = _count(span, "gen_ai.usage.output_tokens", where)
    total = _count(span, "llm.token_count.total", where)
    if prompt is None and completion is None and total is None:
        return None
    if total is None:
        total = (prompt or 0) + (completion or 0)
    return {"prompt_tokens": prompt or 0, "completion_tokens": completion or 0, "total_tokens": total}


def _usage(usages: Sequence[Mapping[str, int]]) -> dict[str, int] | None:
    if not usages:
        return None
    return {key: sum(u[key] for u in usages) for key in ("prompt_tokens", "completion_tokens", "total_tokens")}


def _llm_call(span: Span, where: str) -> dict[str, Any]:
    """An LLM span: model, token usage, latency, prompt and output text, and cost (OpenInference ``llm.cost.total``)."""
    attributes = span.attributes
    call: dict[str, Any] = {
        "name": span.name,
        "model": attributes.get("llm.model_name") or attributes.get("gen_ai.response.model")
        or attributes.get("gen_ai.request.model"),
        "latency_ms": span.latency_ms, "start_ns": span.start_ns,
        "input": _message_text(attributes, "llm.input_messages") or _text(span, "input"),
        "output": _message_text(attributes, "llm.output_messages") or _text(span, "output"),
    }
    usage = _tokens(span, where)
    if usage:
        call["usage"] = usage
    cost = attributes.get("llm.cost.total")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        call["cost"] = float(cost)
    if span.error is not None:
        call["error"] = span.error
    return call
