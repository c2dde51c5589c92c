"""The judge metrics: faithfulness, answer quality, SemanticF1, CompleteAndGrounded, LLM judge, semantic diff,
and the claim-level RAG metrics of ragas (claim faithfulness, context precision, context recall).

Each metric renders one or more versioned prompts, each with the pydantic model of its
answer, asks its critic (concurrently, through the cache), which validates every answer
(with one repair request for an answer that fails), and combines them. A backend failure
or an answer that fails validation twice is an ``error`` result carrying the reason and the
raw answers, never 0 or NaN; the cost of the calls that did happen is kept on the result.

Every result's details keep, besides the prompt template hash and decoding: the prompts sent
(``prompts``: the chat messages per prompt), the judge's
rationale (``explanation``, also the result's feedback), the raw answers (``answers``: the
one used per prompt; ``raw_answers``: all, in order), the ``model``, the tokens (``usage``)
and ``cost_msats``, how the answer's schema was asked for (``answer_format`` per prompt:
``json_schema``, ``instructions`` or ``dspy_signature``; ``structured_output``: whether the
backend shaped every answer) and whether an answer was ``repaired``.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
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
from evalcore_http.images import content_text
from evalcore_http.prices import Usage, estimate_tokens

from .backends import STRUCTURED_FORMATS, DSPyTask
from .config import build_critic, decoding_settings, judge_settings
from .critic import Call, InvalidAnswer, LLMCritic
from .panel import Judge, Tally, build_judges, combine, panel_members
from .parsing import Parsed
from .prompts import (
    ANSWER_QUALITY,
    CLAIM_STATEMENTS,
    CLAIM_VERDICTS,
    COMPLETENESS,
    CONTEXT_ATTRIBUTION,
    CONTEXT_USEFUL,
    CONTEXTS_USEFUL,
    DIFF_SEMANTIC,
    FAITHFULNESS,
    GROUNDEDNESS,
    LLM_JUDGE,
    SEMANTIC_F1,
    SEMANTIC_F1_DECOMPOSED,
    Template,
    answer_rule,
    numbered,
)
from .schemas import JudgeAnswer


@attrs.frozen
class Request:
    """One prompt to ask: its role in the metric, its template, the messages and the answer's model;
    ``dspy``: the same question as DSPy's own metric asks it (asked so on DSPy's LM)."""

    role: str
    template: Template
    messages: list[dict[str, str]]
    answer: type[JudgeAnswer]
    dspy: DSPyTask | None = None

    @property
    def fields(self) -> tuple[str, ...]:
        """The answer's score fields."""
        return self.answer.score_fields

    @property
    def scale(self) -> str:
        return self.answer.score_scale


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


_NO_SERVER = frozenset({"callable", "critic", "dspy", "transformers"})
"""Backends that call no server at a base URL (a base URL in the run's settings is not theirs)."""

_JUDGING: contextvars.ContextVar[tuple[JudgeMetric, LLMCritic] | None] = contextvars.ContextVar(
    "judging", default=None)
"""The metric and the critic of the judgement being made in this task (a sample of a panel member)."""


