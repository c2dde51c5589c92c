"""``agent/tool_call_correctness``, ``agent/tool_argument_correctness``, ``agent/trajectory_match`` and
``agent/tool_call_accuracy``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample, get_path

from .accuracy import Fold, tool_call_accuracy
from .calls import Message, ToolCall, calls_expected, calls_made, messages_made, parse_messages
from .matching import (
    ARGUMENT_MODES,
    ArgumentRule,
    CallComparer,
    Pairs,
    greedy_pairs,
    in_order,
    optimal_pairs,
    score_matrix,
    weighted_lcs,
)

_LISTED = 10  # calls named in details and feedback, at most


class _CallsMetric(SampleMetric):
    """Reads the calls made and the expected calls; subclasses compare them."""

    #: argument modes this metric accepts in ``arguments_by_tool``
    argument_modes: tuple[str, ...] = ARGUMENT_MODES

    def setup(self) -> None:
        params = self.params
        self.field: str | None = params["field"]
        self.expected_field: str = params["expected_field"]
        self.mode: str = params["mode"]
        self.comparer = CallComparer(
            params.get("arguments", "ignore"),
            self._arguments_by_tool(params.get("arguments_by_tool")),
            ignore_case=params["ignore_case"],
            compare_results=params.get("compare_results", False),
        )

    def _arguments_by_tool(self, value: Mapping[str, Any] | None) -> dict[str, ArgumentRule]:
        rules: dict[str, ArgumentRule] = {}
        for name, rule in (value or {}).items():
            if not isinstance(name, str) or not name:
                raise self.parameter_error("arguments_by_tool", f"tool names must be non-empty strings; got {name!r}")
            if isinstance(rule, str):
                if rule not in self.argument_modes:
                    raise self.parameter_error(
                        "arguments_by_tool",
                        f"the rule for {name!r} must be one of {', '.join(map(repr, self.argument_modes))} "
                        f"or a list of argument paths; got {rule!r}")
                rules[name] = rule
            elif isinstance(rule, (list, tuple)) and rule and all(isinstance(p, str) and p for p in rule):
                rules[name] = tuple(rule)
            else:
                raise self.parameter_error(
                    "arguments_by_tool", f"the rule for {name!r} must be a mode or a non-empty list of argument paths; "
                                         f"got {rule!r:.60}")
        return rules

    def read(self, example: Record, prediction: Record) -> tuple[list[ToolCall], list[ToolCall], str]:
        expected = calls_expected(example, self.expected_field)
        made, source = calls_made(prediction, self.field)
        return expected, made, source

    def score(self, example: Record, prediction: Record) -> Score:
        expected, made, source = self.read(example, prediction)
        try:
            return self.compare(expected, made, source)
        except RecursionError:
            raise InputError("the tool calls are nested too deeply to compare", field=source) from None

    def compare(self, expected: list[ToolCall], made: list[ToolCall], source: str) -> Score:
        raise NotImplementedError


def _names(calls: Sequence[ToolCall]) -> list[str]:
    return [call.brief() for call in calls[:_LISTED]] + ([f"… {len(calls) - _LISTED} more"]
                                                         if len(calls) > _LISTED else [])


def _unpaired(expected: Sequence[ToolCall], made: Sequence[ToolCall], pairs: Pairs) -> tuple[list[ToolCall], ...]:
    used = set(pairs.values())
    return ([call for i, call in enumerate(expected) if i not in pairs],
            [call for j, call in enumerate(made) if j not in used])


def _feedback(head: str, missing: Sequence[ToolCall], extra: Sequence[ToolCall]) -> str:
    parts = [head]
    if missing:
        parts.append("missing: " + ", ".join(_names(missing)))
    if extra:
        parts.append("not expected: " + ", ".join(_names(extra)))
    return "; ".join(parts)


class ToolCallCorrectness(_CallsMetric):
    """DeepEval's ToolCorrectnessMetric score (names, optionally arguments and results)."""

    def setup(self) -> None:
        super().setup()
        self.matching: str = self.params["matching"]
        self.count_repeats: bool = self.params["count_repeats"]

    def compare(self, expected: list[ToolCall], made: list[ToolCall], source: str) -> Score:
        considered = made if self.count_repeats or self.mode != "unordered" else self.comparer.distinct(made)
        scores = score_matrix(expected, considered, self.comparer.score)
        total = 0.0
        if self.mode == "exact":
            pairs = {i: i for i in range(min(len(expected), len(considered))) if scores[i][i] == 1.0}
            value = 1.0 if len(expected) == len(considered) == len(pairs) else 0.0
            total = float(len(pairs))
        else:
            if self.mode == "ordered":
                total, path = weighted_lcs(scores)
                pairs = dict(path)
            else:
                pairs = greedy_pairs(scores) if self.matching == "greedy" else optimal_pairs(scores)
                for row in sorted(pairs):
                    total += scores[row][pairs[row]]
            if not expected:
                value = 1.0 if not considered else 0.0
            else:
                value = total / len(expected)
        missing, extra = _unpaired(expected, considered, pairs)
        partial = sorted(i for i, j in pairs.items() if scores[i][j] < 1.0)
        head = (f"{len(pairs) - len(partial)} of {len(expected)} expected calls matched"
                + (f", {len(partial)} in part" if partial else ""))
        details = {"mode": self.mode, "expected": len(expected), "called": len(made), "paired": len(pairs),
                   "matched_score": total, "missing": _names(missing), "not_expected": _names(extra),
                   "calls_from": source}
        if len(considered) != len(made):
            details["distinct_calls"] = len(considered)
        return Score(value, feedback=_feedback(head, missing, extra), details=details)


