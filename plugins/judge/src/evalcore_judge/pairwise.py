"""Pairwise judging, as DeepEval's ``ArenaGEval`` picks a winner, asked in both orders.

Two answers to the same record (``field`` and ``field_b`` of the prediction) are contestants. As
in G-Eval, the criteria become evaluation steps once per metric instance (unless given). Then two
calls per record, one in each order: the judge sees the steps, the shared test case fields and the
two contestants as DeepEval's arena shows them (JSON, contestants under masked names: the one shown
first is Alice, the other Bob) and names the winner with a reason. An answer that wins in both
orders wins the record (value 1 for A, 0 for B); a winner that changes with the order (position
bias) is a tie (value 0.5), or, with ``on_disagreement='inconsistent'``, a skipped record whose
reason says so. The mean over records is then A's win rate with ties as half.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from evalcore.plugin import InputError, Record, RunContext, SkipSample, get_path, inputs, reference_answers
from pydantic import Field

from .geval import GEval, numbered_steps, parameters_text
from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer

NAMES = ("Alice", "Bob")
"""The masked contestant names, by position shown (DeepEval draws them from a list at random)."""

FIELDS = ("query", "response", "reference")
"""The test case fields a pairwise judge can show: the input and the expected output are shared, the
response is each contestant's."""


class WinnerAnswer(JudgeAnswer):
    """DeepEval's arena verdict: the winner's contestant name and why."""

    schema_name: ClassVar[str] = "arena_winner"
    rationale_field: ClassVar[str] = "reason"
    winner: Literal["Alice", "Bob"] = Field(description="the name of the contestant that best follows the steps")
    reason: str = Field(description="why, naming the contestants as $name$")


class ArenaStepsAnswer(JudgeAnswer):
    """DeepEval's arena evaluation steps."""

    schema_name: ClassVar[str] = "arena_steps"
    steps: list[str] = Field(description="the evaluation steps")


ARENA_STEPS = Template(
    "arena_steps",
    "Given an evaluation criteria which outlines how you should choose the winner out of all contestants based "
    "on the {parameters}, generate 3-4 concise evaluation steps based on the criteria below. You MUST make it "
    "clear how to evaluate {parameters} in relation to one another. Answer with a single JSON object and nothing "
    'else: {{"steps": ["...", ...]}}.',
    "Evaluation Criteria:\n{criteria}\n\nGenerate the evaluation steps.",
    ArenaStepsAnswer,
)

ARENA_WINNER = Template(
    "arena_winner",
    "You are a judge. Given the following evaluation steps, select the single contestant that best aligns with "
    'the evaluation steps. Return a JSON object with two fields: "winner", the exact contestant name that is best '
    'aligned with the evaluation steps, without any symbols or $ wrappers (e.g. "Alice", not "$Alice$"); "reason", '
    "a brief explanation for why the contestant was chosen, mentioning specific strengths or shortcomings and "
    "relevant details from every contestant's parameters, referring to the contestants only by their names "
    "wrapped as $name$. Answer with a single JSON object and nothing else: "
    '{{"winner": "Alice" or "Bob", "reason": "..."}}.',
    "Evaluation Steps:\n{steps}\nContestants:\n{contestants}\n\nParameters:\n{parameters}\n\n"
    "Name the winner and give the reason.",
    WinnerAnswer,
)

_ORDERS = ("a_first", "b_first")


class Inconsistent(SkipSample):
    """A record whose winner depends on the order the answers are shown in, with the verdicts."""

    def __init__(self, reason: str, details: Mapping[str, Any]) -> None:
        super().__init__(reason)
        self.details = dict(details)


