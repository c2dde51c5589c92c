"""``agent/no_loop``: finding calls an agent repeats back to back, alone or as a cycle."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evalcore.plugin import InputError, Record, SampleMetric, Score

from .calls import ToolCall, calls_made
from .matching import json_equal, same_name


@dataclass(frozen=True)
class Loop:
    """``cycle`` calls from index ``start`` made ``repeats`` times in a row."""

    start: int
    cycle: int
    repeats: int

    @property
    def extra_calls(self) -> int:
        """The calls after the first round of the cycle."""
        return self.cycle * (self.repeats - 1)


def _repeats(calls: Sequence[ToolCall], start: int, cycle: int, same: Callable[[ToolCall, ToolCall], bool]) -> int:
    """How many times the ``cycle`` calls from ``start`` come back to back (1: only once)."""
    repeats = 1
    while start + (repeats + 1) * cycle <= len(calls) and all(
            same(calls[start + i], calls[start + repeats * cycle + i]) for i in range(cycle)):
        repeats += 1
    return repeats


def _loop_at(calls: Sequence[ToolCall], start: int, k: int, max_cycle: int,
             same: Callable[[ToolCall, ToolCall], bool]) -> Loop | None:
    """The shortest cycle of at most ``max_cycle`` calls from ``start`` repeated ``k`` times or more."""
    for cycle in range(1, max_cycle + 1):
        if start + k * cycle > len(calls):
            return None
        repeats = _repeats(calls, start, cycle, same)
        if repeats >= k:
            return Loop(start, cycle, repeats)
    return None


def find_loops(calls: Sequence[ToolCall], k: int, max_cycle: int,
               same: Callable[[ToolCall, ToolCall], bool]) -> list[Loop]:
    """The loops of ``calls``, scanning from the left: at each index the shortest cycle of at most
    ``max_cycle`` calls repeated at least ``k`` times in a row is a loop, and the scan goes on after
    its last repeat; an index starting no loop moves the scan on by one call."""
    loops: list[Loop] = []
    start = 0
    while start < len(calls):
        loop = _loop_at(calls, start, k, max_cycle, same)
        if loop is None:
            start += 1
        else:
            loops.append(loop)
            start += loop.cycle * loop.repeats
    return loops


class NoLoop(SampleMetric):
    """1.0 when the calls made hold no loop, 0.0 when they do."""

    def setup(self) -> None:
        self.k: int = self.params["k"]
        self.max_cycle: int = self.params["max_cycle"]
        self.field: str | None = self.params["field"]
        ignore_case: bool = self.params["ignore_case"]
        with_arguments = self.params["arguments"] == "exact"

        def same(a: ToolCall, b: ToolCall) -> bool:
            return same_name(a.name, b.name, ignore_case) and (
                not with_arguments or json_equal(a.arguments, b.arguments, ignore_case))

        self.same = same

    def score(self, example: Record, prediction: Record) -> Score:
        calls, source = calls_made(prediction, self.field)
        try:
            loops = find_loops(calls, self.k, self.max_cycle, self.same)
        except RecursionError:
            raise InputError("the tool calls are nested too deeply to compare", field=source) from None
        found = [{"start": loop.start, "cycle": loop.cycle, "repeats": loop.repeats,
                  "calls": [call.brief() for call in calls[loop.start:loop.start + loop.cycle]]} for loop in loops]
        details = {"called": len(calls), "loops": found, "extra_calls": sum(loop.extra_calls for loop in loops),
                   "calls_from": source}
        if not loops:
            return Score(1.0, feedback=f"no call or cycle of up to {self.max_cycle} calls repeated {self.k} times "
                                       "in a row", details=details)
        first = found[0]
        head = (f"{' → '.join(first['calls'])} made {first['repeats']} times in a row from call {first['start']}"
                + (f"; {len(loops) - 1} more loops" if len(loops) > 1 else ""))
        return Score(0.0, feedback=head, details=details)
