"""What a judged run costs, as the scripted server bills it: calls, tokens and cost per record.

Shared by ``bench_pairwise.py`` and ``bench_batch.py``. A :class:`Meter` answers each chat request
and bills it as every tool sees it: four characters a token (evalcore's own estimate, the same
for every tool), prompt and answer, priced at evalcore's default price (``DEFAULT_PRICE``:
100 msats per 1000 prompt tokens, 500 per 1000 completion tokens); a batch call at the batch rate.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evalcore_http.prices import BATCH_RATE, DEFAULT_PRICE, Usage, estimate_tokens

HEADER = f"{'tool':<12}{'mode':<22}{'calls/record':>13}{'prompt tok/record':>19}{'answer tok/record':>19}" \
         f"{'msats/record':>14}"


def message_text(content: str | Sequence[Mapping[str, Any]] | None) -> str:
    """A message's text: a string, or OpenAI's list of content parts (DeepEval's async calls send one)."""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or () if isinstance(part, Mapping))


@dataclass(frozen=True)
class Tally:
    """Calls and tokens the server answered over some stretch of a run."""

    calls: int
    prompt_tokens: int
    completion_tokens: int

    def cost_msats(self, rate: float = 1.0) -> float:
        """The calls' cost at ``DEFAULT_PRICE`` times ``rate`` (``BATCH_RATE`` for a batch)."""
        return rate * (self.prompt_tokens * DEFAULT_PRICE.prompt
                       + self.completion_tokens * DEFAULT_PRICE.completion) / 1000

    def row(self, tool: str, mode: str, records: int, cost_msats: float | None = None) -> str:
        """One line of the table under :data:`HEADER`: per record; ``cost_msats`` what the run itself
        reported, else the calls priced at the full rate."""
        cost = self.cost_msats() if cost_msats is None else cost_msats
        return (f"{tool:<12}{mode:<22}{self.calls / records:>13.2f}{self.prompt_tokens / records:>19.0f}"
                f"{self.completion_tokens / records:>19.0f}{cost / records:>14.1f}")


class Meter:
    """Answers a chat-completions body with ``answer(body)`` (the message's text) and bills the call:
    returns the text and its usage, and keeps the usage for :meth:`since`."""

    def __init__(self, answer: Callable[[dict[str, Any]], str]) -> None:
        self.answer = answer
        self.usages: list[Usage] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> tuple[str, dict[str, int]]:
        text = self.answer(body)
        prompt = "\n".join(message_text(m.get("content")) for m in body["messages"])
        usage = Usage(estimate_tokens(prompt), estimate_tokens(text))
        with self._lock:
            self.usages.append(usage)
        return text, {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}

    def mark(self) -> int:
        """Where the calls stand now, for :meth:`since`."""
        return len(self.usages)

    def since(self, mark: int) -> Tally:
        """The calls answered since ``mark``."""
        done = self.usages[mark:]
        return Tally(len(done), sum(u.prompt_tokens for u in done), sum(u.completion_tokens for u in done))


__all__ = ["BATCH_RATE", "HEADER", "Meter", "Tally", "message_text"]