class ToolArgumentCorrectness(ToolCallCorrectness):
    """DeepEval's ToolCorrectnessMetric score with the arguments compared (its ``input_parameters``)."""


class TrajectoryMatch(_CallsMetric):
    """agentevals' trajectory match: 1.0 when the calls made match the expected ones under ``mode``."""

    argument_modes = ("exact", "expected_keys", "actual_keys", "ignore")

    def setup(self) -> None:
        super().setup()
        self.matching = self.params["matching"]

    def score(self, example: Record, prediction: Record) -> Score:
        if self.mode != "strict":
            return super().score(example, prediction)
        value = get_path(example, self.expected_field, None)
        if value is None:
            raise SkipSample(f"example.{self.expected_field} is missing")
        expected, expected_turns = parse_messages(value, f"example.{self.expected_field}")
        made, made_turns, source = messages_made(prediction, self.field)
        if expected and made and expected_turns != made_turns:
            turns, calls = (source, f"example.{self.expected_field}") if made_turns else \
                (f"example.{self.expected_field}", source)
            raise InputError(f"mode 'strict' compares messages, but {turns} holds turns and {calls} a list of calls; "
                             "give both as turns or both as calls", field=calls)
        try:
            ok, head = self._strict(expected, made)
        except RecursionError:
            raise InputError("the tool calls are nested too deeply to compare", field=source) from None
        details = {"mode": "strict", "expected_messages": len(expected), "messages": len(made),
                   "expected": sum(len(m.calls) for m in expected), "called": sum(len(m.calls) for m in made),
                   "calls_from": source}
        return Score(1.0 if ok else 0.0, feedback=head, details=details)

    def _strict(self, expected: list[Message], made: list[Message]) -> tuple[bool, str]:
        """agentevals' strict match: message by message the same role, and the same calls in any order."""
        if len(made) != len(expected):
            return False, f"{len(made)} messages, {len(expected)} expected (strict)"
        pick = greedy_pairs if self.matching == "greedy" else optimal_pairs
        for index, (message, wanted) in enumerate(zip(made, expected)):
            if message.role != wanted.role:
                return False, f"message {index} is from {message.role!r}, expected {wanted.role!r} (strict)"
            if len(message.calls) != len(wanted.calls):
                return False, (f"message {index} makes {len(message.calls)} calls, {len(wanted.calls)} expected "
                               "(strict)")
            pairs = pick(score_matrix(list(message.calls), list(wanted.calls),
                                      lambda actual, call: self.comparer.score(call, actual)))
            if len(pairs) != len(message.calls):
                missing, _ = _unpaired(list(wanted.calls), list(message.calls), {e: a for a, e in pairs.items()})
                return False, f"message {index} does not make the expected calls (strict); missing: " + \
                    ", ".join(_names(missing))
        return True, "the messages match the expected ones (strict)"

    def compare(self, expected: list[ToolCall], made: list[ToolCall], source: str) -> Score:
        score = self.comparer.score
        mode = self.mode
        if mode == "exact":
            pairs = {i: i for i in range(min(len(expected), len(made))) if score(expected[i], made[i]) == 1.0}
            ok = len(expected) == len(made) == len(pairs)
        elif mode == "ordered":
            found = in_order(lambda r, c: score(expected[r], made[c]) == 1.0, len(expected), len(made))
            ok = found is not None
            pairs = found or {}
        else:
            pick = greedy_pairs if self.matching == "greedy" else optimal_pairs
            if mode == "subset":  # every call made pairs with an expected call
                backwards = pick(score_matrix(made, expected, lambda a, e: score(e, a)))
                pairs = {e: a for a, e in backwards.items()}
                ok = len(pairs) == len(made)
            else:
                pairs = pick(score_matrix(expected, made, score))
                ok = len(pairs) == len(expected) and (mode == "superset" or len(made) == len(expected))
        missing, extra = _unpaired(expected, made, pairs)
        if mode == "superset":
            extra = []
        elif mode == "subset":
            missing = []
        if ok:
            head = f"the calls match the expected ones ({mode})"
        elif mode == "exact" and len(expected) != len(made):
            head = f"{len(made)} calls made, {len(expected)} expected (exact)"
        else:
            head = f"the calls do not match the expected ones ({mode})"
        details = {"mode": mode, "expected": len(expected), "called": len(made), "paired": len(pairs),
                   "missing": _names(missing), "not_expected": _names(extra), "calls_from": source}
        return Score(1.0 if ok else 0.0, feedback=_feedback(head, [] if ok else missing, [] if ok else extra),
                     details=details)


class ToolCallAccuracy(_CallsMetric):
    """ragas' ToolCallAccuracy: argument accuracy of the calls made, 0 unless they follow the expected tools."""

    def compare(self, expected: list[ToolCall], made: list[ToolCall], source: str) -> Score:
        fold: Fold = str.casefold if self.params["ignore_case"] else str
        value, aligned = tool_call_accuracy(expected, made, self.mode == "ordered", fold)
        head = (f"the tools called follow the expected ones ({self.mode}); argument accuracy {value:.3g}" if aligned
                else f"the tools called are not the expected ones ({self.mode})")
        return Score(value, feedback=head, details={"mode": self.mode, "expected": len(expected),
                                                    "called": len(made), "aligned": aligned, "calls_from": source})