class JudgeMetric(SampleMetric):
    """Base class: subclasses implement :meth:`requests` and :meth:`combine`.

    :meth:`ascore` makes every judgement a record gets (``n`` samples of each of ``judges``,
    :mod:`evalcore_judge.panel`), each one :meth:`judge_once` with :attr:`critic` the one asking."""

    def setup(self) -> None:
        if "threshold" in self.params:
            self.spec = self.spec.evolve(pass_threshold=self.params["threshold"])
        self._spent = _Spent()
        self._lock = threading.Lock()
        self._settings_seen: dict[str, set[str]] = {"prompt_hash": set(), "response_format": set()}
        self._members = panel_members(self.params, self.id)
        self._tally = Tally([name for name, _ in self._members], self.params["n"])
        self._judges: list[Judge] | None = None
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary())

    def open(self, context: RunContext) -> None:
        """The critic from this metric's parameters (and the first panel member's settings) over the
        run's judge settings and cache."""
        super().open(context)
        self.critic = build_critic({**self.params, **self._members[0][1]}, context, self.id)
        self._judges = None

    def recorded_params(self) -> dict[str, Any]:
        """The parameters, with every judge setting that can change the number: the backend, model and
        base URL the judge uses once open (from the run's judge settings when the parameters leave them
        unset) and, once it has asked, the hashes of the prompt templates it sent (``prompt_hash``) and how
        the answers' schema was asked for (``response_format``: ``json_schema``, ``instructions`` or
        ``dspy_signature``), so runs judged differently do not compare."""
        recorded = super().recorded_params()
        if self.context is not None:
            backend = self._critic.backend.name
            base_url = None if backend in _NO_SERVER else judge_settings(self.params, self.context).get("base_url")
            recorded.update(backend=backend, model=self._critic.model, base_url=base_url,
                            **decoding_settings(self.params, self.context, self.id))
        with self._lock:
            asked = {name: ",".join(sorted(values)) for name, values in self._settings_seen.items() if values}
        return {**recorded, **asked}

    @property
    def critic(self) -> LLMCritic:
        """The critic asking now: the current judgement's, else the metric's own."""
        judging = _JUDGING.get()
        return judging[1] if judging is not None and judging[0] is self else self._critic

    @critic.setter
    def critic(self, critic: LLMCritic) -> None:
        self._critic = critic

    def judges(self) -> list[Judge]:
        """Every judgement a record gets: ``n`` samples of each panel member (made once the metric is open)."""
        self.ensure_open()
        with self._lock:
            if self._judges is None:
                self._judges = build_judges(self._members, self.params, self.context, self.id, self._critic)
            return self._judges

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        raise NotImplementedError

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        raise NotImplementedError

    def __call__(self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
                 pred_trace: Any = None) -> Any:
        """Called DSPy-style with DSPy's objects (``dspy.Example`` / ``dspy.Prediction``), the judge
        returns what DSPy's ``SemanticF1`` and ``CompleteAndGrounded`` return,
        ``dspy.Prediction(score=...)``, with the judge's explanation as ``feedback`` (GEPA reads it);
        the score is ``score >= threshold`` when ``trace`` is given. Called with plain records, it
        returns the number (the pass/fail bool with a trace), as every evalcore metric does."""
        dspy = _dspy_of(gold, pred)
        if dspy is None:
            return super().__call__(gold, pred, trace, pred_name, pred_trace)
        graded = self.feedback(gold, pred)
        return dspy.Prediction(score=graded.score if trace is None else self.spec.passes(graded.score),
                               feedback=graded.feedback)

    # -- scoring -------------------------------------------------------------------------

    def _checked_requests(self, example: Record, prediction: Record) -> list[Request]:
        requests = self.requests(example, prediction)
        size = sum(len(content_text(m["content"])) for r in requests for m in r.messages)
        if size > self.params["max_input_chars"]:
            raise InputError(
                f"the judge prompt has {size} characters, more than max_input_chars="
                f"{self.params['max_input_chars']}", field="prediction.response",
            )
        return requests

    async def ascore(self, example: Record, prediction: Record) -> Score:
        """One judgement (:meth:`judge_once`), or every judgement of ``n`` / ``judges`` aggregated;
        ``concurrency`` records at a time on an event loop (the rest wait before building their
        prompts, so the first calls go out while later records are still waiting)."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = asyncio.Semaphore(self.params["concurrency"])
        async with gate:
            return await self._ascore(example, prediction)

    async def _ascore(self, example: Record, prediction: Record) -> Score:
        judges = self.judges()
        if len(judges) == 1:
            return await self.judge_once(example, prediction)
        if any(j.critic.backend.name == "dspy" for j in judges):  # DSPy's LM answers in turn, as in _ask_all
            outcomes: list[Score | BaseException] = []
            for judge in judges:
                try:
                    outcomes.append(await self._judged_by(judge, example, prediction))
                except Exception as exc:  # noqa: BLE001 - raised below, as gather(return_exceptions=True) does
                    outcomes.append(exc)
        else:
            outcomes = await asyncio.gather(*(self._judged_by(j, example, prediction) for j in judges),
                                            return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome  # a skip or bad input before any call: the same for every judge
        score, verdicts = combine(list(zip(judges, outcomes)), self.params["aggregate_by"])  # type: ignore[arg-type]
        self._tally.add(score, verdicts)
        return score

    async def _judged_by(self, judge: Judge, example: Record, prediction: Record) -> Score:
        token = _JUDGING.set((self, judge.critic))
        try:
            return await self.judge_once(example, prediction)
        finally:
            _JUDGING.reset(token)

    def summary_details(self) -> dict[str, Any]:
        """Agreement between the panel's judges and the spread of samples, over the records scored."""
        return self._tally.summary()

    def summary_state(self) -> Any:
        return self._tally.state()

    def absorb_summary_state(self, state: Any) -> None:
        self._tally.absorb(state)

    async def judge_once(self, example: Record, prediction: Record) -> Score:
        """One judgement of the pair, by :attr:`critic`."""
        requests = self._checked_requests(example, prediction)
        outcomes = await self._ask_all(requests)
        calls = {r.role: o.call if isinstance(o, InvalidAnswer) else o for r, o in zip(requests, outcomes)
                 if isinstance(o, (Call, InvalidAnswer))}
        details = self._details(requests, calls)
        cost = details["cost_msats"]
        for request, outcome in zip(requests, outcomes):
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                raise outcome
            if isinstance(outcome, InvalidAnswer):
                return attrs.evolve(
                    Score.error("UnparseableJudgement", f"{request.role}: {outcome.reason}", **details),
                    cost_msats=cost,
                )
            if isinstance(outcome, Exception):
                body = getattr(outcome, "body", None)
                extra = {"response_body": body[:2000]} if body else {}
                return attrs.evolve(Score.error(outcome, **details, **extra), cost_msats=cost)
        parsed = {}
        for request in requests:
            answer = calls[request.role].answer
            assert answer is not None  # validated by the critic
            parsed[request.role] = Parsed(answer.scores(), answer.raw_scores(), answer.rationale)
        verdict = self.combine(parsed)
        return Score(verdict.value, feedback=verdict.feedback, details={**details, **verdict.details},
                     cost_msats=cost)

    async def _ask_all(self, requests: Sequence[Request]) -> list[Call | BaseException]:
        """Ask every request: concurrently, or in order on DSPy's LM (as DSPy's own modules call it,
        so an LM answering in turn, such as ``dspy.utils.DummyLM``, answers each in its place); a
        lone request is awaited where it is, without a task of its own."""
        if len(requests) > 1 and self.critic.backend.name != "dspy":
            return await asyncio.gather(*(self._ask(r) for r in requests), return_exceptions=True)
        outcomes: list[Call | BaseException] = []
        for request in requests:
            try:
                outcomes.append(await self._ask(request))
            except Exception as exc:  # noqa: BLE001 - kept as the outcome, as gather(return_exceptions=True) does
                outcomes.append(exc)
        return outcomes

    async def _ask(self, request: Request) -> Call:
        try:
            call = await self.critic.acall(
                request.messages, metric=self.spec.key, version=self.spec.version,
                template_hash=request.template.hash, schema=request.answer,
                metadata={"metric": self.id, "role": request.role, "fields": list(request.fields)},
                task=request.dspy,
            )
        except InvalidAnswer as exc:
            self._count(exc.call, request)
            raise
        self._count(call, request)
        return call

    def _count(self, call: Call, request: Request) -> None:
        usage = call.usage or Usage()
        with self._lock:
            self._settings_seen["prompt_hash"].add(request.template.hash)
            if call.answer_format is not None:
                self._settings_seen["response_format"].add(call.answer_format)
            if not call.cached:
                self._spent.calls += call.calls
                self._spent.prompt_tokens += usage.prompt_tokens
                self._spent.completion_tokens += usage.completion_tokens
                self._spent.cost_msats += call.cost_msats

    def _details(self, requests: Sequence[Request], calls: Mapping[str, Call]) -> dict[str, Any]:
        hits = [c for c in calls.values() if c.cached]
        fresh = [c for c in calls.values() if not c.cached]
        formats = {role: c.answer_format for role, c in calls.items()}
        rationales = [c.answer.rationale for c in calls.values() if c.answer is not None and c.answer.rationale]
        return {
            "backend": self.critic.backend.name, "model": self.critic.model,
            "metric_version": self.spec.version,
            "template_hash": {r.role: r.template.hash for r in requests},
            "decoding": self.critic.decoding.to_dict(),
            "explanation": "\n".join(rationales) or None,
            "prompts": {r.role: r.messages for r in requests},
            "answers": {role: c.text for role, c in calls.items()},
            "raw_answers": {role: list(c.raw_answers) for role, c in calls.items()},
            "answer_format": formats,
            "structured_output": bool(formats) and all(f in STRUCTURED_FORMATS for f in formats.values()),
            "repaired": any(c.repaired for c in calls.values()),
            "cache": {"hits": len(hits), "misses": len(fresh)},
            "usage": _usage_sum(fresh),
            "cost_msats": sum(c.cost_msats for c in fresh),
            "saved": {**_usage_sum(hits), "cost_msats": sum(c.saved_cost_msats for c in hits)},
            "usage_estimated": any(c.usage is not None and not c.usage.reported for c in fresh),
            **({"batches": batches} if (batches := {role: list(c.batches) for role, c in calls.items() if c.batches})
               else {}),
        }

    # -- budgets and summaries ---------------------------------------------------------------

    def estimate(self, example: Record, prediction: Record) -> dict[str, int]:
        """Calls, tokens and cost one sample will take at most (cache hits count as free).

        Prompt tokens are estimated from the prompt length, completion tokens are the
        ``max_tokens`` limit: an upper bound the evaluator can reserve against a budget.
        A sample that would be skipped estimates to zero. A repair request (only for an
        answer that fails validation) is not in the estimate: it uses what the first call
        left of its reservation and holds room in the run's budget for the rest before it
        is sent (none left: no repair, and the sample is an error). Every judgement (``n``
        samples of each of ``judges``) counts.
        """
        self.ensure_open()
        try:
            requests = self._estimated_requests(example, prediction)
        except (SkipSample, InputError):
            return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_msats": 0}
        calls = prompt_tokens = completion_tokens = cost = 0
        for critic in (judge.critic for judge in self.judges()):
            for request in requests:
                key = critic.key(request.messages, metric=self.spec.key, version=self.spec.version,
                                 template_hash=request.template.hash)
                if critic.cache is not None and critic.cache.contains(key):
                    continue
                usage = Usage(estimate_tokens("\n".join(content_text(m["content"]) for m in request.messages)),
                              critic.decoding.max_tokens, reported=False)
                calls += 1
                prompt_tokens += usage.prompt_tokens
                completion_tokens += usage.completion_tokens
                cost += critic.cost_msats(usage)  # = critic.worst_case_msats(request.messages)
        return {"calls": calls, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "cost_msats": cost}

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The requests one sample makes at most (a metric whose later prompts depend on earlier
        answers adds stand-ins for them)."""
        return self._checked_requests(example, prediction)

    def usage_summary(self) -> dict[str, Any]:
        """Backend calls, tokens and cost spent by this instance, and its cache's hits and savings."""
        critic = getattr(self, "critic", None)
        cache = critic.cache.stats.to_dict() if critic is not None and critic.cache is not None else None
        with self._lock:
            return {**attrs.asdict(self._spent), "cache": cache}

    # -- shared input helpers ---------------------------------------------------------------

    def request(self, role: str, template: Template, answer: type[JudgeAnswer], **values: str) -> Request:
        """The request of ``template`` with ``values`` and the output rule of ``answer`` filled in."""
        return Request(role, template, template.render(rule=answer_rule(answer), **values), answer)


