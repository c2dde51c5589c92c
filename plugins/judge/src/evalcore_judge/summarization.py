"""Summarization, as DeepEval's SummarizationMetric judges it.

The original text is the example's query (DeepEval's input), the summary the response (its
actual_output). First the judge lists the truths of the original text, the claims of the summary
and, unless they are given, ``question_count`` closed yes/no questions the original text answers
yes. Then it answers those questions from the original text and from the summary, and gives each
claim a verdict against the truths: yes (agrees), no (contradicts) or borderline (not backed up).

* alignment = yes verdicts / verdicts (0 without claims);
* coverage = questions answered yes from both texts / questions answered yes from the original
  (0 when the original answers none);
* value = min(alignment, coverage).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, Literal

from evalcore.plugin import Record, SkipSample, inputs
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer, _Item


class TruthsAnswer(JudgeAnswer):
    """DeepEval's truths: the facts the original text states, taken at face value."""

    schema_name: ClassVar[str] = "summary_truths"
    truths: list[str] = Field(description="the factual statements of the text")


class ClaimsAnswer(JudgeAnswer):
    """DeepEval's claims: the facts the summary states, each with its full context."""

    schema_name: ClassVar[str] = "summary_claims"
    claims: list[str] = Field(description="the factual claims of the summary")


class QuestionsAnswer(JudgeAnswer):
    """DeepEval's assessment questions: closed yes/no questions the original text answers yes."""

    schema_name: ClassVar[str] = "summary_questions"
    questions: list[str] = Field(description="closed-ended questions the text answers 'yes'")


class AnswersAnswer(JudgeAnswer):
    """DeepEval's answers: per question, whether the text holds enough to answer it."""

    schema_name: ClassVar[str] = "summary_answers"
    answers: list[str] = Field(description="'yes' or 'no' per question, in the order given")


class AlignmentItem(_Item):
    """One summary claim's verdict against the original text."""

    verdict: Literal["yes", "no", "borderline"] = Field(
        description="yes if it agrees, no if it contradicts, borderline if not backed up")
    reason: str = Field(description="why, with a correction for no or borderline (may be empty for yes)")


class AlignmentAnswer(JudgeAnswer):
    """DeepEval's alignment verdicts: one per summary claim, in the order given."""

    schema_name: ClassVar[str] = "summary_alignment"
    verdicts: list[AlignmentItem] = Field(description="one verdict per claim, in the order given")


_JSON = "Answer with a single JSON object and nothing else: "

TRUTHS = Template(
    "summary_truths",
    "List the factual statements of the text, taking it at face value (whether they are true does not "
    'matter; use no prior knowledge). ' + _JSON + '{{"truths": ["...", ...]}}.',
    "Text:\n{text}\n\nList its truths.",
    TruthsAnswer,
)

CLAIMS = Template(
    "summary_claims",
    "List the factual claims of the summary, each with the full context it was given in, not cherry-picked "
    "facts (whether they are true does not matter; use no prior knowledge). " + _JSON
    + '{{"claims": ["...", ...]}}.',
    "Summary:\n{text}\n\nList its claims.",
    ClaimsAnswer,
)

QUESTIONS = Template(
    "summary_questions",
    "Write {count} closed-ended questions, each answerable with 'yes' or 'no', that the text answers 'yes'. "
    + _JSON + '{{"questions": ["...", ...]}}.',
    "Text:\n{text}\n\nWrite the questions.",
    QuestionsAnswer,
)

ANSWERS = Template(
    "summary_answers",
    "For each closed-ended question, answer 'yes' if the text holds enough information to answer it, else "
    "'no'. " + _JSON + '{{"answers": ["yes" or "no", ...]}}, exactly {count} answers, one per question, in '
    "the order given.",
    "Text:\n{text}\n\nQuestions:\n{questions}\n\nAnswer every question.",
    AnswersAnswer,
)

ALIGNMENT = Template(
    "summary_alignment",
    "For each claim of a summary, say whether it agrees with the original text: 'yes'; 'no' only if it "
    "directly contradicts it (vague or speculative wording such as 'may have' is no contradiction); "
    "'borderline' if the original text does not back it up. Give a reason with a correction for 'no' and "
    "'borderline'. Use no prior knowledge. " + _JSON + '{{"verdicts": [{{"verdict": "yes", "no" or '
    '"borderline", "reason": "..."}}, ...]}}, exactly {count} verdicts, one per claim, in the order given.',
    "Original text:\n{truths}\n\nSummary claims:\n{claims}\n\nGive a verdict for every claim.",
    AlignmentAnswer,
)


