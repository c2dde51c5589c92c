"""DeepEval's GoalAccuracyMetric over a conversation: per user-assistant interaction, the judge scores
whether the assistant achieved the user's goal and how well it planned and kept to the plan; the
value is the mean of the two averages."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from evalcore.plugin import Record

from .conversation import ConversationJudgeMetric, conversation, labelled, message, unit_interactions
from .metrics import Request, Verdict
from .prompts import Template
from .schemas import ScoreReasonAnswer


class GoalScoreAnswer(ScoreReasonAnswer):
    """DeepEval's goal accuracy score of one interaction."""

    schema_name: ClassVar[str] = "goal_score"


class PlanScoreAnswer(ScoreReasonAnswer):
    """DeepEval's plan quality and adherence score of one interaction."""

    schema_name: ClassVar[str] = "plan_score"


_SCORE_JSON = 'Answer with a single JSON object and nothing else: {{"score": a number from 0 to 1, "reason": "..."}}.'

GOAL_SCORE = Template(
    "goal_score",
    "You assess the goal accuracy of one interaction of an AI assistant, strictly: did what the user saw in "
    "the assistant's messages fully and correctly achieve the user's stated goal? Judge the visible output "
    "only (hidden tool calls count only where their results were shown); every part asked for must be given, "
    "correct and relevant, standing on its own; a missing, incomplete or vague part scores 0.5 or less; when "
    "uncertain, assume the goal was not achieved. " + _SCORE_JSON,
    "User task:\n{task}\n\nAgent steps:\n{steps}\n\nScore the goal accuracy.",
    GoalScoreAnswer,
)

PLAN_SCORE = Template(
    "plan_score",
    "You assess the planning of an AI agent in one interaction, strictly: plan quality (was the plan, explicit "
    "or implicit, clear, complete and logically ordered for the user's task?) and plan adherence (did the agent "
    "follow it without unjustified deviations, omissions or extraneous steps?). A vague or incomplete plan, or "
    "execution that departs from it, lowers the score. " + _SCORE_JSON,
    "User task:\n{task}\n\nAgent steps:\n{steps}\n\nScore the planning.",
    PlanScoreAnswer,
)


def goal_and_steps(unit: Sequence[Mapping[str, Any]]) -> tuple[str, list[str]]:
    """DeepEval's goal and steps of one interaction: the leading user messages; then, for each assistant
    message after the first turn, the assistant messages so far (with the tools each called); a turn's
    image labels follow its text."""
    goal = "User messages: \n"
    for turn in unit:
        if turn["role"] != "user":
            break
        goal += message(turn) + "\n"
    steps: list[str] = []
    said = "Assistant messages: \n"
    for turn in unit[1:]:
        if turn["role"] == "assistant":
            said += f"{message(turn)} \n"
            if turn.get("tool_calls"):
                said += f"Tools called: \n{json.dumps(turn['tool_calls'], ensure_ascii=False, indent=1)} \n"
            steps.append(said)
    return goal, steps


class ConversationGoalAccuracy(ConversationJudgeMetric):
    """DeepEval's GoalAccuracyMetric: (mean goal score + mean plan score) / 2 over the interactions."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        asked = []
        for i, unit in enumerate(unit_interactions(conversation(example, prediction, calls=True))):
            labelled_unit, images = labelled(unit)
            goal, steps = goal_and_steps(labelled_unit)
            values = {"task": goal, "steps": "\n".join(steps)}
            asked += [self._request(f"goal[{i}]", GOAL_SCORE, images, **values),
                      self._request(f"plan[{i}]", PLAN_SCORE, images, **values)]
        return asked

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, Any]) -> list[Request] | Verdict:
        n = len(answers) // 2
        goals = [float(answers[f"goal[{i}]"].score) for i in range(n)]
        plans = [float(answers[f"plan[{i}]"].score) for i in range(n)]
        value = (sum(goals) / (n or 1) + sum(plans) / (n or 1)) / 2
        feedback = "\n".join(f"interaction {i}: goal {goals[i]}: {answers[f'goal[{i}]'].reason}; plan {plans[i]}: "
                             f"{answers[f'plan[{i}]'].reason}" for i in range(n)) or \
            "no complete user-assistant interaction (DeepEval scores 0)"
        return Verdict(value, feedback, {"goal_scores": goals, "plan_scores": plans})
