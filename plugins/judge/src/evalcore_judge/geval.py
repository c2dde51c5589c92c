"""G-Eval, as DeepEval's ``GEval`` computes it.

The criteria become evaluation steps (one judge call per metric instance, unless the steps are
given); then the judge fills in a form: the steps, the test case's fields, and a JSON answer with
a reason and an integer score from 0 to 10 (or over a rubric's range). Where the backend returns
token log probabilities (``top_logprobs`` > 0 and an OpenAI-compatible server that gives them) the
score is their probability-weighted mean over the score token's alternatives, exactly as DeepEval's
``calculate_weighted_summed_score``; else the plain score. The value is (score - low) / (high - low).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import math
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs
from evalcore.plugin import Record, RunContext, Score, SkipSample, inputs, reference_answers
from pydantic import Field, create_model

from .critic import Call
from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer

FIELDS: dict[str, str] = {"query": "Input", "response": "Actual Output", "reference": "Expected Output",
                          "retrieved": "Retrieval Context"}
"""The test case fields G-Eval can show the judge, with DeepEval's names for them."""

SCORE_RANGE = (0, 10)
"""The form's score range without a rubric (DeepEval's)."""


class EvaluationStepsAnswer(JudgeAnswer):
    """DeepEval's G-Eval steps: the criteria as 3-4 concise evaluation steps."""

    schema_name: ClassVar[str] = "evaluation_steps"
    steps: list[str] = Field(description="the evaluation steps")


class GEvalScoreAnswer(JudgeAnswer):
    """DeepEval's G-Eval form: a reason and an integer score from 0 to 10."""

    schema_name: ClassVar[str] = "geval_score"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field(description="a brief explanation of the score, naming strengths or shortcomings")
    score: int = Field(ge=SCORE_RANGE[0], le=SCORE_RANGE[1], description="0 (no alignment) to 10 (strong alignment)")


EVALUATION_STEPS = Template(
    "geval_steps",
    "Given an evaluation criteria which outlines how you should judge the {parameters}, generate 3-4 concise "
    "evaluation steps based on the criteria below. You MUST make it clear how to evaluate {parameters} in "
    'relation to one another. Answer with a single JSON object and nothing else: {{"steps": ["...", ...]}}.',
    "Evaluation Criteria:\n{criteria}\n\nGenerate the evaluation steps.",
    EvaluationStepsAnswer,
)

EVALUATION_FORM = Template(
    "geval_form",
    "You are an evaluator. Given the following evaluation steps{and_rubric}, assess the response below and "
    'return a JSON object with two fields: "score", an integer between {low} and {high}, {scoring}; "reason", '
    "a brief explanation for why the score was given, mentioning specific strengths or shortcomings and key "
    "details from the test case parameters, without quoting the score. Answer with a single JSON object and "
    'nothing else: {{"reason": "...", "score": {low} to {high}}}.',
    "Evaluation Steps:\n{steps}\n{rubric}Test Case:\n{test_case}Parameters:\n{parameters}\n\n"
    "Give the reason and score.",
    GEvalScoreAnswer,
)


@functools.cache
def score_answer(low: int, high: int) -> type[GEvalScoreAnswer]:
    """The form's answer with the score from ``low`` to ``high`` (a rubric's range)."""
    if (low, high) == SCORE_RANGE:
        return GEvalScoreAnswer
    field = Field(ge=low, le=high, description=f"{low} to {high}, by the rubric")
    return create_model("GEvalScoreAnswer", __base__=GEvalScoreAnswer, score=(int, field))