def _dspy_of(*objects: Any) -> Any:
    """The ``dspy`` module when one of ``objects`` is a DSPy example or prediction (never imports DSPy)."""
    dspy = sys.modules.get("dspy")
    example = getattr(dspy, "Example", None)
    return dspy if isinstance(example, type) and any(isinstance(o, example) for o in objects) else None


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
        evidence = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        return [self.request("faithfulness", FAITHFULNESS, FAITHFULNESS.answer.variant(self.params["scale"]),
                             query=_query(example), evidence=numbered(evidence),
                             response=inputs.response(prediction, blank="skip"))]

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
        try:
            self.answer = ANSWER_QUALITY.answer.variant(self.params["scale"], tuple(dimensions))
        except (TypeError, ValueError, NameError) as exc:
            raise InputError(str(exc), field="params.dimensions") from None

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        dims = tuple(self.params["dimensions"])
        query = example.get("query")
        if not isinstance(query, str) or not query.strip():
            raise SkipSample("example.query is missing")
        return [self.request("quality", ANSWER_QUALITY, self.answer, dimensions=", ".join(dims), query=query,
                             response=inputs.response(prediction, blank="skip"))]

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
        decompositional = self.params["decompositional"]
        template = SEMANTIC_F1_DECOMPOSED if decompositional else SEMANTIC_F1
        query, reference = _query(example), _reference(example)
        response = inputs.response(prediction, blank="skip")
        request = self.request("semantic_f1", template, template.answer, query=query, reference=reference,
                               response=response)
        signature = "DecompositionalSemanticRecallPrecision" if decompositional else "SemanticRecallPrecision"
        return [attrs.evolve(request, dspy=DSPyTask(signature, {
            "question": query, "ground_truth": reference, "system_response": response}))]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["semantic_f1"]
        precision, recall = judged.values["precision"], judged.values["recall"]
        return Verdict(f1_score(precision, recall), judged.explanation,
                       {"precision": precision, "recall": recall, "explanation": judged.explanation})


