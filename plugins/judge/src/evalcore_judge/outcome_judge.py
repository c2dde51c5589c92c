"""The two-call shape of ragas' agent goal accuracy and DeepEval's task completion: the judge states
the goal and the outcome of a workflow, then compares the outcome with the goal (or with one the
record or the metric gives) and gives a verdict; the value is the verdict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from evalcore.plugin import Record

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer


class OutcomeJudgeMetric(StagedJudgeMetric):
    """``extraction`` reads the workflow (answering ``goal_field`` and ``outcome_field``), ``comparison``
    the goal and the outcome (filled in as ``compared``: the goal's name, the outcome's) and answers
    ``verdict`` and ``reason``."""

    extraction: ClassVar[Template]
    comparison: ClassVar[Template]
    goal_field: ClassVar[str]
    outcome_field: ClassVar[str]
    compared: ClassVar[tuple[str, str]]

    def workflow(self, example: Record, prediction: Record) -> str:
        """What the judge reads of the run (a record with nothing to read skips)."""
        raise NotImplementedError

    def given_goal(self, example: Record) -> str | None:
        """The goal to compare with instead of the one the judge states, if any."""
        raise NotImplementedError

    def details(self, goal: str, found: Any) -> dict[str, Any]:
        """The row's details: the goal compared with and what the extraction ``found``."""
        raise NotImplementedError

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        self.given_goal(example)  # a missing goal skips before any call
        return [Request(self.extraction.name, self.extraction,
                        self.extraction.render(workflow=self.workflow(example, prediction)), self.extraction.answer)]

    def _compare(self, goal: str, outcome: str) -> Request:
        goal_name, outcome_name = self.compared
        return Request("verdict", self.comparison, self.comparison.render(**{goal_name: goal, outcome_name: outcome}),
                       self.comparison.answer)

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extraction, and a comparison of a goal and an outcome as long as the workflow."""
        shown = self.workflow(example, prediction)
        return [*self._checked_requests(example, prediction), self._compare(self.given_goal(example) or shown, shown)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        found = answers[self.extraction.name]
        goal = self.given_goal(example) or getattr(found, self.goal_field)
        if "verdict" not in answers:
            return [self._compare(goal, getattr(found, self.outcome_field))]
        verdict = answers["verdict"]
        return Verdict(float(verdict.verdict), verdict.reason, self.details(goal, found))  # type: ignore[attr-defined]