class Pairwise(GEval):
    """DeepEval's ArenaGEval over two answers of one record, asked in both orders."""

    def setup(self) -> None:
        fields = self.params["fields"]
        if "response" not in fields or any(f not in FIELDS for f in fields):
            raise self.parameter_error("fields", f"choose from {', '.join(FIELDS)}, response included; "
                                                 f"got {list(fields)}")
        super().setup()

    def open(self, context: RunContext) -> None:
        """The critic (no log probabilities: the verdict is a name)."""
        StagedJudgeMetric.open(self, context)

    def answers(self, prediction: Record) -> tuple[str, str]:
        """The two contestants: the prediction's ``field`` (A) and ``field_b`` (B)."""
        found = []
        for param in ("field", "field_b"):
            path = self.params[param]
            value = get_path(prediction, path, None)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise SkipSample(f"prediction.{path} is missing or empty")
            if not isinstance(value, str):
                raise InputError(f"expected text, got {type(value).__name__}", field=f"prediction.{path}")
            found.append(value)
        return found[0], found[1]

    def _contestants(self, example: Record, first: str, second: str) -> str:
        """The test case as DeepEval's ``FormattedArenaTestCase`` writes it."""
        data: dict[str, Any] = {}
        if "query" in self.params["fields"]:
            data["input"] = inputs.targets(example, "query", blank="skip")[0]
        if "reference" in self.params["fields"]:
            answers = reference_answers(example)
            data["expected_output"] = answers[0] if len(answers) == 1 else answers
        data["arena_test_cases"] = {name: json.dumps({"actual_output": text}, indent=2)
                                    for name, text in zip(NAMES, (first, second))}
        return json.dumps(data, indent=2)

    def _winners(self, example: Record, prediction: Record, steps: Sequence[str]) -> list[Request]:
        a, b = self.answers(prediction)
        shown = parameters_text(self.params["fields"])
        return [Request(order, ARENA_WINNER,
                        ARENA_WINNER.render(steps=numbered_steps(steps), parameters=shown,
                                            contestants=self._contestants(example, *pair)),
                        WinnerAnswer)
                for order, pair in zip(_ORDERS, ((a, b), (b, a)))]

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        if self._steps is not None:
            return self._winners(example, prediction, self._steps)
        self._winners(example, prediction, ["(steps)"])  # a missing field skips before any call
        messages = ARENA_STEPS.render(criteria=self.params["criteria"],
                                      parameters=parameters_text(self.params["fields"]))
        return [Request("steps", ARENA_STEPS, messages, ArenaStepsAnswer)]

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        first = self._checked_requests(example, prediction)
        return first if self._steps is not None else [*first, *self._winners(example, prediction, ["(steps)"])]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "a_first" not in answers:
            steps = list(answers["steps"].steps)  # type: ignore[attr-defined]
            if not steps:
                raise SkipSample("the judge gave no evaluation steps for the criteria")
            self._steps = steps
            return self._winners(example, prediction, steps)
        winners = {order: _winner(order, answers[order].winner) for order in _ORDERS}  # type: ignore[attr-defined]
        reasons = {order: _unmasked(order, answers[order].reason) for order in _ORDERS}  # type: ignore[attr-defined]
        agreed = winners["a_first"] == winners["b_first"]
        verdict = winners["a_first"] if agreed else "inconsistent"
        feedback = "\n".join(f"{order.replace('_', ' ')}: {reason}" for order, reason in reasons.items())
        details = {"verdict": verdict if agreed or self.params["on_disagreement"] == "inconsistent" else "tie",
                   "winners": winners, "reasons": reasons, "explanation": feedback,
                   "evaluation_steps": list(self._steps or ()), "criteria": self.params["criteria"]}
        if not agreed and self.params["on_disagreement"] == "inconsistent":
            raise Inconsistent(f"inconsistent: the winner depends on the order ({winners['a_first']} when A is "
                               f"shown first, {winners['b_first']} when B is)", details)
        value = {"A": 1.0, "B": 0.0}.get(verdict, 0.5)
        return Verdict(value, feedback, details)


def _winner(order: str, name: str) -> str:
    """``A`` or ``B``: the answer the masked name stood for in ``order``."""
    return "A" if (name == NAMES[0]) == (order == "a_first") else "B"


def _unmasked(order: str, reason: str) -> str:
    """The reason with ``$Alice$`` / ``$Bob$`` replaced by A and B (DeepEval asks the judge to rewrite it)."""
    for name in NAMES:
        reason = reason.replace(f"${name}$", _winner(order, name))
    return reason