class CompleteAndGrounded(JudgeMetric):
    """DSPy's CompleteAndGrounded: F1 of completeness (vs reference) and groundedness (in the context)."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        query, response, reference = _query(example), inputs.response(prediction, blank="skip"), _reference(example)
        evidence = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        completeness = self.request("completeness", COMPLETENESS, COMPLETENESS.answer, query=query,
                                    reference=reference, response=response)
        groundedness = self.request("groundedness", GROUNDEDNESS, GROUNDEDNESS.answer, query=query,
                                    evidence=numbered(evidence), response=response)
        # in DSPy's order: completeness, then groundedness over pred.context as DSPy passes it
        context = prediction.get("context") if self._reads_dspy_context(prediction) else numbered(evidence)
        return [attrs.evolve(completeness, dspy=DSPyTask("AnswerCompleteness", {
                    "question": query, "ground_truth": reference, "system_response": response})),
                attrs.evolve(groundedness, dspy=DSPyTask("AnswerGroundedness", {
                    "question": query, "retrieved_context": context, "system_response": response}))]

    def _reads_dspy_context(self, prediction: Record) -> bool:
        """Whether the evidence is DSPy's ``prediction.context`` whole (nothing retrieved, no ``k``)."""
        return (self.params["evidence_source"] == "retrieved" and prediction.get("retrieved") is None
                and prediction.get("context") is not None and not self.params["k"])

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        completeness = parsed["completeness"].values["completeness"]
        groundedness = parsed["groundedness"].values["groundedness"]
        feedback = "\n".join(p.explanation for p in parsed.values() if p.explanation) or None
        return Verdict(f1_score(groundedness, completeness), feedback,
                       {"completeness": completeness, "groundedness": groundedness})


