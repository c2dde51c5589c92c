"""Answer relevancy, as ragas and DeepEval define it.

* :class:`AnswerRelevancy` — ragas' ``ResponseRelevancy``: the judge writes ``strictness``
  questions the response would answer, each flagged noncommittal or not; the value is the mean
  cosine similarity of their embeddings to the real question's, times 0 when every generated
  question is flagged noncommittal. Embeddings come from a callable or an OpenAI-compatible
  ``/v1/embeddings`` endpoint (:mod:`evalcore_http.embedders`) over the run's embedding settings.
* :class:`AnswerStatementRelevancy` — DeepEval's ``AnswerRelevancyMetric``: the response broken
  into statements, each judged relevant to the input (``yes``), not (``no``) or ambiguous
  (``borderline``); the value is the share of ``yes`` and ``borderline``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from evalcore.plugin import Record, RunContext, SkipSample, inputs
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict, _listed
from .prompts import CLAIM_STATEMENTS, Template
from .schemas import JudgeAnswer, _Item, verdict_field

# -- ragas' ResponseRelevancy -------------------------------------------------------------------


class GeneratedQuestion(_Item):
    """One question the response answers, and whether the response is noncommittal (1) or not (0)."""

    question: str = Field(description="a question the answer responds to")
    noncommittal: int = verdict_field("1 if the answer is evasive, vague or ambiguous, 0 if it commits")


class ResponseQuestionsAnswer(JudgeAnswer):
    """ragas' response relevance prompt, asked once for all the questions."""

    schema_name: ClassVar[str] = "response_questions"
    questions: list[GeneratedQuestion] = Field(description="the questions, each with its noncommittal flag")


RESPONSE_QUESTIONS = Template(
    "response_questions",
    "Generate {strictness} different questions for the given answer: questions that the answer responds to. "
    "For each, identify if the answer is noncommittal: give noncommittal as 1 if the answer is noncommittal "
    "and 0 if the answer is committal. A noncommittal answer is one that is evasive, vague, or ambiguous. For "
    "example, \"I don't know\" or \"I'm not sure\" are noncommittal answers. Answer with a single JSON object "
    'and nothing else: {{"questions": [{{"question": "...", "noncommittal": 0 or 1}}, ...]}}, '
    "with {strictness} entries.",
    "Answer:\n{response}\n\nGenerate {strictness} questions for this answer.",
    ResponseQuestionsAnswer,
)


def cosine_similarities(question: Sequence[float], generated: Sequence[Sequence[float]]) -> Any:
    """The cosine of each generated question's vector with the question's, in ragas' arithmetic
    (``ResponseRelevancy.calculate_similarity``)."""
    import numpy as np

    question_vec = np.asarray(question, dtype=float).reshape(1, -1)
    gen_question_vec = np.asarray(generated, dtype=float).reshape(len(generated), -1)
    norm = np.linalg.norm(gen_question_vec, axis=1) * np.linalg.norm(question_vec, axis=1)
    return np.dot(gen_question_vec, question_vec.T).reshape(-1) / norm


def response_relevancy(question: Sequence[float], generated: Sequence[Sequence[float]],
                       noncommittal: Sequence[int]) -> float:
    """ragas' ``ResponseRelevancy._calculate_score`` from the vectors: the mean cosine, times 0 when
    every generated question is noncommittal."""
    import numpy as np

    all_noncommittal = np.all(list(noncommittal))
    return float(cosine_similarities(question, generated).mean() * int(not all_noncommittal))


def _embedding_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """This metric's embedding parameters under the names :func:`build_embedder` takes."""
    return {"embed": params["embed"], "model": params["embedding_model"], "base_url": params["embedding_base_url"],
            "api_key_env": params["embedding_api_key_env"], "batch_size": params["batch_size"],
            "cache_mode": params["cache_mode"], "cache_dir": params.get("cache_dir")}


