"""Judged agent metrics over a run: ragas' agent goal accuracy and topic adherence, DeepEval's
argument correctness, tool selection, plan quality, plan adherence and step efficiency.

The judge reads the run as ragas renders a multi-turn sample (``Human:``, ``AI:``, ``Tools:`` with
each call's name and arguments, ``ToolOutput:``): the turns (``example.turns`` then
``prediction.turns``), or, without turns, the query, ``prediction.tool_calls`` with their results
and the response.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from evalcore.plugin import InputError, Record, SkipSample, inputs
from pydantic import Field

from .conversation import yes_fraction
from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .safety import YesNoItem
from .schemas import JudgeAnswer, Number, score_field, verdict_field
from .task import workflow

_SPEAKERS = {"user": "Human", "human": "Human", "assistant": "AI", "ai": "AI", "tool": "ToolOutput",
             "system": "System", "developer": "System"}


def _listed(record: Record, role: str, field: str) -> list[Any]:
    found = record.get(field)
    if found is None:
        return []
    if not isinstance(found, list):
        raise InputError(f"expected a list, got {type(found).__name__}", field=f"{role}.{field}")
    return found


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _call_lines(calls: Any, where: str) -> list[str]:
    if not isinstance(calls, list):
        raise InputError(f"expected a list of tool calls, got {type(calls).__name__}", field=where)
    lines = ["Tools:"]
    for index, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise InputError("expected a tool call {name, arguments, result?}", field=f"{where}[{index}]")
        lines.append(f"  {call['name']}: {dict(call.get('arguments') or {})}")
    return lines


def _turn_lines(turn: Any, where: str) -> list[str]:
    if not isinstance(turn, Mapping) or not isinstance(turn.get("role"), str):
        raise InputError("expected a turn {role, content, tool_calls?}", field=where)
    speaker = _SPEAKERS.get(turn["role"], turn["role"])
    content = _text(turn.get("content"))
    if speaker != "AI":
        return [f"{speaker}: {content}"]
    lines = [f"AI: {content}"] if content != "" else []
    if turn.get("tool_calls") is not None:
        lines += _call_lines(turn["tool_calls"], f"{where}.tool_calls")
    return lines


def run_calls(prediction: Record) -> list[Any]:
    """The calls the agent made, as the record gives them: ``prediction.tool_calls``, else the
    ``tool_calls`` of ``prediction.turns`` in order."""
    if prediction.get("tool_calls") is not None:
        return _listed(prediction, "prediction", "tool_calls")
    calls: list[Any] = []
    for index, turn in enumerate(_listed(prediction, "prediction", "turns")):
        made = turn.get("tool_calls") if isinstance(turn, Mapping) else None
        if made is not None:
            if not isinstance(made, list):
                raise InputError(f"expected a list of tool calls, got {type(made).__name__}",
                                 field=f"prediction.turns[{index}].tool_calls")
            calls.extend(made)
    return calls


def transcript(example: Record, prediction: Record) -> str:
    """The run as ragas' ``MultiTurnSample.pretty_repr`` shows it (see the module docstring);
    nothing to read skips the sample."""
    lines: list[str] = []
    for role, record in (("example", example), ("prediction", prediction)):
        for index, turn in enumerate(_listed(record, role, "turns")):
            lines += _turn_lines(turn, f"{role}.turns[{index}]")
    if lines:
        return "\n".join(lines)
    query = inputs.targets(example, "query", blank="skip")[0]
    calls = _listed(prediction, "prediction", "tool_calls")
    response = inputs.response(prediction)
    if not response.strip() and not calls:
        raise SkipSample("no turns, no response and no tool calls to judge")
    lines = [f"Human: {query}"]
    if calls:
        lines += _call_lines(calls, "prediction.tool_calls")
        lines += [f"ToolOutput: {_text(call.get('result'))}" for call in calls if "result" in call]
    if response != "":
        lines.append(f"AI: {response}")
    return "\n".join(lines)


# -- goal accuracy ----------------------------------------------------------------------------------


class GoalOutcomeAnswer(JudgeAnswer):
    """ragas' InferGoalOutcomePrompt answer: the user's goal and the workflow's end state."""

    schema_name: ClassVar[str] = "goal_outcome"
    user_goal: str = Field(description="the task or objective the user wants to achieve")
    end_state: str = Field(description="the final outcome or result of the workflow")


class OutcomeVerdictAnswer(JudgeAnswer):
    """ragas' CompareOutcomePrompt answer: 1 when the outcomes are the same, 0 when they differ."""

    schema_name: ClassVar[str] = "outcome_verdict"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field(description="why the outcomes are the same or different")
    verdict: int = verdict_field("1 if the achieved outcome is the desired outcome, 0 if they differ")


