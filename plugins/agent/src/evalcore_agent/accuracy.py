"""ragas' ToolCallAccuracy score: the calls made against the expected ones in sequence, each scored
by the share of its expected arguments given with the same value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .calls import ToolCall

Fold = Callable[[str], str]


def argument_accuracy(made: Mapping[str, Any], expected: Mapping[str, Any], fold: Fold = str) -> float:
    """ragas' argument score: 1 when neither gives arguments, 0 when only the call does, else the
    share of the expected arguments the call gives with the same text (values compared as ``str``)."""
    if not expected and not made:
        return 1.0
    if not expected:
        return 0.0
    agreeing = sum(1.0 for key in expected if key in made and fold(str(made[key])) == fold(str(expected[key])))
    return agreeing / len(expected)


def tool_call_accuracy(expected: Sequence[ToolCall], made: Sequence[ToolCall], ordered: bool,
                       fold: Fold = str) -> tuple[float, bool]:
    """ragas' ToolCallAccuracy score and whether the tools called follow the expected ones (see the
    metric's description); ``fold`` is applied to names and value texts before they are compared."""
    if not made and not expected:
        return 1.0, True
    if not made or not expected:
        return 0.0, False
    if not ordered:  # ragas' sort key: the name, then each argument name and value text, by argument name
        def key(call: ToolCall) -> tuple[str, ...]:
            return (fold(call.name), *(part for name in sorted(call.arguments)
                                       for part in (name, fold(str(call.arguments[name])))))
        made, expected = sorted(made, key=key), sorted(expected, key=key)
    names_made, names_expected = [fold(c.name) for c in made], [fold(c.name) for c in expected]
    aligned = names_made == names_expected if ordered else sorted(names_made) == sorted(names_expected)
    total = sum(argument_accuracy(call.arguments, wanted.arguments, fold)
                for wanted, call in zip(expected, made) if fold(wanted.name) == fold(call.name))
    score = total / len(expected)
    compared = min(len(made), len(expected))
    if compared < len(expected):
        score *= compared / len(expected)
    return score * int(aligned), aligned
