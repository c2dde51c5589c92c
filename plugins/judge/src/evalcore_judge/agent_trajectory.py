"""agentevals' trajectory judge (``create_trajectory_llm_as_judge``, openevals' LLM-as-judge): is the
agent's trajectory accurate, with or without a reference trajectory?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from evalcore.plugin import Record, SkipSample, get_path
from pydantic import Field

from .agent_run import trajectory_xml
from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer, Number, score_field

_REASONING = ("a human-readable explanation of the score, ending with the sentence: Thus, the score should be: "
              "SCORE_YOU_ASSIGN.")


class TrajectoryPassAnswer(JudgeAnswer):
    """openevals' boolean score and its reasoning."""

    schema_name: ClassVar[str] = "trajectory_pass"
    rationale_field: ClassVar[str] = "reasoning"
    reasoning: str = Field(description=_REASONING)
    score: bool = Field(description="true if the criteria in the prompt are met, false otherwise")


class TrajectoryScoreAnswer(JudgeAnswer):
    """openevals' continuous score, 0 to 1, and its reasoning."""

    schema_name: ClassVar[str] = "trajectory_score"
    rationale_field: ClassVar[str] = "reasoning"
    reasoning: str = Field(description=_REASONING)
    score: Number = score_field(0.0, 1.0, "the degree to which the criteria in the prompt are met, from 0.0 "
                                          "(none) to 1.0 (perfectly)")


_RUBRIC = (
    "You are an expert data labeler. Your task is to grade the accuracy of an AI agent's internal trajectory. "
    "An accurate trajectory makes logical sense between steps, shows clear progression and is relatively "
    "efficient, though it does not need to be perfectly efficient"
)
_ANSWER = ' Answer with a single JSON object and nothing else: {{{{"reasoning": "...", "score": {score}}}}}.'


def _templates(answer: type[JudgeAnswer], score: str) -> dict[str, Template]:
    rule = _ANSWER.format(score=score)
    return {
        "expected": Template(
            f"trajectory_accuracy_reference_{answer.schema_name}",
            _RUBRIC + ", and is semantically equivalent to the provided reference trajectory." + rule,
            "Based on the following reference trajectory:\n\n<reference_trajectory>\n{reference}\n"
            "</reference_trajectory>\n\nGrade this actual trajectory:\n\n<trajectory>\n{trajectory}\n</trajectory>",
            answer),
        "none": Template(
            f"trajectory_accuracy_{answer.schema_name}",
            _RUBRIC + ". First, try to understand the goal of the trajectory by looking at the input (if the input "
            "is not present, infer it from the content of the first message) and the output of the final "
            "message. Once you understand the goal, grade the trajectory as it relates to achieving that goal."
            + rule,
            "Grade the following trajectory:\n\n<trajectory>\n{trajectory}\n</trajectory>",
            answer),
    }


TEMPLATES = {False: _templates(TrajectoryPassAnswer, "true or false"),
             True: _templates(TrajectoryScoreAnswer, "a number from 0 to 1")}


class TrajectoryAccuracy(StagedJudgeMetric):
    """agentevals' trajectory accuracy judge: 1/0 (or, ``continuous``, 0 to 1) for the run's trajectory."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        field = self.params["field"]
        if field is None:
            field = "turns" if prediction.get("turns") is not None else "tool_calls"
        made = get_path(prediction, field, None)
        if made is None:
            raise SkipSample(f"prediction.{field} is missing")
        values = {"trajectory": trajectory_xml(made, f"prediction.{field}")}
        if self.params["reference"] == "expected":
            expected_field = self.params["expected_field"]
            expected = get_path(example, expected_field, None)
            if expected is None:
                raise SkipSample(f"example.{expected_field} is missing")
            values["reference"] = trajectory_xml(expected, f"example.{expected_field}")
        template = TEMPLATES[self.params["continuous"]][self.params["reference"]]
        return [Request("trajectory", template, template.render(**values), template.answer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        judged = answers["trajectory"]
        return Verdict(float(judged.score), judged.reasoning, {})  # type: ignore[attr-defined]
