"""The answer every judge prompt asks for, declared as a pydantic model.

Each prompt template in :mod:`evalcore_judge.prompts` names its answer model here; the
template's hash covers the model's JSON schema, so a changed schema never reuses old
answers from the cache. The HTTP and LiteLLM backends send the schema as OpenAI structured
output (``response_format={"type": "json_schema", ...}``, which llama.cpp's server and
LiteLLM accept too), the DSPy backend turns it into a typed signature, and the other
backends put it into the prompt; every answer, from every backend, is validated against
the model before it is used or cached.

A model's score fields (:attr:`JudgeAnswer.score_fields`) are on its scale
(:attr:`JudgeAnswer.score_scale`); :meth:`JudgeAnswer.variant` gives the same answer on
another scale, or with other score fields (the dimensions of ``answer_quality``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, Strict, create_model

SCALES: dict[str, tuple[float, float]] = {"0-1": (0.0, 1.0), "1-5": (1.0, 5.0), "0-10": (0.0, 10.0)}
"""The scales a judge answers on: name -> (lowest, highest)."""

Number = Annotated[float, Strict()]
"""A JSON number (an integer or a float; not a boolean, not a string), finite where a field says so."""


def _strict_schema(schema: dict[str, Any], cls: type) -> None:
    """Make the JSON schema one that OpenAI's strict structured outputs accept: every property
    required, no other properties, no defaults (an answer may still leave a text field out:
    validation fills in its default)."""
    schema.pop("description", None)  # the docstring is for readers; the prompt says what is judged
    properties = schema.get("properties", {})
    for prop in properties.values():
        prop.pop("default", None)
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def score_field(low: float = 0.0, high: float = 1.0, description: str = "") -> Any:
    """A score field: a finite number from ``low`` to ``high``."""
    return Field(ge=low, le=high, allow_inf_nan=False, description=description or None)


def text_field(description: str) -> Any:
    """A text field (empty when the judge leaves it out)."""
    return Field("", description=description)


class JudgeAnswer(BaseModel):
    """Base of every judge answer: score fields on a scale and a rationale.

    ``schema_name`` is the name sent with the schema, ``score_fields`` the numeric fields
    (on ``score_scale``), ``rationale_field`` the field that explains the verdict (kept in
    the result's details and sent as its feedback). Keys the schema does not know are
    ignored when an answer is read.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra=_strict_schema)

    schema_name: ClassVar[str] = "judge_answer"
    score_fields: ClassVar[tuple[str, ...]] = ()
    score_scale: ClassVar[str] = "0-1"
    rationale_field: ClassVar[str] = "explanation"

    @classmethod
    def variant(cls, scale: str | None = None, scores: Sequence[str] | None = None) -> type[JudgeAnswer]:
        """This answer with its score fields on ``scale`` (a key of :data:`SCALES`), or with the
        score fields ``scores`` instead of its own (text fields kept, before the scores)."""
        scale = scale or cls.score_scale
        names = tuple(scores) if scores is not None else cls.score_fields
        if scale == cls.score_scale and names == cls.score_fields:
            return cls
        key = (cls, scale, names)
        made = _VARIANTS.get(key)
        if made is None:
            taken = [name for name in names if hasattr(JudgeAnswer, name) or name.startswith("_")]
            if taken:
                raise ValueError(f"{', '.join(map(repr, taken))} cannot name a score: the answer model uses it")
            low, high = SCALES[scale]
            fields: dict[str, Any] = {
                name: (info.annotation, info) for name, info in cls.model_fields.items()
                if name not in cls.score_fields
            }
            for name in names:
                own = cls.model_fields.get(name)
                fields[name] = (Number, score_field(low, high, own.description if own else f"the answer's {name}"))
            made = create_model(cls.__name__, __base__=JudgeAnswer, __doc__=cls.__doc__, **fields)
            made.schema_name, made.score_fields, made.score_scale = cls.schema_name, names, scale
            made.rationale_field = cls.rationale_field
            _VARIANTS[key] = made
        return made

    @classmethod
    def keys(cls) -> list[str]:
        """The answer's keys, in the order the judge is asked to give them."""
        return list(cls.model_fields)

    @classmethod
    def response_format(cls) -> dict[str, Any]:
        """The OpenAI structured-output request field for this answer (made once; not to be changed)."""
        made = _FORMATS.get(cls)
        if made is None:
            made = _FORMATS[cls] = {"type": "json_schema", "json_schema": {
                "name": cls.schema_name, "schema": json_schema(cls), "strict": True}}
        return made

    def raw_scores(self) -> dict[str, float]:
        """The score fields as the judge gave them, on :attr:`score_scale`."""
        return {name: float(getattr(self, name)) for name in self.score_fields}

    def scores(self) -> dict[str, float]:
        """The score fields normalised to [0, 1]."""
        low, high = SCALES[self.score_scale]
        return {name: (value - low) / (high - low) for name, value in self.raw_scores().items()}

    @property
    def rationale(self) -> str | None:
        """The judge's explanation of its verdict (``None`` when it gave none)."""
        value = getattr(self, self.rationale_field, None)
        return value.strip() or None if isinstance(value, str) else None


