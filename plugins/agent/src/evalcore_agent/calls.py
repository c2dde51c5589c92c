"""Reading tool calls from records: ``{name, arguments, result?}``, flat or inside conversation turns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalcore.plugin import InputError, SkipSample, get_path


@dataclass(frozen=True)
class ToolCall:
    """One tool call: its name, its arguments (a mapping, ``{}`` when not given) and its result."""

    name: str
    arguments: Mapping[str, Any]
    result: Any = None
    where: str = ""
    """The field the call was read from, e.g. ``prediction.turns[2].tool_calls[0]``."""

    def brief(self, limit: int = 80) -> str:
        """``name(key=value, ...)`` for feedback, cut at ``limit`` characters."""
        inner = ", ".join(f"{key}={value!r}" for key, value in self.arguments.items())
        text = f"{self.name}({inner})"
        return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _looks_like_turns(items: Sequence[Any]) -> bool:
    return bool(items) and all(isinstance(item, Mapping) and "role" in item and "name" not in item for item in items)


def parse_call(value: Any, where: str) -> ToolCall:
    """One call from its record form; :class:`InputError` naming ``where`` when it is malformed."""
    if not isinstance(value, Mapping):
        raise InputError(f"expected a tool call object {{name, arguments, result?}}, got {type(value).__name__}",
                         field=where)
    name = value.get("name")
    if name is None:
        raise InputError("a tool call needs a name", field=f"{where}.name")
    if not isinstance(name, str) or not name:
        raise InputError(f"a tool name must be a non-empty string, got {name!r:.60}", field=f"{where}.name")
    arguments = value.get("arguments")
    if arguments is None:
        arguments = {}
    elif not isinstance(arguments, Mapping):
        raise InputError(f"the arguments must be a mapping, got {type(arguments).__name__}",
                         field=f"{where}.arguments")
    return ToolCall(name, arguments, value.get("result"), where)


def parse_calls(value: Any, where: str) -> list[ToolCall]:
    """A list of calls in record form."""
    if not _is_list(value):
        raise InputError(f"expected a list of tool calls, got {type(value).__name__}", field=where)
    return [parse_call(item, f"{where}[{index}]") for index, item in enumerate(value)]


def parse_turns(value: Any, where: str) -> list[ToolCall]:
    """The calls of a conversation, in order: each turn's ``tool_calls`` (turns without any add none)."""
    if not _is_list(value):
        raise InputError(f"expected a list of conversation turns, got {type(value).__name__}", field=where)
    calls: list[ToolCall] = []
    for index, turn in enumerate(value):
        if not isinstance(turn, Mapping):
            raise InputError(f"expected a turn object {{role, content, tool_calls?}}, got {type(turn).__name__}",
                             field=f"{where}[{index}]")
        made = turn.get("tool_calls")
        if made is not None:
            calls.extend(parse_calls(made, f"{where}[{index}].tool_calls"))
    return calls


def parse_calls_or_turns(value: Any, where: str) -> list[ToolCall]:
    """Calls from a list of calls, or from a list of turns (items with a ``role`` and no ``name``)."""
    if _is_list(value) and _looks_like_turns(value):
        return parse_turns(value, where)
    return parse_calls(value, where)


def calls_made(prediction: Mapping[str, Any], field: str | None) -> tuple[list[ToolCall], str]:
    """The calls of the prediction and the field they came from.

    With ``field`` the value at that dotted path (a list of calls or of turns); otherwise
    ``prediction.tool_calls``, else the ``tool_calls`` of ``prediction.turns``. A prediction
    without any of them (or with ``null``) made no calls.
    """
    if field is not None:
        value = get_path(prediction, field, None)
        where = f"prediction.{field}"
        return ([] if value is None else parse_calls_or_turns(value, where)), where
    if prediction.get("tool_calls") is not None:
        return parse_calls(prediction["tool_calls"], "prediction.tool_calls"), "prediction.tool_calls"
    if prediction.get("turns") is not None:
        return parse_turns(prediction["turns"], "prediction.turns"), "prediction.turns"
    return [], "prediction.tool_calls"


ROLE_ALIASES = {"ai": "assistant", "human": "user"}
"""Role names read as their OpenAI names (as LangChain's message conversion does)."""


@dataclass(frozen=True)
class Message:
    """One message of a trajectory: its role and its tool calls (empty when it made none)."""

    role: str
    calls: tuple[ToolCall, ...]


def parse_messages(value: Any, where: str) -> tuple[list[Message], bool]:
    """The messages of a list of turns, or of a list of calls (each call its own assistant message).

    Returns the messages and whether ``value`` was a list of turns.
    """
    if not (_is_list(value) and _looks_like_turns(value)):
        return [Message("assistant", (call,)) for call in parse_calls(value, where)], False
    messages: list[Message] = []
    for index, turn in enumerate(value):
        role = turn["role"]
        if not isinstance(role, str) or not role:
            raise InputError(f"a role must be a non-empty string, got {role!r:.60}", field=f"{where}[{index}].role")
        made = turn.get("tool_calls")
        calls = () if made is None else tuple(parse_calls(made, f"{where}[{index}].tool_calls"))
        messages.append(Message(ROLE_ALIASES.get(role, role), calls))
    return messages, True


def messages_made(prediction: Mapping[str, Any], field: str | None) -> tuple[list[Message], bool, str]:
    """The prediction's messages (``field``, else ``turns``, else ``tool_calls``), whether they are
    turns, and the field they came from."""
    if field is None:
        field = "turns" if prediction.get("turns") is not None else "tool_calls"
    value = get_path(prediction, field, None)
    where = f"prediction.{field}"
    if value is None:
        return [], False, where
    return (*parse_messages(value, where), where)


def calls_expected(example: Mapping[str, Any], field: str) -> list[ToolCall]:
    """The expected calls at ``field`` in the example; the sample is skipped when there are none given."""
    value = get_path(example, field, None)
    if value is None:
        raise SkipSample(f"example.{field} is missing")
    return parse_calls_or_turns(value, f"example.{field}")
