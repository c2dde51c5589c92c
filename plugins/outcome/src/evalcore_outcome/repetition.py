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


def tool_call(record: Record, role: str) -> tuple[Any, Any, list[str]]:
    """``(tool, params, notes)`` of a tool call, missing fields read as the dsrs code's
    ``unwrap_or`` defaults (``null``), each noted for the feedback."""
    notes = []
    tool = record.get("tool")
    if tool is None:
        notes.append(f"{role}.tool is missing (read as null)")
    params = record.get("params")
    if "params" not in record:
        notes.append(f"{role}.params is missing (read as null)")
    return tool, params, notes


def history_calls(example: Record) -> tuple[list[Any], list[str]]:
    """``example.execution_history`` as a list of calls; anything but a list reads as empty,
    as the dsrs code's ``as_array().unwrap_or(empty)`` does, with a note."""
    history = example.get("execution_history")
    if history is None:
        return [], []
    if not isinstance(history, Sequence) or isinstance(history, (str, bytes)):
        return [], [f"example.execution_history is a {type(history).__name__}, not a list (read as empty)"]
    return list(history), []


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
        tool, params, notes = tool_call(prediction, "prediction")
        history, history_notes = history_calls(example)
        notes += history_notes
        current = _hash(tool, params, "prediction.params")
        for index, previous in enumerate(history):
            if not isinstance(previous, Mapping):
                notes.append(f"example.execution_history[{index}] is not a tool call object (read as null)")
                previous = {}
            if _hash(previous.get("tool"), previous.get("params"), f"example.execution_history[{index}]") == current:
                return Score(0.0, feedback="; ".join([f"repeats step {index} ({tool})", *notes]),
                             details={"was_repeated": True, "first_index": index, "hash": current},
                             confidence=1.0)
        return Score(1.0, feedback="; ".join(notes) or None, details={"was_repeated": False, "hash": current},
                     confidence=1.0)
