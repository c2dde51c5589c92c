"""Task completion, as DeepEval's TaskCompletionMetric judges an agent's work.

Two calls: the judge reads the workflow (the input, the tools called and the response; or the
turns, tool calls included, as the agent's trace) and states the task the user wanted done and
the outcome, factually; then it compares the outcome with the task (or with the ``task``
parameter, DeepEval's ``task``) and gives a verdict from 0 (not achieved) to 1 (fully achieved).
Value = the verdict.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from evalcore.plugin import InputError, Record, SkipSample, inputs
from pydantic import Field

from .outcome_judge import OutcomeJudgeMetric
from .prompts import Template
from .schemas import JudgeAnswer, Number, score_field


class TaskOutcomeAnswer(JudgeAnswer):
    """DeepEval's task and outcome extraction."""

    schema_name: ClassVar[str] = "task_outcome"
    task: str = Field(description="the task: the objective the user wants to achieve")
    outcome: str = Field(description="the final outcome of the workflow, stated factually")


class TaskVerdictAnswer(JudgeAnswer):
    """DeepEval's task completion verdict: 0 (not achieved) to 1 (perfectly achieved), and why."""

    schema_name: ClassVar[str] = "task_verdict"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field(description="why the verdict was given")
    verdict: Number = score_field(0.0, 1.0, "how well the outcome achieves the task, from 0 to 1")


TASK_OUTCOME = Template(
    "task_outcome",
    "Given an agentic workflow (a human input, the AI's response and the tools it used; or the messages of the "
    "run, tool calls included), identify the task (the objective the user wants to achieve) and the outcome (the "
    "final outcome or result of the workflow). The outcome must be solely factual, derived strictly from the "
    'workflow, without any reasoning. Answer with a single JSON object and nothing else: {{"task": "...", '
    '"outcome": "..."}}.',
    "{workflow}\n\nIdentify the task and the outcome.",
    TaskOutcomeAnswer,
)

TASK_VERDICT = Template(
    "task_verdict",
    "Given the task (the desired outcome) and the actual outcome, judge how well the actual outcome achieves "
    "the task: verdict 1 when it achieves the task perfectly, 0 when it does not achieve it at all, a number "
    "between for partial achievement; the reason explains the verdict. Answer with a single JSON object and "
    'nothing else: {{"reason": "...", "verdict": a number from 0 to 1}}.',
    "Task:\n{task}\n\nActual outcome:\n{outcome}\n\nHow well does the outcome achieve the task?",
    TaskVerdictAnswer,
)


def _listed(record: Record, role: str, field: str) -> list[Any]:
    found = record.get(field)
    if found is None:
        return []
    if not isinstance(found, list):
        raise InputError(f"expected a list, got {type(found).__name__}", field=f"{role}.{field}")
    return found


def workflow(example: Record, prediction: Record) -> str:
    """What the judge reads: the turns (example's then prediction's) as the trace where there are
    any, else the input, ``prediction.tool_calls`` and the response. Nothing to read skips."""
    turns = [*_listed(example, "example", "turns"), *_listed(prediction, "prediction", "turns")]
    if turns:
        return "Trace (the run's messages, tool calls included):\n" + json.dumps(turns, ensure_ascii=False, indent=1)
    query = inputs.targets(example, "query", blank="skip")[0]
    calls = _listed(prediction, "prediction", "tool_calls")
    response = inputs.response(prediction)
    if not response.strip() and not calls:
        raise SkipSample("no turns, no response and no tool calls to judge")
    shown = json.dumps(calls, ensure_ascii=False, indent=1) if calls else "(none)"
    return f"Input:\n{query}\n\nTools called:\n{shown}\n\nResponse:\n{response}"


class TaskCompletion(OutcomeJudgeMetric):
    """DeepEval's TaskCompletionMetric: the judged degree, 0 to 1, to which the agent did the user's task."""

    extraction, comparison = TASK_OUTCOME, TASK_VERDICT
    goal_field, outcome_field, compared = "task", "outcome", ("task", "outcome")

    def workflow(self, example: Record, prediction: Record) -> str:
        return workflow(example, prediction)

    def given_goal(self, example: Record) -> str | None:
        return self.params["task"]

    def details(self, goal: str, found: Any) -> dict[str, Any]:
        return {"task": goal, "extracted_task": found.task, "outcome": found.outcome}