def rubric_ranges(rubric: Sequence[Any]) -> list[tuple[int, int, str]]:
    """DeepEval's ``validate_and_sort_rubrics``: ``[{"score_range": [low, high], "expected_outcome": text}]``
    sorted by low, each range within 0-10 with low <= high, none overlapping (``ValueError`` if not)."""
    ranges = []
    for entry in rubric:
        try:
            (low, high), outcome = entry["score_range"], entry["expected_outcome"]
        except (KeyError, TypeError, ValueError):
            raise ValueError("each entry is {score_range: [low, high], expected_outcome: text}") from None
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or \
                not 0 <= low <= high <= 10 or not isinstance(outcome, str):
            raise ValueError(f"score_range {[low, high]} must be integers with 0 <= low <= high <= 10")
        ranges.append((low, high, outcome))
    ranges.sort(key=lambda r: r[0])
    for (_, high, _), (low, _, _) in zip(ranges, ranges[1:]):
        if high >= low:
            raise ValueError(f"overlapping score ranges ending at {high} and starting at {low}")
    return ranges


def rubric_text(ranges: Sequence[tuple[int, int, str]]) -> str:
    """DeepEval's ``format_rubrics``."""
    return "\n".join(f"{low}: {text}" if low == high else f"{low}-{high}: {text}" for low, high, text in ranges)


def parameters_text(fields: Sequence[str]) -> str:
    """DeepEval's ``construct_g_eval_params_string``: the fields' names joined as a phrase."""
    names = [FIELDS[f] for f in fields]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + ", and " + names[-1]


def numbered_steps(steps: Sequence[str]) -> str:
    """DeepEval's ``number_evaluation_steps``."""
    return "".join(f"{i}. {step}\n" for i, step in enumerate(steps, 1))


def weighted_score(raw_score: Any, logprobs: Sequence[Mapping[str, Any]] | None) -> float:
    """DeepEval's ``calculate_weighted_summed_score`` over OpenAI's ``logprobs.content``: the last
    answer token equal to the score, its alternatives with probability at least 1% that are decimal
    numbers, their scores weighted by probability; the raw score where there are no log
    probabilities, no such token, or no alternative left."""
    try:
        score_logprobs = next(t for t in reversed(list(logprobs or ())) if t["token"] == str(raw_score))
    except StopIteration:
        return raw_score
    weights: dict[int, float] = {}
    total = 0.0
    for alternative in score_logprobs.get("top_logprobs") or ():
        if alternative["logprob"] < math.log(0.01) or not alternative["token"].isdecimal():
            continue
        probability = math.exp(alternative["logprob"])
        weights[int(alternative["token"])] = weights.get(int(alternative["token"]), 0) + probability
        total += probability
    if total == 0:
        return raw_score
    return sum(score * probability for score, probability in weights.items()) / total


_CALLS: contextvars.ContextVar[dict[str, Call]] = contextvars.ContextVar("geval_calls")


