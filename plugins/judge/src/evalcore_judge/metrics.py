"""The judge metrics: faithfulness, answer quality, SemanticF1, CompleteAndGrounded, LLM judge, semantic diff.

Each metric renders one or more versioned prompts, asks its critic (concurrently, through
the cache), parses the answers without guessing and combines them. A backend failure or
an unparseable answer is an ``error`` result carrying the reason and the raw answer; the
cost of the calls that did happen is kept on the result.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore.http import Usage, estimate_tokens
from evalcore.plugin import (
    InputError,
    Record,
    RunContext,
    SampleMetric,
    Score,
    SkipSample,
    get_path,
    inputs,
    reference_answers,
)

from .config import build_critic
from .critic import Call
from .parsing import Parsed, UnparseableJudgement
from .prompts import (
    ANSWER_QUALITY,
    COMPLETENESS,
    DIFF_SEMANTIC,
    FAITHFULNESS,
    GROUNDEDNESS,
    LLM_JUDGE,
    SEMANTIC_F1,
    SEMANTIC_F1_DECOMPOSED,
    Template,
    json_rule,
    numbered,
)


@attrs.frozen
class Request:
    """One prompt to ask: its role in the metric, messages, the fields to read and their scale."""

    role: str
    template: Template
    messages: list[dict[str, str]]
    fields: tuple[str, ...]
    scale: str = "0-1"


@attrs.frozen
class Verdict:
    """What a metric makes of its parsed answers."""

    value: float
    feedback: str | None = None
    details: Mapping[str, Any] = attrs.field(factory=dict)


def f1_score(precision: float, recall: float) -> float:
    """Harmonic mean of precision and recall (0 when both are 0), as DSPy computes it."""
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


@attrs.define
class _Spent:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_msats: int = 0


class JudgeMetric(SampleMetric):
    """Base class: subclasses implement :meth:`requests` and :meth:`combine`."""

    def setup(self) -> None:
        if "threshold" in self.params:
            self.spec = self.spec.model_copy(update={"pass_threshold": self.params["threshold"]})
        self._spent = _Spent()
        self._lock = threading.Lock()

    def open(self, context: RunContext) -> None:
        """The critic from this metric's parameters over the run's judge settings and cache."""
        super().open(context)
        self.critic = build_critic(self.params, context, self.id)

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        raise NotImplementedError

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        raise NotImplementedError

    # -- scoring -------------------------------------------------------------------------

    def _checked_requests(self, example: Record, prediction: Record) -> list[Request]:
        requests = self.requests(example, prediction)
        size = sum(len(m["content"]) for r in requests for m in r.messages)
        if size > self.params["max_input_chars"]:
            raise InputError(
                f"the judge prompt has {size} characters, more than max_input_chars="
                f"{self.params['max_input_chars']}", field="prediction.response",
            )
        return requests

    async def ascore(self, example: Record, prediction: Record) -> Score:
        requests = self._checked_requests(example, prediction)
        outcomes = await asyncio.gather(*(self._ask(r) for r in requests), return_exceptions=True)
        calls = {r.role: o for r, o in zip(requests, outcomes) if isinstance(o, Call)}
        details = self._details(requests, calls)
        cost = sum(c.cost_msats for c in calls.values())
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                raise outcome
            if isinstance(outcome, Exception):
                body = getattr(outcome, "body", None)
                extra = {"response_body": body[:2000]} if body else {}
                return attrs.evolve(Score.error(outcome, **details, **extra), cost_msats=cost)
        parsed = {}
        for request in requests:
            try:
                parsed[request.role] = self.critic.parse(calls[request.role], request.fields, request.scale)
            except UnparseableJudgement as exc:
                return attrs.evolve(
                    Score.error("UnparseableJudgement", f"{request.role}: {exc.reason}", **details),
                    cost_msats=cost,
                )
        verdict = self.combine(parsed)
        return Score(verdict.value, feedback=verdict.feedback, details={**details, **verdict.details},
                     cost_msats=cost)

    async def _ask(self, request: Request) -> Call:
        call = await self.critic.acall(
            request.messages, metric=self.spec.key, version=self.spec.version,
            template_hash=request.template.hash,
            metadata={"metric": self.id, "role": request.role, "fields": list(request.fields)},
        )
        if not call.cached:
            usage = call.usage or Usage()
            with self._lock:
                self._spent.calls += 1
                self._spent.prompt_tokens += usage.prompt_tokens
                self._spent.completion_tokens += usage.completion_tokens
                self._spent.cost_msats += call.cost_msats
        return call

    def _details(self, requests: Sequence[Request], calls: Mapping[str, Call]) -> dict[str, Any]:
        hits = [c for c in calls.values() if c.cached]
        fresh = [c for c in calls.values() if not c.cached]
        return {
            "backend": self.critic.backend.name, "model": self.critic.model,
            "metric_version": self.spec.version,
            "template_hash": {r.role: r.template.hash for r in requests},
            "decoding": self.critic.decoding.to_dict(),
            "answers": {role: c.text for role, c in calls.items()},
            "cache": {"hits": len(hits), "misses": len(fresh)},
            "usage": _usage_sum(fresh),
            "saved": {**_usage_sum(hits), "cost_msats": sum(c.saved_cost_msats for c in hits)},
            "usage_estimated": any(c.usage is not None and not c.usage.reported for c in fresh),
        }

    # -- budgets and summaries ---------------------------------------------------------------

    def estimate(self, example: Record, prediction: Record) -> dict[str, int]:
        """Calls, tokens and cost one sample will take at most (cache hits count as free).

        Prompt tokens are estimated from the prompt length, completion tokens are the
        ``max_tokens`` limit: an upper bound the evaluator can reserve against a budget.
        A sample that would be skipped estimates to zero.
        """
        self.ensure_open()
        try:
            requests = self._checked_requests(example, prediction)
        except (SkipSample, InputError):
            return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_msats": 0}
        calls = prompt_tokens = completion_tokens = cost = 0
        for request in requests:
            key = self.critic.key(request.messages, metric=self.spec.key, version=self.spec.version,
                                  template_hash=request.template.hash)
            if self.critic.cache is not None and self.critic.cache.contains(key):
                continue
            usage = Usage(estimate_tokens("\n".join(m["content"] for m in request.messages)),
                          self.critic.decoding.max_tokens, reported=False)
            calls += 1
            prompt_tokens += usage.prompt_tokens
            completion_tokens += usage.completion_tokens
            cost += self.critic.cost_msats(usage)
        return {"calls": calls, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "cost_msats": cost}

    def usage_summary(self) -> dict[str, Any]:
        """Backend calls, tokens and cost spent by this instance, and its cache's hits and savings."""
        critic = getattr(self, "critic", None)
        cache = critic.cache.stats.to_dict() if critic is not None and critic.cache is not None else None
        with self._lock:
            return {**attrs.asdict(self._spent), "cache": cache}

    # -- shared input helpers ---------------------------------------------------------------

    def rule(self, fields: Sequence[str], scale: str = "0-1") -> str:
        return json_rule([*fields, "explanation"], scale)