def _lines(texts: Sequence[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)) or "(none)"


def alignment_score(verdicts: Sequence[str]) -> float:
    """DeepEval's alignment: the share of ``yes`` verdicts (borderline counts against); 0 without any."""
    return sum(1 for v in verdicts if v == "yes") / len(verdicts) if verdicts else 0.0


def coverage_score(original: Sequence[str], summary: Sequence[str]) -> float:
    """DeepEval's coverage: of the questions the original answers yes, the share the summary answers
    yes too; 0 when the original answers none."""
    asked = [s for o, s in zip(original, summary) if o.strip().lower() == "yes"]
    return sum(1 for s in asked if s.strip().lower() == "yes") / len(asked) if asked else 0.0


class Summarization(StagedJudgeMetric):
    """DeepEval's SummarizationMetric: min(alignment of the summary's claims, coverage of the
    assessment questions)."""

    def _texts(self, example: Record, prediction: Record) -> tuple[str, str]:
        original = example.get("query")
        if not isinstance(original, str) or not original.strip():
            raise SkipSample("example.query (the original text) is missing or empty")
        return original, inputs.response(prediction, blank="skip")

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        original, summary = self._texts(example, prediction)
        asked = [Request("truths", TRUTHS, TRUTHS.render(text=original), TruthsAnswer),
                 Request("claims", CLAIMS, CLAIMS.render(text=summary), ClaimsAnswer)]
        if not self.params["assessment_questions"]:
            count = str(self.params["question_count"])
            asked.append(Request("questions", QUESTIONS, QUESTIONS.render(text=original, count=count),
                                 QuestionsAnswer))
        return asked

    def _questions(self, answers: Mapping[str, JudgeAnswer]) -> list[str]:
        if "questions" in answers:
            return list(answers["questions"].questions)  # type: ignore[attr-defined]
        return list(self.params["assessment_questions"])

    def _second(self, example: Record, prediction: Record, answers: Mapping[str, JudgeAnswer]) -> list[Request]:
        original, summary = self._texts(example, prediction)
        questions = self._questions(answers)
        listed, count = _lines(questions), str(len(questions))
        asked = [Request(f"answers_{side}", ANSWERS, ANSWERS.render(text=text, questions=listed, count=count),
                         AnswersAnswer) for side, text in (("original", original), ("summary", summary))]
        claims = list(answers["claims"].claims)  # type: ignore[attr-defined]
        if claims:
            truths = "\n\n".join(answers["truths"].truths)  # type: ignore[attr-defined]
            asked.append(Request("alignment", ALIGNMENT, ALIGNMENT.render(
                truths=truths, claims=_lines(claims), count=str(len(claims))), AlignmentAnswer))
        return asked

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "answers_original" not in answers:
            return self._second(example, prediction, answers)
        questions = self._questions(answers)
        original = list(answers["answers_original"].answers)  # type: ignore[attr-defined]
        summary = list(answers["answers_summary"].answers)  # type: ignore[attr-defined]
        if len(original) != len(summary):
            raise SkipSample(f"the judge answered {len(original)} questions from the original text and "
                             f"{len(summary)} from the summary (DeepEval raises an error)")
        alignment = answers.get("alignment")
        rows = [{"claim": c, "verdict": v.verdict, "reason": v.reason} for c, v in
                zip(answers["claims"].claims, alignment.verdicts)] if alignment else []  # type: ignore[attr-defined]
        align = alignment_score([v.verdict for v in alignment.verdicts]) if alignment else 0.0  # type: ignore[attr-defined]
        cover = coverage_score(original, summary)
        coverage = [{"question": q, "original": o, "summary": s} for q, o, s in zip(questions, original, summary)]
        missed = [f"- {c['question']}" for c in coverage
                  if c["original"].strip().lower() == "yes" and c["summary"].strip().lower() != "yes"]
        wrong = [f"- {r['claim']} ({r['verdict']}): {r['reason']}" for r in rows if r["verdict"] != "yes"]
        feedback = "\n".join([f"alignment {align:.2f}, coverage {cover:.2f}",
                              *(["Claims not aligned with the original:", *wrong] if wrong else []),
                              *(["Questions the original answers but the summary does not:", *missed]
                                if missed else [])])
        return Verdict(min(align, cover), feedback, {"alignment": align, "coverage": cover, "claims": rows,
                                                     "truths": list(answers["truths"].truths),  # type: ignore[attr-defined]
                                                     "coverage_verdicts": coverage})