class LlmJudge(JudgeMetric):
    """The dsrs LlmJudgeMetric: a system prompt and criteria; the judge's explanation in details."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        references = example.get("reference_answer")
        reference_block = f"Reference:\n{_reference(example)}\n\n" if references else ""
        return [self.request(
            "judge", LLM_JUDGE, LLM_JUDGE.answer.variant(self.params["scale"]),
            system_prompt=self.params["system_prompt"], criteria="\n".join(f"- {c}" for c in self.params["criteria"]),
            query=_query(example), reference_block=reference_block, response=inputs.response(prediction, blank="skip"),
        )]

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
        return [self.request("diff", DIFF_SEMANTIC, DIFF_SEMANTIC.answer, expected=_reference(example),
                             actual=str(actual))]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed["diff"]
        return Verdict(judged.values["score"], judged.explanation, {"explanation": judged.explanation})


# -- claim-level RAG metrics (ragas' Faithfulness, context precision, context recall) -----------


def supported_fraction(verdicts: Sequence[int | bool]) -> float | None:
    """ragas' ``Faithfulness._compute_score`` and ``LLMContextRecall._compute_score``: the share of
    verdicts that are 1; ``None`` for no verdicts (ragas: NaN)."""
    flags = [1 if v else 0 for v in verdicts]
    return sum(flags) / len(flags) if flags else None


def average_precision(verdicts: Sequence[int | bool]) -> float:
    """ragas' ``_calculate_average_precision`` over ranked verdicts (1 useful, 0 not), in its exact
    arithmetic: sum over ranks i of precision@i * v_i, divided by (number useful + 1e-10); 0 when
    no context is useful."""
    flags = [1 if v else 0 for v in verdicts]
    denominator = sum(flags) + 1e-10
    numerator = sum([(sum(flags[: i + 1]) / (i + 1)) * flags[i] for i in range(len(flags))])
    return numerator / denominator


class StagedJudgeMetric(JudgeMetric):
    """A judge metric whose later prompts depend on earlier answers: :meth:`requests` gives the
    first prompts, :meth:`follow` the next ones (or the :class:`Verdict`) from the validated
    answers so far. A :class:`SkipSample` raised by :meth:`follow` skips the sample, keeping the
    cost and the answers of the calls made (and the exception's ``details``, where it has them)."""

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        raise NotImplementedError

    async def afollow(self, example: Record, prediction: Record,
                      answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        """:meth:`follow`, for a metric whose next step awaits something besides the judge."""
        return self.follow(example, prediction, answers)

    async def judge_once(self, example: Record, prediction: Record) -> Score:
        requests = self._checked_requests(example, prediction)
        asked: list[Request] = []
        calls: dict[str, Call] = {}
        answers: dict[str, JudgeAnswer] = {}
        while True:
            outcomes = await self._ask_all(requests)
            asked.extend(requests)
            for request, outcome in zip(requests, outcomes):
                if isinstance(outcome, (Call, InvalidAnswer)):
                    calls[request.role] = outcome.call if isinstance(outcome, InvalidAnswer) else outcome
            for request, outcome in zip(requests, outcomes):
                if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                    raise outcome
                if isinstance(outcome, Exception):
                    details = self._details(asked, calls)
                    if isinstance(outcome, InvalidAnswer):
                        error = Score.error("UnparseableJudgement", f"{request.role}: {outcome.reason}", **details)
                    else:
                        body = getattr(outcome, "body", None)
                        error = Score.error(outcome, **details, **({"response_body": body[:2000]} if body else {}))
                    return attrs.evolve(error, cost_msats=details["cost_msats"])
            for request in requests:
                answer = calls[request.role].answer
                assert answer is not None  # validated by the critic
                answers[request.role] = answer
            try:
                step = await self.afollow(example, prediction, answers)
            except SkipSample as exc:
                details = self._details(asked, calls)
                return attrs.evolve(Score.skipped(exc.reason, **{**details, **getattr(exc, "details", {})}),
                                    cost_msats=details["cost_msats"])
            if isinstance(step, Verdict):
                break
            requests = step
        details = self._details(asked, calls)
        return Score(step.value, feedback=step.feedback, details={**details, **step.details},
                     cost_msats=details["cost_msats"])

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:  # pragma: no cover - follow() decides
        raise NotImplementedError


def _listed(texts: Sequence[str]) -> str:
    return "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1))


class ClaimFaithfulness(StagedJudgeMetric):
    """ragas' Faithfulness (DeepEval's FaithfulnessMetric): statements of the response, each
    verified against the evidence; the share supported."""

    def _evidence(self, example: Record, prediction: Record) -> list[str]:
        return inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        response = inputs.response(prediction, blank="skip")
        self._evidence(example, prediction)  # no evidence: skipped before any call
        return [Request("statements", CLAIM_STATEMENTS,
                        CLAIM_STATEMENTS.render(query=_query(example), response=response), CLAIM_STATEMENTS.answer)]

    def _verify(self, example: Record, prediction: Record, statements: Sequence[str]) -> Request:
        messages = CLAIM_VERDICTS.render(evidence=numbered(self._evidence(example, prediction)),
                                         statements=_listed(statements))
        return Request("verdicts", CLAIM_VERDICTS, messages, CLAIM_VERDICTS.answer)

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        first = self._checked_requests(example, prediction)  # the statements restate the response
        return [*first, self._verify(example, prediction, [inputs.response(prediction, blank="skip")])]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        statements = list(answers["statements"].statements)  # type: ignore[attr-defined]
        if not statements:
            raise SkipSample("the judge found no statements in the response (ragas scores NaN)")
        if "verdicts" not in answers:
            return [self._verify(example, prediction, statements)]
        verdicts = answers["verdicts"].verdicts  # type: ignore[attr-defined]
        value = supported_fraction([v.verdict for v in verdicts])
        if value is None:
            raise SkipSample("the judge gave no verdicts for the statements (ragas scores NaN)")
        rows = [{"statement": v.statement, "verdict": v.verdict, "reason": v.reason} for v in verdicts]
        unsupported = [f"- {r['statement']}: {r['reason']}" for r in rows if not r["verdict"]]
        feedback = ("Not supported by the evidence:\n" + "\n".join(unsupported)) if unsupported else \
            "Every statement is supported by the evidence."
        return Verdict(value, feedback, {"statements": statements, "verdicts": rows,
                                         "supported": sum(1 for r in rows if r["verdict"]), "total": len(rows)})


class ContextPrecision(StagedJudgeMetric):
    """ragas' LLMContextPrecisionWithReference / ...WithoutReference: a usefulness verdict per
    retrieved context (one call each, or all in one call with ``one_call``, as DeepEval asks), then
    average precision over the ranking."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        if self.params["reference"] == "answer":
            answer = "\n".join(inputs.targets(example, "reference", blank="skip"))
        else:
            answer = inputs.response(prediction, blank="skip")
        contexts = inputs.evidence(example, prediction, "retrieved", self.params["k"])
        query = _query(example)
        if self.params["one_call"]:
            return [Request("contexts", CONTEXTS_USEFUL, CONTEXTS_USEFUL.render(
                query=query, context=numbered(contexts), answer=answer, count=str(len(contexts))),
                CONTEXTS_USEFUL.answer)]
        return [Request(f"context_{rank}", CONTEXT_USEFUL,
                        CONTEXT_USEFUL.render(query=query, context=context, answer=answer), CONTEXT_USEFUL.answer)
                for rank, context in enumerate(contexts, 1)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        if "contexts" in answers:  # one call: the verdicts in rank order, as many as the judge gave
            verdicts = answers["contexts"].verdicts  # type: ignore[attr-defined]
        else:
            verdicts = [answers[role] for role in sorted(answers, key=lambda role: int(role.rsplit("_", 1)[1]))]
        rows = [{"rank": rank, "verdict": v.verdict, "reason": v.reason} for rank, v in enumerate(verdicts, 1)]
        value = average_precision([r["verdict"] for r in rows])
        useful = [str(r["rank"]) for r in rows if r["verdict"]]
        feedback = f"Useful contexts at ranks {', '.join(useful)} of {len(rows)}." if useful else \
            f"None of the {len(rows)} contexts was useful."
        return Verdict(value, feedback, {"contexts": rows, "useful": len(useful), "total": len(rows),
                                         "reference": self.params["reference"]})


class ContextRecall(StagedJudgeMetric):
    """ragas' LLMContextRecall: each sentence of the reference answer, attributable to the
    retrieved contexts or not; the share attributed."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        reference = "\n".join(inputs.targets(example, "reference", blank="skip"))
        contexts = inputs.evidence(example, prediction, self.params["evidence_source"], self.params["k"])
        messages = CONTEXT_ATTRIBUTION.render(query=_query(example), context=numbered(contexts), reference=reference)
        return [Request("attribution", CONTEXT_ATTRIBUTION, messages, CONTEXT_ATTRIBUTION.answer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        rows = [{"statement": c.statement, "attributed": c.attributed, "reason": c.reason}
                for c in answers["attribution"].classifications]  # type: ignore[attr-defined]
        value = supported_fraction([r["attributed"] for r in rows])
        if value is None:
            raise SkipSample("the judge found no sentences in the reference answer (ragas scores NaN)")
        missing = [f"- {r['statement']}: {r['reason']}" for r in rows if not r["attributed"]]
        feedback = ("Not found in the contexts:\n" + "\n".join(missing)) if missing else \
            "Every sentence of the reference is attributable to the contexts."
        return Verdict(value, feedback, {"classifications": rows, "attributed": len(rows) - len(missing),
                                         "total": len(rows)})