class AnswerRelevancy(StagedJudgeMetric):
    """ragas' ResponseRelevancy: questions generated from the response, their embeddings' mean
    cosine to the real question; 0 when the response is noncommittal throughout."""

    def open(self, context: RunContext) -> None:
        """The critic, and the embedder from the ``embed`` / ``embedding_*`` parameters over the
        run's embedding settings (``--embedding-base-url``, ``--embedding-model``)."""
        from evalcore_http.embedders import build_embedder  # imports numpy: only where it embeds

        super().open(context)
        params = _embedding_params(self.params)
        if params["embed"] is None and not context.setting(params, "base_url", "embedding"):
            raise self.parameter_error(
                "embedding_base_url", "no embedder given: pass embed=<callable>, or embedding_base_url and "
                "embedding_model for an OpenAI-compatible /v1/embeddings endpoint (--embedding-base-url / "
                "--embedding-model set the run's default)")
        try:
            self.embedder = build_embedder(params, context)
        except ValueError as exc:
            raise self.parameter_error("embedding_model", str(exc)) from None
        except TypeError as exc:
            raise self.parameter_error("embed", str(exc)) from None

    def recorded_params(self) -> dict[str, Any]:
        """The judge's settings (:meth:`JudgeMetric.recorded_params`) and the embedder in use
        (``embedder``: ``http:MODEL`` or ``callable:NAME``) with the run's embedding model and base URL."""
        recorded = super().recorded_params()
        if self.context is not None:
            params = _embedding_params(self.params)
            recorded.update(embedder=self.embedder.signature,
                            embedding_model=self.context.setting(params, "model", "embedding"),
                            embedding_base_url=self.context.setting(params, "base_url", "embedding"))
        return recorded

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        inputs.targets(example, "query", blank="skip")  # no question: skipped before any call
        response = inputs.response(prediction, blank="skip")
        strictness = str(self.params["strictness"])
        return [Request("questions", RESPONSE_QUESTIONS,
                        RESPONSE_QUESTIONS.render(strictness=strictness, response=response),
                        ResponseQuestionsAnswer)]

    async def afollow(self, example: Record, prediction: Record,
                      answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        generated = list(answers["questions"].questions)[: self.params["strictness"]]  # type: ignore[attr-defined]
        if all(not g.question for g in generated):
            raise SkipSample("the judge generated no question from the response (ragas scores NaN)")
        query = inputs.targets(example, "query", blank="skip")[0]
        from evalcore_http.embedders import aembed  # imports numpy: only where it embeds

        vectors = await aembed(self.embedder, [query, *(g.question for g in generated)])
        rows = [{"question": g.question, "noncommittal": g.noncommittal, "cosine": float(c)}
                for g, c in zip(generated, cosine_similarities(vectors[0], vectors[1:]))]
        value = response_relevancy(vectors[0], vectors[1:], [g.noncommittal for g in generated])
        noncommittal = all(g.noncommittal for g in generated)
        feedback = "The response is noncommittal." if noncommittal else "Questions the response answers:\n" + \
            "\n".join(f"- {r['question']} (cosine {r['cosine']:.3f})" for r in rows)
        return Verdict(value, feedback, {"generated": rows, "noncommittal": noncommittal,
                                         "embedder": self.embedder.signature})

    def usage_summary(self) -> dict[str, Any]:
        """The judge's calls, tokens and cost, and the embedding cache's hits and misses."""
        cache = getattr(getattr(self, "embedder", None), "cache", None)
        return {**super().usage_summary(), "embedding_cache": cache.stats.to_dict() if cache is not None else None}


# -- DeepEval's AnswerRelevancyMetric ---------------------------------------------------------------


class StatementRelevance(_Item):
    """One statement's relevance to the input: yes, no or borderline, with a reason."""

    reason: str = Field(description="why the statement is irrelevant or ambiguous (empty for yes)")
    verdict: Literal["yes", "no", "borderline"] = Field(
        description="yes: relevant to the input; no: irrelevant; borderline: ambiguous or supporting information")


class StatementRelevanceAnswer(JudgeAnswer):
    """DeepEval's answer relevancy verdicts: one per statement, in the order given."""

    schema_name: ClassVar[str] = "statement_relevance"
    verdicts: list[StatementRelevance] = Field(description="one verdict per statement, in the order given")


STATEMENT_RELEVANCE = Template(
    "statement_relevance",
    "For the provided list of statements, determine whether each statement is relevant to address the input. "
    "The verdict is 'yes' (the statement is relevant to addressing the input), 'no' (it is irrelevant to the "
    "input) or 'borderline' (it is ambiguous: not directly relevant but could be supporting information); give "
    "a reason for 'no' and 'borderline'. The statements are from an AI's actual output. Answer with a single "
    'JSON object and nothing else: {{"verdicts": [{{"reason": "...", "verdict": "yes", "no" or "borderline"}}, '
    "...]}}, one verdict per statement, in the order given.",
    "Input:\n{query}\n\nStatements:\n{statements}\n\nGive a verdict for every statement.",
    StatementRelevanceAnswer,
)

PASSING = ("yes", "borderline")
"""The verdicts DeepEval's AnswerRelevancyMetric counts as relevant."""


def relevant_fraction(verdicts: Sequence[str]) -> float:
    """DeepEval's ``score_qag_verdicts`` with passing ``yes`` and ``borderline``: their share of the
    verdicts, 1 when there is none."""
    return sum(1 for v in verdicts if v in PASSING) / len(verdicts) if verdicts else 1.0


class AnswerStatementRelevancy(StagedJudgeMetric):
    """DeepEval's AnswerRelevancyMetric: the share of the response's statements relevant to the input."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        query = inputs.targets(example, "query", blank="skip")[0]
        response = inputs.response(prediction, blank="skip")
        return [Request("statements", CLAIM_STATEMENTS, CLAIM_STATEMENTS.render(query=query, response=response),
                        CLAIM_STATEMENTS.answer)]

    def _judge(self, example: Record, statements: Sequence[str]) -> Request:
        query = inputs.targets(example, "query", blank="skip")[0]
        messages = STATEMENT_RELEVANCE.render(query=query, statements=_listed(statements))
        return Request("verdicts", STATEMENT_RELEVANCE, messages, StatementRelevanceAnswer)

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        first = self._checked_requests(example, prediction)  # the statements restate the response
        return [*first, self._judge(example, [inputs.response(prediction, blank="skip")])]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        statements = list(answers["statements"].statements)  # type: ignore[attr-defined]
        if statements and "verdicts" not in answers:
            return [self._judge(example, statements)]
        verdicts = list(answers["verdicts"].verdicts) if statements else []  # type: ignore[attr-defined]
        rows = [{"statement": s, "verdict": v.verdict, "reason": v.reason} for s, v in zip(statements, verdicts)]
        value = relevant_fraction([v.verdict for v in verdicts])
        irrelevant = [f"- {r['statement']}: {r['reason']}" for r in rows if r["verdict"] == "no"]
        if not statements:
            feedback = "The judge found no statements in the response (DeepEval scores 1)."
        elif irrelevant:
            feedback = "Irrelevant to the input:\n" + "\n".join(irrelevant)
        else:
            feedback = "Every statement is relevant to the input."
        return Verdict(value, feedback, {"statements": statements, "verdicts": rows,
                                         "relevant": sum(1 for v in verdicts if v.verdict in PASSING),
                                         "total": len(verdicts)})