_VARIANTS: dict[tuple[Any, ...], type[JudgeAnswer]] = {}
_SCHEMAS: dict[type, dict[str, Any]] = {}
_FORMATS: dict[type, dict[str, Any]] = {}

EXPLANATION = "a short explanation of the verdict"


def json_schema(model: type[JudgeAnswer]) -> dict[str, Any]:
    """``model``'s JSON schema (strict: every key required, no others), computed once."""
    schema = _SCHEMAS.get(model)
    if schema is None:
        schema = _SCHEMAS[model] = model.model_json_schema()
    return schema


def instruction(model: type[JudgeAnswer]) -> str:
    """The sentence that asks for ``model`` in the prompt, where the backend cannot enforce it."""
    schema = json.dumps(json_schema(model), separators=(",", ":"))
    return f"Answer with only a JSON object that matches this JSON schema: {schema}"


def with_instruction(messages: Sequence[Mapping[str, str]], model: type[JudgeAnswer]) -> list[dict[str, str]]:
    """``messages`` with :func:`instruction` at the end of the system message (or as one)."""
    out = [dict(m) for m in messages]
    note = instruction(model)
    for message in out:
        if message.get("role") == "system":
            message["content"] = f"{message['content']}\n\n{note}"
            return out
    return [{"role": "system", "content": note}, *out]


# -- the answers of the judge prompts (one per template, bound to it in prompts.py) --------


class ScoreAnswer(JudgeAnswer):
    """One score and its explanation (a free prompt asked through ``LLMCritic.score``)."""

    schema_name: ClassVar[str] = "score"
    score_fields: ClassVar[tuple[str, ...]] = ("score",)
    explanation: str = text_field(EXPLANATION)
    score: Number = score_field(description="the score")


class FaithfulnessAnswer(JudgeAnswer):
    """Faithfulness (the Auepora RAG metric spec): how well the evidence supports the answer."""

    schema_name: ClassVar[str] = "faithfulness"
    score_fields: ClassVar[tuple[str, ...]] = ("score",)
    explanation: str = text_field("which claims the evidence supports and which it does not")
    score: Number = score_field(description="how well the evidence supports the answer")


class AnswerQualityAnswer(JudgeAnswer):
    """Answer quality (the Auepora RAG metric spec): one score per dimension (``variant(scores=...)``
    for other dimensions)."""

    schema_name: ClassVar[str] = "answer_quality"
    score_fields: ClassVar[tuple[str, ...]] = ("relevance", "helpfulness", "clarity")
    explanation: str = text_field(EXPLANATION)
    relevance: Number = score_field(description="how relevant the answer is to the question")
    helpfulness: Number = score_field(description="how helpful the answer is")
    clarity: Number = score_field(description="how clear the answer is")


class SemanticF1Answer(JudgeAnswer):
    """DSPy's SemanticF1: recall and precision of the response against the ground truth."""

    schema_name: ClassVar[str] = "semantic_f1"
    score_fields: ClassVar[tuple[str, ...]] = ("recall", "precision")
    explanation: str = text_field(EXPLANATION)
    recall: Number = score_field(description="fraction of the ground truth covered by the system response")
    precision: Number = score_field(description="fraction of the system response covered by the ground truth")


class DecomposedSemanticF1Answer(JudgeAnswer):
    """DSPy's decompositional SemanticF1: key ideas of each side, their overlap, recall and precision."""

    schema_name: ClassVar[str] = "semantic_f1_decompositional"
    score_fields: ClassVar[tuple[str, ...]] = ("recall", "precision")
    rationale_field: ClassVar[str] = "discussion"
    ground_truth_key_ideas: str = text_field("enumeration of key ideas in the ground truth")
    system_response_key_ideas: str = text_field("enumeration of key ideas in the system response")
    discussion: str = text_field("discussion of the overlap between ground truth and system response")
    recall: Number = score_field(description="fraction of ground-truth key ideas present in the system response")
    precision: Number = score_field(description="fraction of system-response key ideas present in the ground truth")


