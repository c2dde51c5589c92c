"""DeepEval's judged tool-use metrics over a run: argument correctness and tool selection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from evalcore.plugin import InputError, Record, SkipSample
from pydantic import Field

from .agent_run import run_calls, shown_calls, user_input
from .conversation import yes_fraction
from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .safety import YesNoItem
from .schemas import JudgeAnswer, ScoreReasonAnswer


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
        task, calls = user_input(example, prediction), run_calls(prediction)
        if not calls:
            return []
        return [Request("verdicts", ARGUMENT_VERDICTS, ARGUMENT_VERDICTS.render(task=task, calls=shown_calls(calls)),
                        ArgumentVerdictsAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "verdicts" not in answers:
            return Verdict(1.0, "no tool calls (DeepEval scores 1)", {"verdicts": []})
        verdicts = answers["verdicts"].verdicts  # type: ignore[attr-defined]
        wrong = [f"- call {i}: {v.reason}" for i, v in enumerate(verdicts) if v.verdict == "no"]
        return Verdict(yes_fraction([v.verdict for v in verdicts]), "\n".join(wrong) or None,
                       {"verdicts": [v.model_dump() for v in verdicts], "calls": len(run_calls(prediction))})


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
        text = TOOL_SELECTION.render(task=user_input(example, prediction), available=shown_calls(tools),
                                     calls=shown_calls(run_calls(prediction)))
        return [Request("selection", TOOL_SELECTION, text, ToolSelectionAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        judged = answers["selection"]
        return Verdict(float(judged.score), judged.reason, {})  # type: ignore[attr-defined]
