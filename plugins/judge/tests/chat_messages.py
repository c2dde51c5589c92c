"""Reading the chat requests a scripted judge receives, shared by the judge tests."""

from __future__ import annotations

from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """A chat message's text, whether its content is a string or a list of parts."""
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def after_last(text: str, before: str, after: str) -> str:
    """The text between the last ``before`` and the ``after`` that follows it."""
    return text.rsplit(before, 1)[1].split(after, 1)[0]
