"""The critic (the Auepora RAG metric spec): a backend with a cache, a price table and answer validation.

``LLMCritic.score(prompt=..., metadata=...) -> float`` (and ``ascore``) is the Auepora RAG metric spec's
interface; metrics use :meth:`LLMCritic.acall` with the answer's pydantic model, which returns the
validated answer with its usage, cost and cache status.

Validation and repair: every answer is read into its model (:func:`~evalcore_judge.parsing.read_answer`).
One that fails gets one repair request: the conversation, the answer, and the validation error,
asking for a corrected answer that matches the schema. When that fails too, :class:`InvalidAnswer`
carries both raw answers and what they cost. Only validated answers are cached.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore_http.cache import ContentCache, cache_key, content_hash
from evalcore_http.images import content_text
from evalcore_http.prices import PriceTable, Usage, estimate_tokens

from .backends import INSTRUCTIONS, Backend, Completion, Decoding, DSPyTask, Messages
from .parsing import Parsed, UnparseableJudgement, parse_judgement, read_answer
from .schemas import JudgeAnswer, ScoreAnswer, with_instruction

SEED_TEMPLATE_HASH = content_hash("evalcore-judge critic: free prompt")

REPAIR_PROMPT = (
    "Your answer does not match the required JSON schema: {error}. Answer again with only the corrected "
    "JSON object, with the keys {keys}; every score a number on the scale {scale}."
)
"""The repair request, sent after the judge's own answer."""


@attrs.frozen
class Call:
    """One judge question: the answer (validated into ``answer`` when a schema was given), its
    tokens and cost (of every call it took), and whether the cache answered.

    ``answer_format`` says how the schema was asked for (``json_schema``, ``instructions`` or
    ``dspy_signature``); ``repaired`` whether the first answer failed validation and the repair
    answer passed; ``raw_answers`` holds every answer as received, in order; ``calls`` how many
    backend calls were made (0 from the cache); ``logprobs`` the answer's token log probabilities
    where the decoding asked for them (:attr:`~evalcore_judge.backends.Completion.logprobs`).
    """

    text: str
    usage: Usage | None
    cost_msats: int
    cached: bool
    finish_reason: str | None = None
    saved_cost_msats: int = 0
    answer: JudgeAnswer | None = None
    answer_format: str | None = None
    repaired: bool = False
    raw_answers: tuple[str, ...] = ()
    calls: int = 1
    logprobs: list[dict[str, Any]] | None = None
    batches: tuple[str, ...] = ()
    """The provider batches that answered its calls (a batch backend's), in order."""

    def to_cache(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "text": self.text, "finish_reason": self.finish_reason, "cost_msats": self.cost_msats,
            "usage": self.usage.to_dict() if self.usage else None,
        }
        if self.answer is not None:
            entry.update(answer=self.answer.model_dump(), answer_format=self.answer_format, repaired=self.repaired,
                         raw_answers=list(self.raw_answers))
        if self.logprobs is not None:
            entry["logprobs"] = self.logprobs
        return entry

    @classmethod
    def from_cache(cls, entry: Mapping[str, Any], schema: type[JudgeAnswer] | None = None) -> Call | None:
        """The call a cache entry holds; ``None`` when it holds no answer that validates against ``schema``."""
        text = entry.get("text")
        if not isinstance(text, str):
            return None
        answer = None
        if schema is not None:
            try:
                stored = entry.get("answer")
                answer = schema.model_validate(stored) if isinstance(stored, Mapping) else read_answer(text, schema)
            except (ValueError, UnparseableJudgement):
                return None
        usage = entry.get("usage")
        raw = entry.get("raw_answers")
        return cls(
            text=text, cached=True, cost_msats=0, finish_reason=entry.get("finish_reason"),
            saved_cost_msats=int(entry.get("cost_msats") or 0),
            usage=Usage(usage["prompt_tokens"], usage["completion_tokens"], usage["reported"]) if usage else None,
            answer=answer, answer_format=entry.get("answer_format"), repaired=bool(entry.get("repaired")),
            raw_answers=tuple(raw) if isinstance(raw, list) else (text,), calls=0,
            logprobs=entry["logprobs"] if isinstance(entry.get("logprobs"), list) else None,
        )


class InvalidAnswer(UnparseableJudgement):
    """The answer and its repair both failed validation (or no repair could be made);
    ``raw_answers`` holds every answer as received and ``call`` what the calls cost."""

    def __init__(self, reason: str, raw_answers: Sequence[str], call: Call) -> None:
        super().__init__(reason, raw_answers[-1] if raw_answers else "")
        self.raw_answers = tuple(raw_answers)
        self.call = call