class GEval(StagedJudgeMetric):
    """DeepEval's GEval: criteria -> evaluation steps (once) -> a 0-10 form, probability-weighted."""

    def setup(self) -> None:
        super().setup()
        criteria, steps = self.params["criteria"], self.params["evaluation_steps"]
        if criteria is None and steps is None:
            raise self.parameter_error("criteria", "give criteria or evaluation_steps")
        if criteria is not None and not criteria.strip():
            raise self.parameter_error("criteria", "must not be empty")
        if steps is not None and not steps:
            raise self.parameter_error("evaluation_steps", "must not be an empty list")
        unknown = [f for f in self.params["fields"] if f not in FIELDS]
        if unknown or not self.params["fields"]:
            raise self.parameter_error("fields", f"choose from {', '.join(FIELDS)}; got {list(self.params['fields'])}")
        try:
            self._rubric = rubric_ranges(self.params.get("rubric") or ())
        except ValueError as exc:
            raise self.parameter_error("rubric", str(exc)) from None
        self._range = (self._rubric[0][0], self._rubric[-1][1]) if self._rubric else SCORE_RANGE
        self._steps: list[str] | None = list(steps) if steps else None
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = \
            weakref.WeakKeyDictionary()

    def open(self, context: RunContext) -> None:
        """The critic, asking for ``top_logprobs`` alternatives of every answer token."""
        super().open(context)
        self.critic.decoding = attrs.evolve(self.critic.decoding, top_logprobs=self.params["top_logprobs"])

    def _test_case(self, example: Record, prediction: Record) -> str:
        text = ""
        for field in self.params["fields"]:
            if field == "query":
                value: Any = inputs.targets(example, "query", blank="skip")[0]
            elif field == "response":
                value = inputs.response(prediction, blank="skip")
            elif field == "reference":
                answers = reference_answers(example)
                value = answers[0] if len(answers) == 1 else answers
            else:
                value = inputs.evidence(example, prediction, "retrieved", self.params["k"])
            text += f"{FIELDS[field]}:\n{value} \n\n"
        return text

    def _form(self, example: Record, prediction: Record, steps: Sequence[str]) -> Request:
        low, high = self._range
        scoring = "based on the rubric provided" if self._rubric else \
            f"with {high} indicating strong alignment with the evaluation steps and {low} indicating no alignment"
        messages = EVALUATION_FORM.render(
            steps=numbered_steps(steps), test_case=self._test_case(example, prediction), low=str(low), high=str(high),
            parameters=parameters_text(self.params["fields"]), scoring=scoring,
            and_rubric=" and rubric" if self._rubric else "",
            rubric=f"\nRubric:\n{rubric_text(self._rubric)}\n\n" if self._rubric else "\n")
        return Request("score", EVALUATION_FORM, messages, score_answer(low, high))

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        if self._steps is not None:
            return [self._form(example, prediction, self._steps)]
        self._test_case(example, prediction)  # a missing field skips the sample before any call
        messages = EVALUATION_STEPS.render(criteria=self.params["criteria"],
                                           parameters=parameters_text(self.params["fields"]))
        return [Request("steps", EVALUATION_STEPS, messages, EvaluationStepsAnswer)]

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        first = self._checked_requests(example, prediction)
        return first if self._steps is not None else [*first, self._form(example, prediction, ["(steps)"])]

    async def judge_once(self, example: Record, prediction: Record) -> Score:
        """As :class:`StagedJudgeMetric`; the first sample of an instance generates the steps while
        the others wait, then every sample reuses them (as DeepEval's GEval keeps them)."""
        _CALLS.set({})
        if self._steps is None:
            loop = asyncio.get_running_loop()
            lock = self._locks.get(loop) or self._locks.setdefault(loop, asyncio.Lock())
            async with lock:
                if self._steps is None:
                    return await super().judge_once(example, prediction)
        return await super().judge_once(example, prediction)

    async def _ask(self, request: Request) -> Call:
        call = await super()._ask(request)
        _CALLS.get()[request.role] = call
        return call

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "score" not in answers:
            steps = list(answers["steps"].steps)  # type: ignore[attr-defined]
            if not steps:
                raise SkipSample("the judge gave no evaluation steps for the criteria")
            self._steps = steps
            return [self._form(example, prediction, steps)]
        answer = answers["score"]
        call = _CALLS.get()["score"]
        raw = _raw_score(call.text, answer.score)  # type: ignore[attr-defined]
        weighted = weighted_score(raw, call.logprobs)
        low, high = self._range
        value = (min(max(float(weighted), low), high) - low) / (high - low)  # DeepEval does not clamp
        return Verdict(value, answer.rationale, {
            "evaluation_steps": list(self._steps or ()), "raw_score": raw, "weighted_score": float(weighted),
            "logprobs_returned": bool(call.logprobs), "criteria": self.params["criteria"],
        })


def _raw_score(text: str, validated: int) -> Any:
    """The score as the judge wrote it (DeepEval reads it from the answer's JSON), else the validated one."""
    try:
        raw = json.loads(text)["score"]
    except (ValueError, KeyError, TypeError):
        return validated
    return raw if isinstance(raw, (int, float)) and not isinstance(raw, bool) else validated
