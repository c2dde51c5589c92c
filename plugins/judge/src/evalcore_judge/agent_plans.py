"""DeepEval's judged trace metrics over a run: plan quality, plan adherence and step efficiency."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from evalcore.plugin import Record
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer, ScoreReasonAnswer
from .task import workflow


class TraceTaskAnswer(JudgeAnswer):
    """DeepEval's task extracted from a trace."""

    schema_name: ClassVar[str] = "trace_task"
    task: str = Field(description="the user's explicit goal, in a sentence or two")


class TracePlanAnswer(JudgeAnswer):
    """DeepEval's plan extracted from a trace (empty when the trace shows none)."""

    schema_name: ClassVar[str] = "trace_plan"
    plan: list[str] = Field(description="the steps of the plan the agent stated, in order; empty if none")


class PlanQualityAnswer(ScoreReasonAnswer):
    """DeepEval's plan quality score."""

    schema_name: ClassVar[str] = "plan_quality"


class PlanAdherenceAnswer(ScoreReasonAnswer):
    """DeepEval's plan adherence score."""

    schema_name: ClassVar[str] = "plan_adherence"


class StepEfficiencyAnswer(ScoreReasonAnswer):
    """DeepEval's execution efficiency score."""

    schema_name: ClassVar[str] = "step_efficiency"


_SCORE_JSON = 'Answer with a single JSON object and nothing else: {{"score": a number from 0 to 1, "reason": "..."}}.'

TRACE_TASK = Template(
    "trace_task",
    "You extract the user's original task from an AI agent's execution trace: exactly what the user asked the "
    "agent to do, from the user's input, using the rest of the trace only to clarify what the user explicitly "
    "asked. Do not invent goals; ignore the agent's tools, methods and reasoning; state the task from the "
    "user's perspective in a sentence or two (the input verbatim when it is all there is). Answer with a single "
    'JSON object and nothing else: {{"task": "..."}}.',
    "Trace:\n{trace}\n\nExtract the user's task.",
    TraceTaskAnswer,
)

TRACE_PLAN = Template(
    "trace_plan",
    "You extract the explicit or clearly implied plan an AI agent followed or intended to follow, only if the "
    "trace evidences it (reasoning or thought fields, plan-like statements written by the agent). Do not "
    "invent or rephrase steps the trace does not support; each step one distinct action, in neutral, minimal "
    'paraphrase; an empty list when the trace shows no plan. Answer with a single JSON object and nothing else: '
    '{{"plan": ["step 1", "step 2", ...]}}.',
    "Trace:\n{trace}\n\nExtract the agent's plan.",
    TracePlanAnswer,
)

PLAN_QUALITY = Template(
    "plan_quality",
    "You assess the quality of an AI agent's plan for the user's task, not its execution: is it complete, "
    "logically ordered, specific and efficient enough to achieve the task? 1.0 excellent, 0.75 good, 0.5 "
    "adequate but flawed, 0.25 weak, 0.0 inadequate (irrelevant, incoherent or severely incomplete); when in "
    "doubt, the lower score. The reason names the missing, unclear or inefficient steps. " + _SCORE_JSON,
    "User task:\n{task}\n\nAgent plan:\n{plan}\n\nScore the plan.",
    PlanQualityAnswer,
)

PLAN_ADHERENCE = Template(
    "plan_adherence",
    "You assess how closely an AI agent's execution trace follows its own plan for the user's task: every plan "
    "step executed, in the planned order, without extraneous actions. 1.0 full adherence, 0.75 minor "
    "deviations, 0.5 partial, 0.25 low (few steps carried out, or many extraneous actions), 0.0 none; when "
    "evidence is partial or ambiguous, the lower score. The reason cites matched, missing or extra steps. "
    + _SCORE_JSON,
    "User task:\n{task}\n\nAgent plan:\n{plan}\n\nExecution trace:\n{trace}\n\nScore the adherence.",
    PlanAdherenceAnswer,
)

STEP_EFFICIENCY = Template(
    "step_efficiency",
    "You assess the execution efficiency of an AI agent for the user's task: did it complete the task with the "
    "fewest necessary steps? Any redundant, repeated or unnecessary call, extra enrichment or indirect approach "
    "lowers the score; correctness, helpfulness and reasoning quality do not count. 1.0 provably minimal, "
    "lower for each extra step, 0.0 grossly inefficient; assign the lowest score possible unless the execution "
    "was minimal. " + _SCORE_JSON,
    "Task:\n{task}\n\nTrace:\n{trace}\n\nScore the efficiency.",
    StepEfficiencyAnswer,
)


class _TraceJudged(StagedJudgeMetric):
    """DeepEval's trace metrics: the judge states the task (and the plan) from the run as a trace, then
    scores; the run is the turns as JSON, else the query, tool calls and response (as
    ``judge/task_completion`` reads it)."""

    needs_plan: ClassVar[bool] = True

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        trace = workflow(example, prediction)
        asked = [Request("task", TRACE_TASK, TRACE_TASK.render(trace=trace), TraceTaskAnswer)]
        if self.needs_plan:
            asked.append(Request("plan", TRACE_PLAN, TRACE_PLAN.render(trace=trace), TracePlanAnswer))
        return asked

    def judged(self, task: str, plan: str, trace: str) -> Request:
        raise NotImplementedError

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extractions, and a score over a task and plan as long as the run."""
        trace = workflow(example, prediction)
        return [*self._checked_requests(example, prediction), self.judged(trace, trace, trace)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        task = answers["task"].task  # type: ignore[attr-defined]
        steps = list(answers["plan"].plan) if self.needs_plan else []  # type: ignore[attr-defined]
        details: dict[str, Any] = {"task": task, **({"plan": steps} if self.needs_plan else {})}
        if self.needs_plan and not steps:
            return Verdict(1.0, "the run shows no plan to judge (DeepEval scores 1)", details)
        if "score" not in answers:
            return [self.judged(task, "\n".join(steps), workflow(example, prediction))]
        judged = answers["score"]
        return Verdict(float(judged.score), judged.reason, details)  # type: ignore[attr-defined]


class PlanQuality(_TraceJudged):
    """DeepEval's PlanQualityMetric: the judged quality of the plan the run shows."""

    def judged(self, task: str, plan: str, trace: str) -> Request:
        return Request("score", PLAN_QUALITY, PLAN_QUALITY.render(task=task, plan=plan), PlanQualityAnswer)


class PlanAdherence(_TraceJudged):
    """DeepEval's PlanAdherenceMetric: how closely the run follows the plan it shows."""

    def judged(self, task: str, plan: str, trace: str) -> Request:
        return Request("score", PLAN_ADHERENCE, PLAN_ADHERENCE.render(task=task, plan=plan, trace=trace),
                       PlanAdherenceAnswer)


class StepEfficiency(_TraceJudged):
    """DeepEval's StepEfficiencyMetric: whether the run took only the steps the task needs."""

    needs_plan = False

    def judged(self, task: str, plan: str, trace: str) -> Request:
        return Request("score", STEP_EFFICIENCY, STEP_EFFICIENCY.render(task=task, trace=trace),
                       StepEfficiencyAnswer)
