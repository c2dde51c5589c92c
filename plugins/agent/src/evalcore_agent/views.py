"""The report's view of a trace record: its task, final answer, tool calls and LLM calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalcore.plugin import RecordView

__all__ = ["EXCERPT", "trace_view"]

EXCERPT = 500
"""Characters of a prompt or reply shown in the LLM calls' table (the record keeps the rest)."""


def trace_view(record: Any) -> RecordView:
    """What the trace reader (``--reader otel``) put in ``record``: task, answer, tool calls, LLM calls."""
    prediction = record.prediction
    sections: list[dict[str, Any]] = [
        {"heading": "Task", "text": record.example.get("query") or "–"},
        {"heading": "Final answer", "text": prediction.get("response") or "–"},
    ]
    calls = [c for c in prediction.get("tool_calls") or () if isinstance(c, Mapping)]
    sections.append({"heading": f"Tool calls ({len(calls)})", "columns": ["#", "tool", "arguments", "result"],
                     "rows": [[n, c.get("name"), c.get("arguments"), c.get("result")]
                              for n, c in enumerate(calls, 1)]} if calls else
                    {"heading": "Tool calls (0)", "text": "no tool was called"})
    llm = [c for c in prediction.get("llm_calls") or () if isinstance(c, Mapping)]
    if llm:
        sections.append({"heading": f"LLM calls ({len(llm)})",
                         "columns": ["#", "model", "prompt", "response", "tokens", "latency (ms)"],
                         "rows": [[n, c.get("model"), _excerpt(c.get("input")), _excerpt(c.get("output")),
                                   _tokens(c.get("usage")), c.get("latency_ms")] for n, c in enumerate(llm, 1)]})
    status = prediction.get("status")
    title = "Agent trace" + (f" (status: {status})" if status and status != "ok" else "")
    return RecordView(title=title, sections=sections)


def _excerpt(text: Any) -> str | None:
    if not isinstance(text, str):
        return text
    return text if len(text) <= EXCERPT else text[:EXCERPT] + " …"


def _tokens(usage: Any) -> str | None:
    if not isinstance(usage, Mapping):
        return None
    return f"{usage.get('prompt_tokens', 0)} prompt + {usage.get('completion_tokens', 0)} completion"
