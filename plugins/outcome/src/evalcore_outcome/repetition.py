"""``was_repeated``: the same tool with the same params earlier in the execution history."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score


def canonical_hash(tool: Any, params: Any) -> str:
    """SHA-256 of ``{"tool": tool, "params": params}`` as canonical JSON (sorted keys, no spaces).

    Key order and whitespace never matter; ``1`` and ``1.0`` hash alike, as JSON values.
    """
    text = json.dumps(
        {"tool": tool, "params": _canonical(params)}, sort_keys=True, separators=(",", ":"),
        ensure_ascii=False, allow_nan=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def tool_call(record: Record, role: str) -> tuple[str, Any]:
    """``(tool, params)`` of a tool call; both fields are required."""
    tool = record.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError(f"expected a tool name, got {tool!r}", field=f"{role}.tool")
    if "params" not in record:
        raise InputError("the tool call has no params", field=f"{role}.params")
    return tool, record["params"]


def _hash(tool: Any, params: Any, field: str) -> str:
    """:func:`canonical_hash`, with params that are not plain finite JSON an input error of ``field``."""
    try:
        return canonical_hash(tool, params)
    except RecursionError:
        raise InputError("the params are nested too deeply", field=field) from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"the params are not plain JSON: {exc}", field=field) from None


class WasRepeated(SampleMetric):
    """1.0 when the call is new, 0.0 when the same tool and params appear in the history."""

    def score(self, example: Record, prediction: Record) -> Score:
        tool, params = tool_call(prediction, "prediction")
        history = example.get("execution_history", [])
        if not isinstance(history, Sequence) or isinstance(history, (str, bytes)):
            raise InputError(f"expected a list of tool calls, got {type(history).__name__}",
                             field="example.execution_history")
        current = _hash(tool, params, "prediction.params")
        for index, previous in enumerate(history):
            if not isinstance(previous, Mapping):
                raise InputError(f"expected a tool call object, got {previous!r:.60}",
                                 field=f"example.execution_history[{index}]")
            if _hash(previous.get("tool"), previous.get("params"), f"example.execution_history[{index}]") == current:
                return Score(0.0, feedback=f"repeats step {index} ({tool})",
                             details={"was_repeated": True, "first_index": index, "hash": current})
        return Score(1.0, details={"was_repeated": False, "hash": current})
