"""SQL equivalence, as ragas' LLMSQLEquivalence judges it.

One call: given the database schema, the judge explains the generated query and the reference
query, then says whether they are equivalent (no significant logical difference). Value = 1 when
it says so, else 0. The reference query is the example's reference answer (ragas' reference), the
generated one the response, and the schema the text of the example's relevant documents, one per
line (ragas' reference_contexts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from evalcore.plugin import Record, doc_texts, inputs
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer


class SqlEquivalenceAnswer(JudgeAnswer):
    """ragas' equivalence output: an explanation of each query, then the verdict."""

    schema_name: ClassVar[str] = "sql_equivalence"
    rationale_field: ClassVar[str] = "response_explanation"
    response_explanation: str = Field(description="what the generated query does")
    reference_explanation: str = Field(description="what the reference query does")
    equivalent: bool = Field(description="true if the generated query is equivalent to the reference query")


SQL_EQUIVALENCE = Template(
    "sql_equivalence",
    "Explain and compare two SQL queries, a generated one and a reference one, given the database schema: "
    "first explain each query, then say whether they are equivalent, that is, without significant logical "
    "differences (WHERE active = 1 and WHERE active = true on a BOOLEAN column are equivalent). Answer with a "
    'single JSON object and nothing else: {{"response_explanation": "...", "reference_explanation": "...", '
    '"equivalent": true or false}}.',
    "Database schema:\n{schema}\n\nGenerated query:\n{response}\n\nReference query:\n{reference}\n\n"
    "Are the two queries equivalent?",
    SqlEquivalenceAnswer,
)


class SqlEquivalence(StagedJudgeMetric):
    """ragas' LLMSQLEquivalence: 1 when the judge finds the generated query equivalent to the
    reference query given the schema, else 0."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        response = inputs.response(prediction, blank="skip")
        reference = "\n".join(inputs.targets(example, "reference", blank="skip"))
        schema = "\n".join(doc_texts(example.get("relevant_docs"), field="example.relevant_docs"))
        messages = SQL_EQUIVALENCE.render(schema=schema, response=response, reference=reference)
        return [Request("equivalence", SQL_EQUIVALENCE, messages, SqlEquivalenceAnswer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        answer = answers["equivalence"]
        equivalent = bool(answer.equivalent)  # type: ignore[attr-defined]
        feedback = (f"{'Equivalent' if equivalent else 'Not equivalent'}. Generated: "
                    f"{answer.response_explanation} Reference: {answer.reference_explanation}")  # type: ignore[attr-defined]
        return Verdict(float(equivalent), feedback, {
            "equivalent": equivalent, "response_explanation": answer.response_explanation,  # type: ignore[attr-defined]
            "reference_explanation": answer.reference_explanation})  # type: ignore[attr-defined]