GOAL_OUTCOME = Template(
    "goal_outcome",
    "Given an agentic workflow comprised of Human, AI and Tools, identify the user_goal (the task or objective "
    "the user wants to achieve) and the end_state (the final outcome or result of the workflow). Answer with a "
    'single JSON object and nothing else: {{"user_goal": "...", "end_state": "..."}}.',
    "Workflow:\n{workflow}\n\nIdentify the user goal and the end state.",
    GoalOutcomeAnswer,
)

OUTCOME_VERDICT = Template(
    "outcome_verdict",
    "Given the desired outcome and the achieved outcome of a workflow, compare them and identify if they are "
    "the same (1) or different (0), with the reason. Answer with a single JSON object and nothing else: "
    '{{"reason": "...", "verdict": 1 or 0}}.',
    "Desired outcome:\n{desired}\n\nAchieved outcome:\n{achieved}\n\nAre they the same?",
    OutcomeVerdictAnswer,
)


class GoalAccuracy(StagedJudgeMetric):
    """ragas' AgentGoalAccuracyWithReference (``reference='answer'``) and WithoutReference (``'none'``)."""

    def _desired(self, example: Record) -> str | None:
        if self.params["reference"] == "none":
            return None
        return "\n".join(inputs.targets(example, "reference", blank="skip"))

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        self._desired(example)  # a missing reference skips before any call
        return [Request("goal_outcome", GOAL_OUTCOME, GOAL_OUTCOME.render(workflow=transcript(example, prediction)),
                        GoalOutcomeAnswer)]

    def _compare(self, desired: str, achieved: str) -> Request:
        return Request("verdict", OUTCOME_VERDICT, OUTCOME_VERDICT.render(desired=desired, achieved=achieved),
                       OutcomeVerdictAnswer)

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extraction, and a comparison of outcomes as long as the run."""
        shown = transcript(example, prediction)
        return [*self._checked_requests(example, prediction), self._compare(self._desired(example) or shown, shown)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        found = answers["goal_outcome"]
        desired = self._desired(example) or found.user_goal  # type: ignore[attr-defined]
        if "verdict" not in answers:
            return [self._compare(desired, found.end_state)]  # type: ignore[attr-defined]
        verdict = answers["verdict"]
        return Verdict(float(verdict.verdict), verdict.reason,  # type: ignore[attr-defined]
                       {"desired_outcome": desired, "user_goal": found.user_goal,  # type: ignore[attr-defined]
                        "end_state": found.end_state})  # type: ignore[attr-defined]


# -- topic adherence --------------------------------------------------------------------------------


class TopicsAnswer(JudgeAnswer):
    """ragas' TopicExtractionPrompt answer: the topics of the user's turns."""

    schema_name: ClassVar[str] = "topics"
    topics: list[str] = Field(description="the topics of the Human's input, in order")


class TopicRefusedAnswer(JudgeAnswer):
    """ragas' TopicRefusedPrompt answer."""

    schema_name: ClassVar[str] = "topic_refused"
    refused_to_answer: bool = Field(description="true if the AI refused to answer the question about the topic")


class TopicClassesAnswer(JudgeAnswer):
    """ragas' TopicClassificationPrompt answer: per topic, whether it falls into a reference topic."""

    schema_name: ClassVar[str] = "topic_classes"
    classifications: list[bool] = Field(description="per topic, in order: true if it falls into any reference topic")


TOPICS = Template(
    "topics",
    "Given an interaction between Human, Tool and AI, extract the topics from Human's input. Answer with a single "
    'JSON object and nothing else: {{"topics": ["...", ...]}}.',
    "Interaction:\n{workflow}\n\nExtract the topics of the Human's input.",
    TopicsAnswer,
)

TOPIC_REFUSED = Template(
    "topic_refused",
    "Given an interaction between Human, Tool and AI and a topic, classify if the AI refused to answer the "
    'question about the topic. Answer with a single JSON object and nothing else: {{"refused_to_answer": true '
    "or false}}.",
    "Interaction:\n{workflow}\n\nTopic:\n{topic}\n\nDid the AI refuse to answer the question about the topic?",
    TopicRefusedAnswer,
)

TOPIC_CLASSES = Template(
    "topic_classes",
    "Given a set of topics, classify if each topic falls into any of the given reference topics. Answer with a "
    'single JSON object and nothing else: {{"classifications": [true or false, one per topic, in order]}}.',
    "Reference topics:\n{reference}\n\nTopics:\n{topics}\n\nDoes each topic fall into a reference topic?",
    TopicClassesAnswer,
)


