"""Hallucination, as DeepEval's HallucinationMetric judges it.

One call: for each context document the judge says whether the response agrees with it (``yes``)
or contradicts it (``no``); lacking detail is forgiven, only a contradiction is ``no``, and the
contexts are taken at face value. Value = ``no`` verdicts / verdicts, 0 without a verdict: the
share of contexts contradicted, lower is better, as DeepEval scored it before 4.0 (DeepEval 4
reports 1 - this value, the share of contexts the response agrees with).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from evalcore.plugin import Record, inputs
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template, numbered
from .safety import YesNoItem
from .schemas import JudgeAnswer


class ContextVerdictsAnswer(JudgeAnswer):
    """DeepEval's hallucination verdicts: one per context, in the order given."""

    schema_name: ClassVar[str] = "context_verdicts"
    verdicts: list[YesNoItem] = Field(description="per context: yes if the output agrees, no if it contradicts it")


CONTEXT_VERDICTS = Template(
    "context_verdicts",
    "For each context in the list of contexts, say whether the given actual output agrees with it: verdict "
    "'yes' or 'no', with a reason; when the verdict is 'no', try to provide a correction in the reason. Do NOT "
    "use any prior knowledge: take each context at face value. FORGIVE an actual output that lacks detail: "
    "give 'no' ONLY for a contradiction. Answer with a single JSON object and nothing else: "
    '{{"verdicts": [{{"reason": "...", "verdict": "yes" or "no"}}, ...]}}, exactly {count} verdicts, one '
    "per context, in the order given.",
    "Contexts:\n{contexts}\n\nActual output:\n{response}\n\nGive a verdict for every context.",
    ContextVerdictsAnswer,
)


def contradicted_fraction(verdicts: list[str]) -> float:
    """The share of ``no`` verdicts; 0 without verdicts (DeepEval before 4.0; DeepEval 4 scores
    1 minus it, the share of ``yes``, 1 without verdicts)."""
    return sum(1 for v in verdicts if v == "no") / len(verdicts) if verdicts else 0.0


class Hallucination(StagedJudgeMetric):
    """DeepEval's HallucinationMetric: the share of the context documents the response contradicts."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        response = inputs.response(prediction, blank="skip")
        contexts = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        messages = CONTEXT_VERDICTS.render(contexts=numbered(contexts), response=response, count=str(len(contexts)))
        return [Request("verdicts", CONTEXT_VERDICTS, messages, ContextVerdictsAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        contexts = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        verdicts = list(answers["verdicts"].verdicts)  # type: ignore[attr-defined]
        rows = [{"context": c, "verdict": v.verdict, "reason": v.reason} for c, v in zip(contexts, verdicts)]
        contradicted = [f"- [{i}] {r['reason']}" for i, r in enumerate(rows, 1) if r["verdict"] == "no"]
        feedback = ("Contradicts the context:\n" + "\n".join(contradicted)) if contradicted else \
            "The response contradicts no context." if verdicts else "The judge gave no verdict (scores 0)."
        return Verdict(contradicted_fraction([v.verdict for v in verdicts]), feedback,
                       {"verdicts": rows, "contradicted": sum(1 for v in verdicts if v.verdict == "no"),
                        "total": len(verdicts), "contexts": len(contexts)})
