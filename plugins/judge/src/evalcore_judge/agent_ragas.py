"""ragas' judged agent metrics over a run: agent goal accuracy (with and without a reference) and
topic adherence."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from evalcore.plugin import InputError, Record, SkipSample, inputs
from pydantic import Field

from .agent_run import SPEAKERS, listed, text_of, transcript
from .metrics import Request, StagedJudgeMetric, Verdict
from .outcome_judge import OutcomeJudgeMetric
from .prompts import Template
from .schemas import JudgeAnswer, verdict_field


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


class GoalAccuracy(OutcomeJudgeMetric):
    """ragas' AgentGoalAccuracyWithReference (``reference='answer'``) and WithoutReference (``'none'``)."""

    extraction, comparison = GOAL_OUTCOME, OUTCOME_VERDICT
    goal_field, outcome_field, compared = "user_goal", "end_state", ("desired", "achieved")

    def workflow(self, example: Record, prediction: Record) -> str:
        return transcript(example, prediction)

    def given_goal(self, example: Record) -> str | None:
        if self.params["reference"] == "none":
            return None
        return "\n".join(inputs.targets(example, "reference", blank="skip"))

    def details(self, goal: str, found: Any) -> dict[str, Any]:
        return {"desired_outcome": goal, "user_goal": found.user_goal, "end_state": found.end_state}


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
        turns = [*listed(example, "example", "turns"), *listed(prediction, "prediction", "turns")]
        topics = [text_of(turn.get("content")) for turn in turns if SPEAKERS.get(turn["role"]) == "Human"]
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