def reference_topics(example: Record) -> list[str]:
    """``example.reference_topics``: a list of strings; missing or empty skips the sample."""
    found = example.get("reference_topics")
    if found is None:
        raise SkipSample("example.reference_topics is missing")
    if not isinstance(found, list) or not all(isinstance(topic, str) for topic in found):
        raise InputError("expected a list of topic strings", field="example.reference_topics")
    if not found:
        raise SkipSample("example.reference_topics is empty")
    return found


class TopicAdherence(StagedJudgeMetric):
    """ragas' TopicAdherenceScore: precision, recall or F1 of the answered topics against the reference topics."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        reference_topics(example)  # missing topics skip before any call
        return [Request("topics", TOPICS, TOPICS.render(workflow=transcript(example, prediction)), TopicsAnswer)]

    def _asked(self, example: Record, prediction: Record, topics: list[str]) -> list[Request]:
        shown = transcript(example, prediction)
        refused = [Request(f"refused[{i}]", TOPIC_REFUSED, TOPIC_REFUSED.render(workflow=shown, topic=topic),
                           TopicRefusedAnswer) for i, topic in enumerate(topics)]
        classes = TOPIC_CLASSES.render(reference=json.dumps(reference_topics(example), ensure_ascii=False),
                                       topics=json.dumps(topics, ensure_ascii=False))
        return [*refused, Request("classes", TOPIC_CLASSES, classes, TopicClassesAnswer)]

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extraction, then a refusal question per user turn (a topic each) and the classification."""
        first = self._checked_requests(example, prediction)  # checks the turns
        turns = [*_listed(example, "example", "turns"), *_listed(prediction, "prediction", "turns")]
        topics = [_text(turn.get("content")) for turn in turns if _SPEAKERS.get(turn["role"]) == "Human"]
        return [*first, *self._asked(example, prediction, topics or [transcript(example, prediction)])]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        topics = list(answers["topics"].topics)  # type: ignore[attr-defined]
        if not topics:
            return Verdict(0.0, "the judge found no topics in the run (ragas scores 0)", {"topics": []})
        if "classes" not in answers:
            return self._asked(example, prediction, topics)
        answered = [not answers[f"refused[{i}]"].refused_to_answer  # type: ignore[attr-defined]
                    for i in range(len(topics))]
        given = list(answers["classes"].classifications)  # type: ignore[attr-defined]
        on_topic = (given + [False] * len(topics))[:len(topics)]  # as ragas: padded with False, or cut
        true_pos = sum(a and c for a, c in zip(answered, on_topic))
        false_pos = sum(a and not c for a, c in zip(answered, on_topic))
        false_neg = sum(c and not a for a, c in zip(answered, on_topic))
        precision = true_pos / (true_pos + false_pos + 1e-10)
        recall = true_pos / (true_pos + false_neg + 1e-10)
        value = {"precision": precision, "recall": recall,
                 "f1": 2 * (precision * recall) / (precision + recall + 1e-10)}[self.params["mode"]]
        feedback = (f"{sum(answered)} of {len(topics)} topics answered, {sum(on_topic)} on the reference topics; "
                    f"{true_pos} answered on topic")
        details = {"topics": topics, "answered": answered, "on_topic": on_topic, "classifications_given": len(given),
                   "precision": precision, "recall": recall}
        return Verdict(value, feedback, details)


# -- argument correctness and tool selection (DeepEval) ---------------------------------------------


def _task(example: Record, prediction: Record) -> str:
    """The user's input: ``example.query``, else the first user turn (of ``example.turns`` then
    ``prediction.turns``)."""
    if example.get("query") is not None:
        return inputs.targets(example, "query", blank="skip")[0]
    for turn in [*_listed(example, "example", "turns"), *_listed(prediction, "prediction", "turns")]:
        if isinstance(turn, Mapping) and turn.get("role") in ("user", "human"):
            return _text(turn.get("content"))
    raise SkipSample("example.query is missing and no turn is the user's")


def _shown(calls: list[Any]) -> str:
    return json.dumps(calls, ensure_ascii=False, indent=1)


class ArgumentVerdictsAnswer(JudgeAnswer):
    """DeepEval's argument correctness verdicts: one per tool call, in order."""

    schema_name: ClassVar[str] = "argument_verdicts"
    verdicts: list[YesNoItem] = Field(description="one verdict per tool call, in the order given")