def _usage_sum(calls: Sequence[Call]) -> dict[str, int]:
    usages = [c.usage for c in calls if c.usage is not None]
    return {"prompt_tokens": sum(u.prompt_tokens for u in usages),
            "completion_tokens": sum(u.completion_tokens for u in usages)}


def _query(example: Record) -> str:
    query = example.get("query")
    return query if isinstance(query, str) and query.strip() else "(not given)"


def _reference(example: Record) -> str:
    return "\n".join(reference_answers(example))


class Faithfulness(JudgeMetric):
    """From the Auepora RAG metric spec: is the answer supported by the retrieved (or relevant) evidence?"""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        scale = self.params["scale"]
        evidence = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        messages = FAITHFULNESS.render(
            rule=self.rule(["score"], scale), query=_query(example), evidence=numbered(evidence),
            response=inputs.response(prediction, blank="skip"),
        )
        return [Request("faithfulness", FAITHFULNESS, messages, ("score",), scale)]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["faithfulness"]
        return Verdict(judged.values["score"], judged.explanation,
                       {"raw_score": judged.raw_values["score"], "explanation": judged.explanation})


class AnswerQuality(JudgeMetric):
    """From the Auepora RAG metric spec: relevance, helpfulness and clarity (configurable), combined by weight."""

    def setup(self) -> None:
        super().setup()
        dimensions = self.params["dimensions"]
        weights = self.params["weights"] or {d: 1.0 for d in dimensions}
        unknown = sorted(set(weights) - set(dimensions))
        if unknown or not dimensions:
            raise InputError(f"weights name dimensions not asked for: {unknown}" if unknown else
                             "answer_quality needs at least one dimension", field="params")
        if any(w < 0 for w in weights.values()) or sum(weights.get(d, 0.0) for d in dimensions) <= 0:
            raise InputError("weights must be non-negative and not all zero", field="params.weights")
        self.weights = {d: float(weights.get(d, 0.0)) for d in dimensions}

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        scale, dims = self.params["scale"], tuple(self.params["dimensions"])
        query = example.get("query")
        if not isinstance(query, str) or not query.strip():
            raise SkipSample("example.query is missing")
        messages = ANSWER_QUALITY.render(
            rule=self.rule(dims, scale), dimensions=", ".join(dims), query=query,
            response=inputs.response(prediction, blank="skip"),
        )
        return [Request("quality", ANSWER_QUALITY, messages, dims, scale)]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["quality"]
        total = sum(self.weights.values())
        value = sum(self.weights[d] * judged.values[d] for d in self.weights) / total
        return Verdict(value, judged.explanation, {
            "dimensions": dict(judged.values), "weights": self.weights, "explanation": judged.explanation,
        })


