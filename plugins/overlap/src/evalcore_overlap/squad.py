"""SQuAD v2: exact match and F1 with the no-answer threshold, the HasAns / NoAns breakdown
and the best thresholds, as the official SQuAD v2 evaluation script (and HF evaluate's
``squad_v2``, which wraps it) computes them.

Each sample's state is one :class:`Question` row; merging concatenates rows in record order,
so the corpus value equals the script's over the same questions in the same order (the best
threshold search walks questions sorted by no-answer probability, ties in that order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

from evalcore.plugin import CorpusMetric, InputError, ParameterError, Record, Score, SkipSample, inputs
from evalcore_text import normalize_text

from .qa import token_f1

# the script's normalize_answer: DSPy's normalize_text without the Unicode step
_normalize = partial(normalize_text, unicode_form=None)


class Question(NamedTuple):
    """One question: no-answer probability, whether it has gold answers, whether the
    response is non-empty, and the raw (unthresholded) exact match and F1."""

    no_answer_probability: float
    has_answer: bool
    answered: bool
    exact: int
    f1: float


class SquadState(NamedTuple):
    """The questions seen, in record order."""

    questions: tuple[Question, ...]


_SUBSETS = {"all": None, "has_ans": True, "no_ans": False}
_SUBSET_NAMES = {"has_ans": "HasAns", "no_ans": "NoAns"}


def raw_scores(answers: Sequence[str], prediction: str) -> tuple[int, float]:
    """Best exact match and F1 over the gold answers that normalise to something; an
    unanswerable question (none do) is compared with the empty string."""
    gold = [answer for answer in answers if _normalize(answer)] or [""]
    pred = _normalize(prediction)
    exact = max(int(_normalize(answer) == pred) for answer in gold)
    return exact, max(_f1(answer, prediction) for answer in gold)


def _f1(gold: str, prediction: str) -> float:
    """The script's compute_f1: 1 when both sides have no tokens, 0 when one has none."""
    return token_f1(_normalize(prediction), _normalize(gold), both_empty=1.0)


def thresholded(question: Question, measure: str, threshold: float) -> float:
    """The question's score after the no-answer threshold: a probability above it predicts
    'no answer', which scores 1 on unanswerable questions and 0 on the others."""
    if question.no_answer_probability > threshold:
        return float(not question.has_answer)
    return question.exact if measure == "exact" else question.f1


def best_threshold(questions: Sequence[Question], measure: str) -> tuple[float, float]:
    """The script's find_best_thresh: the best score over thresholds and that threshold."""
    score = best = sum(1 for q in questions if not q.has_answer)
    threshold = 0.0
    for question in sorted(questions, key=lambda q: q.no_answer_probability):
        if question.has_answer:
            score += question.exact if measure == "exact" else question.f1
        elif question.answered:
            score += -1
        if score > best:
            best, threshold = score, question.no_answer_probability
    return 100.0 * best / len(questions), threshold


def evaluation(questions: Sequence[Question], threshold: float) -> dict[str, Any]:
    """Every number HF evaluate's ``squad_v2`` reports, under its names."""
    out: dict[str, Any] = {}
    for subset, has in _SUBSETS.items():
        chosen = [q for q in questions if has is None or q.has_answer is has]
        if not chosen:
            continue
        prefix = f"{_SUBSET_NAMES[subset]}_" if subset in _SUBSET_NAMES else ""
        for measure in ("exact", "f1"):
            total = sum(thresholded(q, measure, threshold) for q in chosen)
            out[prefix + measure] = 100.0 * total / len(chosen)
        out[prefix + "total"] = len(chosen)
    for measure in ("exact", "f1"):
        out[f"best_{measure}"], out[f"best_{measure}_thresh"] = best_threshold(questions, measure)
    return out


def no_answer_probability(prediction: Record) -> float:
    """``prediction.no_answer_probability``; 0 when absent (the script's default)."""
    value = prediction.get("no_answer_probability")
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise InputError(f"expected a number, got {value!r:.40}", field="prediction.no_answer_probability")
    return float(value)


def gold_answers(example: Record) -> list[str]:
    """The reference answers; an empty list marks an unanswerable question."""
    value = example.get("reference_answer")
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 0:
        return []
    return inputs.targets(example)


class SquadV2(CorpusMetric[SquadState]):
    """SQuAD v2 exact match or F1 (0-100) over all, answerable or unanswerable questions."""

    def setup(self) -> None:
        measure, subset = self.params["measure"], self.params["subset"]
        if measure.startswith("best_") and subset != "all":
            raise ParameterError(
                f"parameter 'subset' of {self.id}: {measure} is searched over all questions; "
                f"got subset={subset!r}"
            )

    def sample_state(self, example: Record, prediction: Record) -> SquadState:
        answers = gold_answers(example)
        text = inputs.response(prediction)
        exact, f1 = raw_scores(answers, text)
        return SquadState((Question(no_answer_probability(prediction), bool(answers), bool(text), exact, f1),))

    def merge(self, states: Sequence[SquadState]) -> SquadState:
        return SquadState(tuple(q for state in states for q in state.questions))

    def sample_value(self, state: SquadState) -> float | None:
        measure = self.params["measure"].removeprefix("best_")
        return 100.0 * thresholded(state.questions[0], measure, self.params["no_answer_threshold"])

    def compute(self, state: SquadState) -> Score:
        if not state.questions:
            raise SkipSample("no sample could be scored")
        measure, subset = self.params["measure"], self.params["subset"]
        report = evaluation(state.questions, self.params["no_answer_threshold"])
        prefix = f"{_SUBSET_NAMES[subset]}_" if subset in _SUBSET_NAMES else ""
        if prefix + measure not in report:
            raise SkipSample(f"no {'answerable' if subset == 'has_ans' else 'unanswerable'} questions")
        return Score(report[prefix + measure], details=report)