ARGUMENT_VERDICTS = Template(
    "argument_verdicts",
    "For the provided list of tool calls, determine whether each tool call's input parameters relevantly and "
    "correctly address the input. Give one verdict per tool call, in order: 'yes' if its input parameters "
    "relevantly and correctly address the original input, 'no' if they do not, with the reason (a reason is "
    "needed only for 'no'). A call without input parameters gets 'no' with the reason \"No input parameter "
    'provided\". Answer with a single JSON object and nothing else: {{"verdicts": [{{"reason": "...", '
    '"verdict": "yes" or "no"}}, ...]}}.',
    "Input:\n{task}\n\nTool calls:\n{calls}\n\nGive a verdict for each tool call.",
    ArgumentVerdictsAnswer,
)


class ArgumentCorrectness(StagedJudgeMetric):
    """DeepEval's ArgumentCorrectnessMetric: the share of tool calls whose arguments suit the input."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        task, calls = _task(example, prediction), run_calls(prediction)
        if not calls:
            return []
        return [Request("verdicts", ARGUMENT_VERDICTS, ARGUMENT_VERDICTS.render(task=task, calls=_shown(calls)),
                        ArgumentVerdictsAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "verdicts" not in answers:
            return Verdict(1.0, "no tool calls (DeepEval scores 1)", {"verdicts": []})
        verdicts = answers["verdicts"].verdicts  # type: ignore[attr-defined]
        wrong = [f"- call {i}: {v.reason}" for i, v in enumerate(verdicts) if v.verdict == "no"]
        return Verdict(yes_fraction([v.verdict for v in verdicts]), "\n".join(wrong) or None,
                       {"verdicts": [v.model_dump() for v in verdicts], "calls": len(run_calls(prediction))})


class ScoreReasonAnswer(JudgeAnswer):
    """DeepEval's judged score, 0 to 1, and its reason (each prompt names its own schema)."""

    rationale_field: ClassVar[str] = "reason"
    score: Number = score_field(0.0, 1.0, "the score, from 0 to 1")
    reason: str = Field(description="1-3 concise, factual sentences explaining the score")


class ToolSelectionAnswer(ScoreReasonAnswer):
    """DeepEval's tool selection score."""

    schema_name: ClassVar[str] = "tool_selection"


TOOL_SELECTION = Template(
    "tool_selection",
    "You assess the tool selection of an AI agent: given the user input, the tools available (name and "
    "description) and the tool calls the agent made, score from 0.0 to 1.0 how appropriate and well-matched the "
    "chosen tools were to the task. Tool selection is only whether the right tools were selected, from their "
    "descriptions and the demands of the task: not how well they were used, whether a plan was followed, or "
    "whether the output was correct. Look for over-selection (more tools than necessary), under-selection "
    "(well-suited tools omitted) and mis-selection (tools poorly matched to the subtask). 1.0: all selected "
    "tools appropriate and necessary, none better-suited omitted; 0.75: mostly appropriate, minor omissions or "
    "unnecessary use; 0.5: mixed; 0.25: poor, better alternatives ignored; 0.0: clearly misaligned. Answer "
    'with a single JSON object and nothing else: {{"score": a number from 0 to 1, "reason": "..."}}.',
    "User input:\n{task}\n\nAll available tools:\n{available}\n\nTool calls made by the agent:\n{calls}\n\n"
    "Score the tool selection.",
    ToolSelectionAnswer,
)


def available_tools(example: Record, field: str) -> list[Any]:
    """The tools the agent could call, at ``field`` in the example: a list of ``{name, description?}``."""
    found = example.get(field)
    if found is None:
        raise SkipSample(f"example.{field} is missing")
    if not isinstance(found, list) or not found or not all(
            isinstance(tool, Mapping) and isinstance(tool.get("name"), str) for tool in found):
        raise InputError("expected a non-empty list of tools {name, description?}", field=f"example.{field}")
    return found


class ToolSelection(StagedJudgeMetric):
    """DeepEval's tool selection score (ToolCorrectnessMetric with available_tools, its judged part)."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        tools = available_tools(example, self.params["field"])
        text = TOOL_SELECTION.render(task=_task(example, prediction), available=_shown(tools),
                                     calls=_shown(run_calls(prediction)))
        return [Request("selection", TOOL_SELECTION, text, ToolSelectionAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        judged = answers["selection"]
        return Verdict(float(judged.score), judged.reason, {})  # type: ignore[attr-defined]


# -- plan quality, plan adherence and step efficiency (DeepEval, over the run as its trace) ---------


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