class SemanticF1(JudgeMetric):
    """DSPy's SemanticF1: the judge's recall and precision of the reference's key ideas, combined as F1."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        template = SEMANTIC_F1_DECOMPOSED if self.params["decompositional"] else SEMANTIC_F1
        messages = template.render(
            rule=self.rule(["recall", "precision"]), query=_query(example), reference=_reference(example),
            response=inputs.response(prediction, blank="skip"),
        )
        return [Request("semantic_f1", template, messages, ("recall", "precision"))]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["semantic_f1"]
        precision, recall = judged.values["precision"], judged.values["recall"]
        return Verdict(f1_score(precision, recall), judged.explanation,
                       {"precision": precision, "recall": recall, "explanation": judged.explanation})


class CompleteAndGrounded(JudgeMetric):
    """DSPy's CompleteAndGrounded: F1 of completeness (vs reference) and groundedness (in the context)."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        query, response = _query(example), inputs.response(prediction, blank="skip")
        evidence = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        complete = COMPLETENESS.render(rule=self.rule(["completeness"]), query=query,
                                       reference=_reference(example), response=response)
        grounded = GROUNDEDNESS.render(rule=self.rule(["groundedness"]), query=query,
                                       evidence=numbered(evidence), response=response)
        return [Request("completeness", COMPLETENESS, complete, ("completeness",)),
                Request("groundedness", GROUNDEDNESS, grounded, ("groundedness",))]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        completeness = parsed["completeness"].values["completeness"]
        groundedness = parsed["groundedness"].values["groundedness"]
        feedback = "\n".join(p.explanation for p in parsed.values() if p.explanation) or None
        return Verdict(f1_score(groundedness, completeness), feedback,
                       {"completeness": completeness, "groundedness": groundedness})


class LlmJudge(JudgeMetric):
    """The dsrs LlmJudgeMetric: a system prompt and criteria; the judge's explanation in details."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        scale = self.params["scale"]
        references = example.get("reference_answer")
        reference_block = f"Reference:\n{_reference(example)}\n\n" if references else ""
        messages = LLM_JUDGE.render(
            rule=self.rule(["score"], scale), system_prompt=self.params["system_prompt"],
            criteria="\n".join(f"- {c}" for c in self.params["criteria"]), query=_query(example),
            reference_block=reference_block, response=inputs.response(prediction, blank="skip"),
        )
        return [Request("judge", LLM_JUDGE, messages, ("score",), scale)]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["judge"]
        return Verdict(judged.values["score"], judged.explanation,
                       {"raw_score": judged.raw_values["score"], "explanation": judged.explanation,
                        "criteria": list(self.params["criteria"])})


class DiffSemantic(JudgeMetric):
    """The ``Semantic`` strictness of the dsrs DiffMetric: are expected and actual equivalent?"""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        field = self.params["field"]
        actual = get_path(prediction, field, None)
        if actual is None:
            raise SkipSample(f"prediction.{field} is missing")
        expected = _reference(example)
        messages = DIFF_SEMANTIC.render(rule=self.rule(["score"]), expected=expected, actual=str(actual))
        return [Request("diff", DIFF_SEMANTIC, messages, ("score",))]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["diff"]
        return Verdict(judged.values["score"], judged.explanation, {"explanation": judged.explanation})