class CompletenessAnswer(JudgeAnswer):
    """DSPy's CompleteAndGrounded, first half: completeness against the ground truth."""

    schema_name: ClassVar[str] = "completeness"
    score_fields: ClassVar[tuple[str, ...]] = ("completeness",)
    explanation: str = text_field(EXPLANATION)
    completeness: Number = score_field(description="fraction of the ground truth's content the response covers")


class GroundednessAnswer(JudgeAnswer):
    """DSPy's CompleteAndGrounded, second half: groundedness in the retrieved context."""

    schema_name: ClassVar[str] = "groundedness"
    score_fields: ClassVar[tuple[str, ...]] = ("groundedness",)
    explanation: str = text_field(EXPLANATION)
    groundedness: Number = score_field(description="fraction of the response's claims the context supports")


class LlmJudgeAnswer(JudgeAnswer):
    """The dsrs LlmJudgeMetric: an overall score against the criteria, and its explanation."""

    schema_name: ClassVar[str] = "llm_judge"
    score_fields: ClassVar[tuple[str, ...]] = ("score",)
    explanation: str = text_field("how the output meets the criteria")
    score: Number = score_field(description="overall score against the criteria")


class DiffAnswer(JudgeAnswer):
    """The dsrs DiffMetric at the Semantic level: 1 when equivalent, 0 when not."""

    schema_name: ClassVar[str] = "diff_semantic"
    score_fields: ClassVar[tuple[str, ...]] = ("score",)
    explanation: str = text_field(EXPLANATION)
    score: Number = score_field(description="1 if the texts are semantically equivalent, 0 if not")


# -- claim-level RAG answers (ragas' Faithfulness, context precision and context recall) -----


class _Item(BaseModel):
    """An entry of a list answer (strict like the answers: every key required, no others)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_strict_schema)


def verdict_field(description: str) -> Any:
    """A binary verdict: 1 (yes) or 0 (no)."""
    return Field(ge=0, le=1, description=description)


class StatementsAnswer(JudgeAnswer):
    """ragas' statement generator: the response broken down into standalone statements."""

    schema_name: ClassVar[str] = "claim_statements"
    statements: list[str] = Field(description="the answer's standalone statements, without pronouns")


class StatementVerdict(_Item):
    """One statement, why the context does or does not support it, and the verdict (1/0)."""

    statement: str = Field(description="the statement, as given")
    reason: str = Field(description="the reason of the verdict")
    verdict: int = verdict_field("1 if the statement can be directly inferred from the context, 0 if not")


class StatementVerdictsAnswer(JudgeAnswer):
    """ragas' NLI statement prompt: a verdict per statement, in the order given."""

    schema_name: ClassVar[str] = "claim_verdicts"
    verdicts: list[StatementVerdict] = Field(description="one verdict per statement, in the order given")


class ContextUsefulAnswer(JudgeAnswer):
    """ragas' context precision prompt: was this context useful in arriving at the answer (1/0)?"""

    schema_name: ClassVar[str] = "context_useful"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field(description="reason for the verdict")
    verdict: int = verdict_field("1 if the context was useful in arriving at the answer, 0 if not")


class ContextVerdict(_Item):
    """One retrieved context, why it was useful or not, and the verdict (1/0)."""

    reason: str = Field(description="reason for the verdict")
    verdict: int = verdict_field("1 if the context was useful in arriving at the answer, 0 if not")


class ContextsUsefulAnswer(JudgeAnswer):
    """Every retrieved context judged in one call (as DeepEval's contextual precision asks): a verdict
    per context, in rank order."""

    schema_name: ClassVar[str] = "contexts_useful"
    verdicts: list[ContextVerdict] = Field(description="one verdict per context, in the order given")


class SentenceAttribution(_Item):
    """One reference sentence, why it can or cannot be attributed to the context, and the verdict (1/0)."""

    statement: str = Field(description="the sentence of the reference answer")
    reason: str = Field(description="the reason of the classification")
    attributed: int = verdict_field("1 if the sentence can be attributed to the context, 0 if not")


class ContextRecallAnswer(JudgeAnswer):
    """ragas' context recall classification: each sentence of the reference, attributed or not."""

    schema_name: ClassVar[str] = "context_recall"
    classifications: list[SentenceAttribution] = Field(description="one entry per sentence of the reference")


class ScoreReasonAnswer(JudgeAnswer):
    """DeepEval's judged score, 0 to 1, and its reason (each prompt's subclass names its own schema)."""

    rationale_field: ClassVar[str] = "reason"
    score: Number = score_field(0.0, 1.0, "the score, from 0 to 1")
    reason: str = Field(description="1-3 concise, factual sentences explaining the score")
