"""Versioned prompt templates of the judge metrics, each with the answer it asks for.

A template is a system message and a user message with ``{placeholders}``, and the pydantic
model of its answer (:mod:`evalcore_judge.schemas`); its hash (of the text and the answer's
JSON schema) goes into every result's details and every cache key, so editing a prompt or
its schema never reuses old answers. Bump the metric version in ``_register`` when a
template changes what a well-formed answer scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from evalcore_http.cache import content_hash

from .schemas import (
    AnswerQualityAnswer,
    CompletenessAnswer,
    ContextRecallAnswer,
    ContextsUsefulAnswer,
    ContextUsefulAnswer,
    DecomposedSemanticF1Answer,
    DiffAnswer,
    FaithfulnessAnswer,
    GroundednessAnswer,
    JudgeAnswer,
    LlmJudgeAnswer,
    SemanticF1Answer,
    StatementsAnswer,
    StatementVerdictsAnswer,
    json_schema,
)

_JSON_RULE = (
    "Answer with a single JSON object and nothing else, with the keys {keys}. "
    "Every score is a number on the scale {scale}."
)


@attrs.frozen
class Template:
    """A prompt template and its answer model; ``hash`` identifies its exact text and schema."""

    name: str
    system: str
    user: str
    answer: type[JudgeAnswer]
    hash: str = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "hash", content_hash({
            "name": self.name, "system": self.system, "user": self.user, "answer": json_schema(self.answer),
        })[:16])

    def render(self, **values: str) -> list[dict[str, str]]:
        """The chat messages with ``values`` filled in."""
        return [
            {"role": "system", "content": self.system.format(**values)},
            {"role": "user", "content": self.user.format(**values)},
        ]


def json_rule(keys: Sequence[str], scale: str) -> str:
    """The output instruction shared by every template."""
    return _JSON_RULE.format(keys=", ".join(f'"{k}"' for k in keys), scale=scale)


def answer_rule(answer: type[JudgeAnswer]) -> str:
    """:func:`json_rule` for the keys and scale of ``answer``."""
    return json_rule(answer.keys(), answer.score_scale)


def numbered(texts: Sequence[str]) -> str:
    """Evidence passages as a numbered list."""
    return "\n".join(f"[{i}] {t}" for i, t in enumerate(texts, 1)) or "(none)"


FAITHFULNESS = Template(
    "faithfulness",
    "You judge whether an answer is supported by the evidence given. Claims that the evidence "
    "does not state or imply count against the answer; knowledge outside the evidence does not "
    "count as support. {rule}",
    "Question:\n{query}\n\nEvidence:\n{evidence}\n\nAnswer:\n{response}\n\n"
    "How well is the answer supported by the evidence? Give \"score\" and a short \"explanation\".",
    FaithfulnessAnswer,
)

ANSWER_QUALITY = Template(
    "answer_quality",
    "You rate how well an answer serves a question, on each of these dimensions: {dimensions}. {rule}",
    "Question:\n{query}\n\nAnswer:\n{response}\n\nRate each dimension and give a short \"explanation\".",
    AnswerQualityAnswer,
)

SEMANTIC_F1 = Template(
    "semantic_f1",
    "Compare a system's response to the ground truth to compute its recall and precision. "
    "Recall is the fraction of the ground truth covered by the system response; precision is the "
    "fraction of the system response covered by the ground truth. {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"recall\", \"precision\" and a short \"explanation\".",
    SemanticF1Answer,
)

SEMANTIC_F1_DECOMPOSED = Template(
    "semantic_f1_decompositional",
    "Compare a system's response to the ground truth to compute recall and precision of key ideas. "
    "First list the key ideas of each, then discuss their overlap, then give recall (the fraction "
    "of ground-truth key ideas present in the system response) and precision (the fraction of "
    "system-response key ideas present in the ground truth). {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"ground_truth_key_ideas\", \"system_response_key_ideas\", \"discussion\", "
    "\"recall\" and \"precision\".",
    DecomposedSemanticF1Answer,
)

COMPLETENESS = Template(
    "completeness",
    "Estimate the completeness of a system's response against the ground truth: the fraction of "
    "the ground truth's content that the response covers. {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"completeness\" and a short \"explanation\".",
    CompletenessAnswer,
)

GROUNDEDNESS = Template(
    "groundedness",
    "Estimate the groundedness of a system's response in the retrieved context: the fraction of the "
    "response's claims that the context supports or that follow from commonsense. {rule}",
    "Question:\n{query}\n\nRetrieved context:\n{evidence}\n\nSystem response:\n{response}\n\n"
    "Give \"groundedness\" and a short \"explanation\".",
    GroundednessAnswer,
)

LLM_JUDGE = Template(
    "llm_judge",
    "{system_prompt}\n\nEvaluate the output against these criteria:\n{criteria}\n{rule}",
    "Input:\n{query}\n\n{reference_block}Output:\n{response}\n\n"
    "Give an overall \"score\" and an \"explanation\" of it.",
    LlmJudgeAnswer,
)

DIFF_SEMANTIC = Template(
    "diff_semantic",
    "You decide whether two texts say the same thing: the same facts, claims and meaning, "
    "whatever the wording or formatting. {rule}",
    "Expected:\n{expected}\n\nActual:\n{actual}\n\n"
    "Give \"score\" 1 if they are semantically equivalent and 0 if they are not, and an \"explanation\".",
    DiffAnswer,
)


# -- claim-level RAG prompts: the tasks of ragas' Faithfulness, context precision and context recall --

CLAIM_STATEMENTS = Template(
    "claim_statements",
    "Given a question and an answer, analyse each sentence of the answer and break it down into one or "
    "more fully understandable standalone statements. No statement may use a pronoun: name what it refers "
    'to. Answer with a single JSON object and nothing else: {{"statements": ["...", ...]}}.',
    "Question:\n{query}\n\nAnswer:\n{response}\n\nBreak the answer down into standalone statements.",
    StatementsAnswer,
)

CLAIM_VERDICTS = Template(
    "claim_verdicts",
    "Judge the faithfulness of a series of statements to a context. For each statement give verdict 1 if "
    "it can be directly inferred from the context and 0 if it cannot, with a short reason. Answer with a "
    'single JSON object and nothing else: {{"verdicts": [{{"statement": "...", "reason": "...", '
    '"verdict": 0 or 1}}, ...]}}, one entry per statement, in the order given.',
    "Context:\n{evidence}\n\nStatements:\n{statements}\n\nGive a verdict for every statement.",
    StatementVerdictsAnswer,
)

CONTEXT_USEFUL = Template(
    "context_useful",
    "Given a question, an answer and one retrieved context, verify whether the context was useful in "
    "arriving at the given answer. Give verdict 1 if it was useful and 0 if not, with a short reason. "
    'Answer with a single JSON object and nothing else: {{"reason": "...", "verdict": 0 or 1}}.',
    "Question:\n{query}\n\nContext:\n{context}\n\nAnswer:\n{answer}\n\nWas the context useful?",
    ContextUsefulAnswer,
)

CONTEXTS_USEFUL = Template(
    "contexts_useful",
    "Given a question, an answer and the retrieved contexts, numbered in rank order, verify for each "
    "context whether it was useful in arriving at the given answer: verdict 1 if it was useful and 0 if "
    "not, with a short reason. Judge every context on its own, one verdict per context, in the order "
    'given. Answer with a single JSON object and nothing else: {{"verdicts": [{{"reason": "...", '
    '"verdict": 0 or 1}}, ...]}}, exactly {count} entries.',
    "Question:\n{query}\n\nContexts:\n{context}\n\nAnswer:\n{answer}\n\nWas each context useful?",
    ContextsUsefulAnswer,
)

CONTEXT_ATTRIBUTION = Template(
    "context_attribution",
    "Given a context and a reference answer, analyse each sentence of the reference answer and classify "
    "whether the sentence can be attributed to the context: 1 if it can, 0 if it cannot, with a short "
    'reason. Answer with a single JSON object and nothing else: {{"classifications": [{{"statement": '
    '"...", "reason": "...", "attributed": 0 or 1}}, ...]}}, one entry per sentence, in order.',
    "Question:\n{query}\n\nContext:\n{context}\n\nReference answer:\n{reference}\n\n"
    "Classify every sentence of the reference answer.",
    ContextRecallAnswer,
)