class LLMCritic:
    """Asks a :class:`~evalcore_judge.backends.Backend`, validates and remembers the answers.

    The cache key holds the metric id and version, the prompt template hash (which covers the
    answer's schema), the model, the decoding parameters and the rendered messages (which
    contain every input). ``budget`` (the run's) is asked for room before a repair request
    when it has a limit.
    """

    def __init__(
        self, backend: Backend, *, decoding: Decoding | None = None, cache: ContentCache | None = None,
        prices: PriceTable | None = None, budget: Any = None,
    ) -> None:
        self.backend = backend
        self.decoding = decoding or Decoding()
        self.cache = cache
        self.prices = prices or PriceTable()
        self.budget = budget
        self._takes_schema = _takes_schema(backend)
        self._takes_task = _takes_parameter(backend, "task")

    def __repr__(self) -> str:
        return f"<LLMCritic {self.backend!r}>"

    @property
    def model(self) -> str:
        return self.backend.model

    def key(self, messages: Messages, *, metric: str, version: str, template_hash: str) -> str:
        """The cache key of asking ``messages``."""
        return cache_key(
            metric=metric, version=version, template_hash=template_hash,
            model=f"{self.backend.name}:{self.backend.model}", decoding=self.decoding.to_dict(),
            inputs=[dict(m) for m in messages],
        )

    def cost_msats(self, usage: Usage | None) -> int:
        """What ``usage`` costs; local backends cost nothing unless their model is priced."""
        if usage is None:
            return 0
        if self.backend.paid:
            return self.prices.cost_msats(self.backend.model, usage)
        price = self.prices.prices.get(self.backend.model)
        return price.cost_msats(usage) if price else 0

    def worst_case_msats(self, messages: Messages) -> int:
        """The most asking ``messages`` can cost: the prompt's estimated tokens and ``max_tokens``."""
        text = "\n".join(content_text(m["content"]) for m in messages)
        usage = Usage(estimate_tokens(text), self.decoding.max_tokens, reported=False)
        return self.cost_msats(usage)

    async def acall(
        self, messages: Messages, *, metric: str, version: str, template_hash: str,
        metadata: Mapping[str, Any] | None = None, schema: type[JudgeAnswer] | None = None,
        task: DSPyTask | None = None,
    ) -> Call:
        """Ask the backend, or answer from the cache; with ``schema``, the answer validated into it
        (one repair request for an answer that fails; :class:`InvalidAnswer` when that fails too).
        ``task`` is the same question as DSPy's own metric asks it, for a backend that runs DSPy
        (its first attempt; a repair is asked as messages)."""
        key = ""
        if self.cache is not None:  # the key hashes every message: only made where a cache keeps it
            key = self.key(messages, metric=metric, version=version, template_hash=template_hash)
            entry = self.cache.get(key)
            hit = Call.from_cache(entry, schema) if isinstance(entry, Mapping) else None
            if hit is not None:
                return hit
        if schema is None:
            completion = await self._generate(messages, metadata, None)
            call = Call(completion.text, completion.usage, self.cost_msats(completion.usage), False,
                        completion.finish_reason, raw_answers=(completion.text,), batches=_batches(completion))
            if self.cache is not None and completion.text.strip():
                self.cache.put(key, call.to_cache())
            return call
        call = await self._validated(messages, metadata, schema, task)
        if self.cache is not None:
            self.cache.put(key, call.to_cache())
        return call

    async def _validated(self, messages: Messages, metadata: Mapping[str, Any] | None,
                         schema: type[JudgeAnswer], task: DSPyTask | None = None) -> Call:
        first = await self._generate(messages, metadata, schema, task)
        first_cost = self.cost_msats(first.usage)
        try:
            answer = read_answer(first.text, schema)
        except UnparseableJudgement as exc:
            reason = self._reason(exc, first)
        else:
            return Call(first.text, first.usage, first_cost, False, first.finish_reason, answer=answer,
                        answer_format=first.answer_format, raw_answers=(first.text,), logprobs=first.logprobs,
                        batches=_batches(first))
        failed = Call(first.text, first.usage, first_cost, False, first.finish_reason,
                      answer_format=first.answer_format, raw_answers=(first.text,), batches=_batches(first))
        repair = [*messages, {"role": "assistant", "content": first.text},
                  {"role": "user", "content": REPAIR_PROMPT.format(
                      error=reason, keys=", ".join(f'"{k}"' for k in schema.keys()), scale=schema.score_scale)}]
        hold = self._hold_for_repair(messages, repair, first_cost)
        if hold is None:
            raise InvalidAnswer(f"{reason}; no repair asked: the budget cannot hold another call",
                                failed.raw_answers, failed)
        second: Completion | None = None
        try:
            second = await self._generate(repair, metadata, schema)
        except Exception as exc:  # noqa: BLE001 - the first answer's cost is kept on the error
            raise InvalidAnswer(f"{reason}; the repair request failed: {exc}", failed.raw_answers, failed) from exc
        finally:
            self._release(hold, second)
        usage = _added(first.usage, second.usage)
        cost = first_cost + self.cost_msats(second.usage)
        raws = (first.text, second.text)
        try:
            answer = read_answer(second.text, schema)
        except UnparseableJudgement as exc:
            call = Call(second.text, usage, cost, False, second.finish_reason, answer_format=second.answer_format,
                        raw_answers=raws, calls=2, batches=_batches(first, second))
            raise InvalidAnswer(f"{self._reason(exc, second)} (after one repair; first answer: {reason})",
                                raws, call) from None
        return Call(second.text, usage, cost, False, second.finish_reason, answer=answer,
                    answer_format=second.answer_format, repaired=True, raw_answers=raws, calls=2,
                    logprobs=second.logprobs, batches=_batches(first, second))

    async def _generate(self, messages: Messages, metadata: Mapping[str, Any] | None,
                        schema: type[JudgeAnswer] | None, task: DSPyTask | None = None) -> Completion:
        if schema is None:
            return await self.backend.agenerate(messages, self.decoding, metadata or {})
        if task is not None and self._takes_task:
            return await self.backend.agenerate(messages, self.decoding, metadata or {}, schema=schema, task=task)
        if self._takes_schema:
            return await self.backend.agenerate(messages, self.decoding, metadata or {}, schema=schema)
        completion = await self.backend.agenerate(with_instruction(messages, schema), self.decoding, metadata or {})
        return attrs.evolve(completion, answer_format=INSTRUCTIONS)

    def _reason(self, exc: UnparseableJudgement, completion: Completion) -> str:
        if completion.finish_reason == "length":
            return f"{exc.reason} (the answer was cut off at max_tokens={self.decoding.max_tokens})"
        return exc.reason

    # -- the budget of a repair -----------------------------------------------------------
    #
    # The run reserved the first call's worst case before the sample started and charges the
    # sample's cost against that reservation. A repair may use what the first call left of it;
    # for the rest of its worst case it holds room in the budget first, and is charged there
    # for what it costs beyond what was left.

    def _hold_for_repair(self, messages: Messages, repair: Messages, first_cost: int) -> tuple[int, int] | None:
        """``(held, left)``: msats held in the budget for the repair and what the first call left
        of its reservation; ``None`` when the budget cannot hold the repair."""
        budget = self.budget
        if budget is None or getattr(budget, "limit_msats", None) is None:
            return 0, 0
        left = max(0, self.worst_case_msats(messages) - first_cost)
        need = max(0, self.worst_case_msats(repair) - left)
        if need and not budget.reserve(need):
            return None
        return need, left

    def _release(self, hold: tuple[int, int], second: Completion | None) -> None:
        budget = self.budget
        if budget is None or getattr(budget, "limit_msats", None) is None:
            return
        held, left = hold
        beyond = max(0, (self.cost_msats(second.usage) if second is not None else 0) - left)
        if held or beyond:
            budget.settle(held, beyond)

    # -- the Auepora RAG metric spec's interface ---------------------------------------------

    def parse(self, call: Call, fields: Sequence[str], scale: str) -> Parsed:
        """Parse a call's answer text into ``fields``; a cut-off answer says so in the error."""
        try:
            return parse_judgement(call.text, fields, scale)
        except UnparseableJudgement as exc:
            if call.finish_reason == "length":
                reason = f"{exc.reason} (the answer was cut off at max_tokens={self.decoding.max_tokens})"
                raise UnparseableJudgement(reason, exc.raw) from None
            raise

    async def ascore(self, *, prompt: str, metadata: Mapping[str, Any] | None = None, scale: str = "0-1") -> float:
        """From the Auepora RAG metric spec: the score of ``prompt`` normalised to [0, 1]."""
        messages = [{"role": "user", "content": prompt}]
        call = await self.acall(messages, metric="critic", version="1", template_hash=SEED_TEMPLATE_HASH,
                                metadata=metadata, schema=ScoreAnswer.variant(scale))
        return call.answer.scores()["score"]  # type: ignore[union-attr]

    def score(self, *, prompt: str, metadata: Mapping[str, Any] | None = None, scale: str = "0-1") -> float:
        """Blocking :meth:`ascore` (not from inside a running event loop)."""
        return asyncio.run(self.ascore(prompt=prompt, metadata=metadata, scale=scale))


def _takes_schema(backend: Any) -> bool:
    """Whether the backend's ``agenerate`` takes ``schema=`` (else the critic instructs for it)."""
    try:
        parameters = inspect.signature(backend.agenerate).parameters
    except (TypeError, ValueError, AttributeError):
        return False
    return "schema" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def _takes_parameter(backend: Any, name: str) -> bool:
    """Whether the backend's ``agenerate`` names the parameter ``name``."""
    try:
        return name in inspect.signature(backend.agenerate).parameters
    except (TypeError, ValueError, AttributeError):
        return False


def _batches(*completions: Completion) -> tuple[str, ...]:
    return tuple(c.batch_id for c in completions if c.batch_id is not None)


def _added(first: Usage | None, second: Usage | None) -> Usage | None:
    if first is None or second is None:
        return first or second
    return Usage(first.prompt_tokens + second.prompt_tokens, first.completion_tokens + second.completion_tokens,
                 first.reported and second.reported)
