"""An agent's run as the agent judges read it: ragas' rendering of a multi-turn sample (``Human:``,
``AI:``, ``Tools:`` with each call's name and arguments, ``ToolOutput:``), the calls it made and
the user's input."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import InputError, Record, SkipSample, inputs

SPEAKERS = {"user": "Human", "human": "Human", "assistant": "AI", "ai": "AI", "tool": "ToolOutput",
            "system": "System", "developer": "System"}
"""How each role is named in the rendering (ragas' names; other roles as they are)."""


def listed(record: Record, role: str, field: str) -> list[Any]:
    """``record[field]`` as a list (``[]`` when absent); anything else is an error naming ``role.field``."""
    found = record.get(field)
    if found is None:
        return []
    if not isinstance(found, list):
        raise InputError(f"expected a list, got {type(found).__name__}", field=f"{role}.{field}")
    return found


def text_of(value: Any) -> str:
    """A turn's content as text (``""`` for none)."""
    return "" if value is None else value if isinstance(value, str) else str(value)


def _arguments(call: Any, where: str) -> dict[str, Any]:
    """A call's arguments (``{}`` when not given); a call without a name, or arguments that are not a
    mapping, are an error naming ``where``."""
    if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
        raise InputError("expected a tool call {name, arguments, result?}", field=where)
    arguments = call.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise InputError(f"the arguments must be a mapping, got {type(arguments).__name__}", field=f"{where}.arguments")
    return dict(arguments or {})


def _call_lines(calls: Any, where: str) -> list[str]:
    if not isinstance(calls, list):
        raise InputError(f"expected a list of tool calls, got {type(calls).__name__}", field=where)
    lines = ["Tools:"]
    for index, call in enumerate(calls):
        arguments = _arguments(call, f"{where}[{index}]")
        lines.append(f"  {call['name']}: {arguments}")
    return lines


def _turn_lines(turn: Any, where: str) -> list[str]:
    if not isinstance(turn, Mapping) or not isinstance(turn.get("role"), str):
        raise InputError("expected a turn {role, content, tool_calls?}", field=where)
    speaker = SPEAKERS.get(turn["role"], turn["role"])
    content = text_of(turn.get("content"))
    if speaker != "AI":
        return [f"{speaker}: {content}"]
    lines = [f"AI: {content}"] if content != "" else []
    if turn.get("tool_calls") is not None:
        lines += _call_lines(turn["tool_calls"], f"{where}.tool_calls")
    return lines


def run_calls(prediction: Record) -> list[Any]:
    """The calls the agent made, as the record gives them: ``prediction.tool_calls``, else the
    ``tool_calls`` of ``prediction.turns`` in order."""
    if prediction.get("tool_calls") is not None:
        return listed(prediction, "prediction", "tool_calls")
    calls: list[Any] = []
    for index, turn in enumerate(listed(prediction, "prediction", "turns")):
        made = turn.get("tool_calls") if isinstance(turn, Mapping) else None
        if made is not None:
            if not isinstance(made, list):
                raise InputError(f"expected a list of tool calls, got {type(made).__name__}",
                                 field=f"prediction.turns[{index}].tool_calls")
            calls.extend(made)
    return calls


def transcript(example: Record, prediction: Record) -> str:
    """The run as ragas' ``MultiTurnSample.pretty_repr`` shows it (see the module docstring);
    nothing to read skips the sample."""
    lines: list[str] = []
    for role, record in (("example", example), ("prediction", prediction)):
        for index, turn in enumerate(listed(record, role, "turns")):
            lines += _turn_lines(turn, f"{role}.turns[{index}]")
    if lines:
        return "\n".join(lines)
    query = inputs.targets(example, "query", blank="skip")[0]
    calls = listed(prediction, "prediction", "tool_calls")
    response = inputs.response(prediction)
    if not response.strip() and not calls:
        raise SkipSample("no turns, no response and no tool calls to judge")
    lines = [f"Human: {query}"]
    if calls:
        lines += _call_lines(calls, "prediction.tool_calls")
        lines += [f"ToolOutput: {text_of(call.get('result'))}" for call in calls if "result" in call]
    if response != "":
        lines.append(f"AI: {response}")
    return "\n".join(lines)


def user_input(example: Record, prediction: Record) -> str:
    """The user's input: ``example.query``, else the first user turn (of ``example.turns`` then
    ``prediction.turns``)."""
    if example.get("query") is not None:
        return inputs.targets(example, "query", blank="skip")[0]
    for turn in [*listed(example, "example", "turns"), *listed(prediction, "prediction", "turns")]:
        if isinstance(turn, Mapping) and turn.get("role") in ("user", "human"):
            return text_of(turn.get("content"))
    raise SkipSample("example.query is missing and no turn is the user's")


def shown_calls(calls: list[Any]) -> str:
    """Calls as the judge reads them: a JSON list."""
    return json.dumps(calls, ensure_ascii=False, indent=1)


_ROLES = {"ai": "assistant", "human": "user"}


def _call_xml(call: Any, where: str) -> str:
    arguments = json.dumps(_arguments(call, where), ensure_ascii=False)
    return f"<tool_call>\n<name>{call['name']}</name>\n<arguments>{arguments}</arguments>\n</tool_call>"


def _message_xml(turn: Any, where: str) -> str:
    if not isinstance(turn, Mapping) or not isinstance(turn.get("role"), str):
        raise InputError("expected a turn {role, content, tool_calls?}", field=where)
    role = _ROLES.get(turn["role"], turn["role"])
    content = text_of(turn.get("content"))
    calls = turn.get("tool_calls") or []
    if not isinstance(calls, list):
        raise InputError(f"expected a list of tool calls, got {type(calls).__name__}", field=f"{where}.tool_calls")
    if calls:
        shown = "\n".join(_call_xml(call, f"{where}.tool_calls[{i}]") for i, call in enumerate(calls))
        content = f"{content}\n{shown}" if content else shown
    if turn.get("tool_call_id"):
        content = f"<tool_result>\n<id>{turn['tool_call_id']}</id>\n<content>{content}</content>\n</tool_result>"
    return f"<{role}>\n{content}\n</{role}>"


def trajectory_xml(value: Any, where: str) -> str:
    """Turns, or calls (each its own assistant message), as openevals writes a trajectory for its judge:
    ``<role>`` blocks holding the content, ``<tool_call>`` (name, JSON arguments) and ``<tool_result>``."""
    if not isinstance(value, list):
        raise InputError(f"expected a list of turns or tool calls, got {type(value).__name__}", field=where)
    turns = value if all(isinstance(t, Mapping) and "role" in t for t in value) else [
        {"role": "assistant", "content": "", "tool_calls": [call]} for call in value]
    return "\n\n".join(_message_xml(turn, f"{where}[{i}]") for i, turn in enumerate(turns))
