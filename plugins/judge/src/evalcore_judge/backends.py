"""Judge backends: something that turns chat messages into an answer text.

* :class:`HTTPBackend` — any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM,
  Ollama, llama.cpp's server, a LiteLLM proxy) through :class:`evalcore_http.client.OpenAIClient`.
* :class:`BatchBackend` — the same requests sent through the OpenAI Batch API or Anthropic's
  Message Batches, at the batch rate (``batch=True``, ``--judge-batch``).
* :class:`LiteLLMBackend` — a LiteLLM model string (``anthropic/...``, ``gemini/...``) in
  process (``pip install evalcore-judge[litellm]``).
* :class:`DSPyBackend` — the LM DSPy is configured with.
* :class:`CriticBackend` — an LLMCritic object as the RAG metric spec defines it
  (``score(*, prompt, metadata) -> float``, optionally ``ascore``).
* :class:`CallableBackend` — any Python callable ``fn(prompt, metadata)`` returning text,
  a number or a mapping (sync or async).
* ``TransformersBackend`` (in :mod:`evalcore_judge.local`) — a local model in process.

Given the answer's pydantic model (``schema=``), the HTTP and LiteLLM backends send it as
OpenAI structured output, ``response_format={"type": "json_schema", "json_schema": {"name": ...,
"schema": ..., "strict": true}}``; a server that rejects that (an HTTP 4xx naming
``response_format`` / ``json_schema``, or saying it is unsupported) gets the schema as an
instruction in the prompt instead, from then on for that client. The DSPy backend asks through
a typed signature (the model's fields as DSPy output fields); the other backends get the
instruction in the prompt. Whichever way, the critic validates the answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import math
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs
from evalcore.plugin import EvalcoreError
from evalcore_http.batch import OPENAI, BatchQueue, run_queue
from evalcore_http.client import ChatResult, OpenAIClient
from evalcore_http.errors import BackendError
from evalcore_http.images import content_text
from evalcore_http.prices import Usage

from .schemas import SCALES, JudgeAnswer, with_instruction

Messages = Sequence[Mapping[str, str]]

JSON_SCHEMA = "json_schema"
"""Answer format: the schema was sent as OpenAI structured output and the server accepted it."""
INSTRUCTIONS = "instructions"
"""Answer format: the schema was given as an instruction in the prompt."""
DSPY_SIGNATURE = "dspy_signature"
"""Answer format: DSPy asked through a typed signature built from the schema."""
STRUCTURED_FORMATS = (JSON_SCHEMA, DSPY_SIGNATURE)
"""The formats where the backend, not only the prompt, shapes the answer."""

_REJECTION_WORDS = ("response_format", "response format", "json_schema", "json schema", "structured output",
                    "unsupported", "not supported")


@attrs.frozen
class Completion:
    """A backend's answer; ``usage`` is ``None`` when the backend does not count tokens;
    ``answer_format`` says how a schema was asked for (:data:`JSON_SCHEMA`, :data:`INSTRUCTIONS`,
    :data:`DSPY_SIGNATURE`; ``None`` when none was); ``logprobs`` the answer's tokens with their
    log probabilities and top alternatives (OpenAI's ``choices[0].logprobs.content``) where the
    decoding asked for them and the backend gave them."""

    text: str
    usage: Usage | None = None
    finish_reason: str | None = None
    answer_format: str | None = None
    logprobs: list[dict[str, Any]] | None = None
    batch_id: str | None = None
    """The provider's batch that answered (a batch backend's answer)."""


def rejects_response_format(status: int | None, message: str | None) -> bool:
    """Whether an error answer means the server does not take ``response_format``: an HTTP 4xx
    (or 501) other than 401, 403, 408 and 429 that names ``response_format`` / ``json_schema`` /
    structured output or says something is unsupported."""
    if status is None or status in (401, 403, 408, 429) or not (400 <= status < 500 or status == 501):
        return False
    text = (message or "").lower()
    return any(word in text for word in _REJECTION_WORDS)


class _StructuredOutputs:
    """Sends a schema as ``response_format`` while the server takes it, else as an instruction.

    While it is not known whether the server takes it, one call at a time asks (per event
    loop); the others wait for its answer, so a server that rejects it sees one such request.
    """

    structured_outputs: bool | None = None
    """Whether the server takes ``response_format`` (``None`` until known)."""

    def _init_structured(self) -> None:
        self._probes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    async def _send(self, messages: Messages, decoding: Decoding, response_format: Mapping[str, Any] | None,
                    ) -> Completion:
        raise NotImplementedError

    def _rejected(self, exc: Exception) -> bool:
        raise NotImplementedError

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None) -> Completion:
        """An answer to ``messages``, following ``schema`` when one is given (see :meth:`_with_schema`)."""
        if schema is not None:
            return await self._with_schema(messages, decoding, schema)
        return await self._send(messages, decoding, None)

    async def _with_schema(self, messages: Messages, decoding: Decoding, schema: type[JudgeAnswer]) -> Completion:
        if self.structured_outputs is None:
            loop = asyncio.get_running_loop()
            lock = self._probes.get(loop)
            if lock is None:
                lock = self._probes[loop] = asyncio.Lock()
            async with lock:
                if self.structured_outputs is None:
                    return await self._structured(messages, decoding, schema)
        if self.structured_outputs:
            return await self._structured(messages, decoding, schema)
        return await self._instructed(messages, decoding, schema)

    async def _structured(self, messages: Messages, decoding: Decoding, schema: type[JudgeAnswer]) -> Completion:
        try:
            completion = await self._send(messages, decoding, schema.response_format())
        except Exception as exc:
            if not self._rejected(exc):
                raise
            completion = await self._instructed(messages, decoding, schema)
            self.structured_outputs = False  # remembered once the answer without it came back
            return completion
        self.structured_outputs = True
        return attrs.evolve(completion, answer_format=JSON_SCHEMA)

    async def _instructed(self, messages: Messages, decoding: Decoding, schema: type[JudgeAnswer]) -> Completion:
        completion = await self._send(with_instruction(messages, schema), decoding, None)
        return attrs.evolve(completion, answer_format=INSTRUCTIONS)


@attrs.frozen
class Decoding:
    """Decoding parameters; part of every cache key. ``top_logprobs`` > 0 asks a backend that can
    (the HTTP backend) for each answer token's log probability and its most likely alternatives;
    ``sample`` numbers the samples of one judgement (``n``), never sent, so that each sample is
    its own cache entry."""

    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 256
    top_logprobs: int = 0
    sample: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The parameters (``top_logprobs`` and ``sample`` only when set, so other keys stay as they were)."""
        data: dict[str, Any] = {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}
        if self.top_logprobs:  # built by hand: it goes into every row and cache key (attrs.asdict is ~10× slower)
            data["top_logprobs"] = self.top_logprobs
        if self.sample:
            data["sample"] = self.sample
        return data


class Backend(Protocol):
    """What a judge needs from a model."""

    name: str
    model: str
    paid: bool

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None) -> Completion:
        """The answer to ``messages``; with ``schema``, asked for as that model where the backend
        can (a backend without the ``schema`` argument gets the schema as an instruction)."""
        ...


class HTTPBackend(_StructuredOutputs):
    """Chat completions over HTTP through :class:`evalcore_http.client.OpenAIClient`; a schema is sent as
    OpenAI structured output while the server takes it (remembered on the client)."""

    name = "http"
    paid = True

    def __init__(self, client: OpenAIClient) -> None:
        self.client = client
        self.model = client.model
        self._init_structured()

    def __repr__(self) -> str:
        return f"<HTTPBackend {self.client.base_url} model={self.model!r}>"

    @property  # type: ignore[override]
    def structured_outputs(self) -> bool | None:
        """Whether the client's server takes ``response_format`` (``None`` until known)."""
        return getattr(self.client, "structured_outputs", None)

    @structured_outputs.setter
    def structured_outputs(self, value: bool | None) -> None:
        self.client.structured_outputs = value

    async def _send(self, messages: Messages, decoding: Decoding, response_format: Mapping[str, Any] | None,
                    ) -> Completion:
        result = await self.client.achat(messages, **_chat_options(decoding, response_format))
        return _completion(result, decoding)

    def _rejected(self, exc: Exception) -> bool:
        return isinstance(exc, BackendError) and rejects_response_format(exc.status, exc.body or str(exc))


class BatchBackend(HTTPBackend):
    """:class:`HTTPBackend`'s requests sent through a batch API (:class:`evalcore_http.batch.BatchQueue`,
    shared by the run's judged metrics) at the batch rate. The OpenAI Batch API gets the schema as
    structured output, Anthropic's Message Batches as an instruction."""

    name = "http"

    def __init__(self, client: OpenAIClient, api: str, *, api_key: str | None = None, folder: str | None = None,
                 poll_s: float = 30.0) -> None:
        super().__init__(client)
        self.api = api
        self._queue_options = {"api_key": api_key, "folder": folder, "poll_s": poll_s}
        self.structured_outputs = api == OPENAI

    def __repr__(self) -> str:
        return f"<BatchBackend {self.api} {self.client.base_url} model={self.model!r}>"

    def queue(self) -> BatchQueue:
        """The run's (this event loop's) batch queue for this protocol and server."""
        options = self._queue_options
        return run_queue(self.api, self.client.base_url, options["api_key"], folder=options["folder"],
                         poll_s=options["poll_s"])

    async def _send(self, messages: Messages, decoding: Decoding, response_format: Mapping[str, Any] | None,
                    ) -> Completion:
        payload = self.client.chat_payload(messages, **_chat_options(decoding, response_format))
        custom_id = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:40]
        answer = await self.queue().submit(custom_id, payload)
        completion = _completion(self.client.read_chat(answer.body, messages), decoding)
        return attrs.evolve(completion, batch_id=answer.batch_id)


def _chat_options(decoding: Decoding, response_format: Mapping[str, Any] | None) -> dict[str, Any]:
    """The chat-completions options of ``decoding`` (and ``response_format`` where one is sent)."""
    options: dict[str, Any] = {"temperature": decoding.temperature, "seed": decoding.seed,
                               "max_tokens": decoding.max_tokens}
    if response_format is not None:
        options["response_format"] = response_format
    if decoding.top_logprobs:
        options.update(logprobs=True, top_logprobs=decoding.top_logprobs)
    return options


def _completion(result: ChatResult, decoding: Decoding) -> Completion:
    logprobs = None
    if decoding.top_logprobs:
        choice = (result.raw.get("choices") or [{}])[0]
        logprobs = ((choice.get("logprobs") or {}) if isinstance(choice, Mapping) else {}).get("content")
    return Completion(result.text, result.usage, result.finish_reason, logprobs=logprobs)


class CallableBackend:
    """A Python callable as a judge: ``fn(prompt, metadata)`` (or ``fn(prompt)``).

    The prompt is the system and user messages joined by a blank line (with the answer's JSON
    schema as an instruction, also in ``metadata["schema"]``). A returned number becomes
    ``{"score": number}``; a mapping is sent on as JSON; text as it is.
    """

    name = "callable"
    paid = False

    def __init__(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError(f"a callable judge must be callable; got {type(fn).__name__}")
        self.fn = fn
        self.model = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        self._takes_metadata = _accepts_two_arguments(fn)

    def __repr__(self) -> str:
        return f"<CallableBackend {self.model}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None) -> Completion:
        meta = dict(metadata)
        if schema is not None:
            messages = with_instruction(messages, schema)
            meta["schema"] = schema.response_format()["json_schema"]["schema"]
        prompt = _prompt(messages)
        args = (prompt, meta) if self._takes_metadata else (prompt,)
        if inspect.iscoroutinefunction(self.fn):
            raw = await self.fn(*args)
        else:
            raw = await asyncio.to_thread(self.fn, *args)
            if inspect.isawaitable(raw):
                raw = await raw
        return Completion(_as_text(raw), answer_format=INSTRUCTIONS if schema is not None else None)


def _accepts_two_arguments(fn: Callable[..., Any]) -> bool:
    try:
        inspect.signature(fn).bind("prompt", {})
    except TypeError:
        return False
    except ValueError:  # builtins without a signature
        return False
    return True


def _as_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bool):
        raise TypeError("a callable judge returned a bool; return a number or text")
    if isinstance(raw, (int, float)):
        return json.dumps({"score": raw})
    if isinstance(raw, Mapping):
        return json.dumps(dict(raw), default=str)
    if raw is None:
        return ""
    raise TypeError(f"a callable judge returned {type(raw).__name__}; return text, a number or a mapping")


def _prompt(messages: Messages) -> str:
    return "\n\n".join(text_only(m["content"]) for m in messages)


def text_only(content: Any) -> str:
    """A message's content for a backend that takes text only; content with image parts is an error
    that names the backends that take images."""
    if isinstance(content, str):
        return content
    if any(isinstance(part, Mapping) and part.get("type") != "text" for part in content):
        raise EvalcoreError("this judge backend takes text only; images need an OpenAI-compatible server "
                            "(base_url, model) or backend='litellm' with a vision model")
    return content_text(content)


class CriticBackend:
    """The RAG metric spec's LLMCritic: ``score(*, prompt, metadata) -> float`` (``ascore`` when it has one).

    The critic answers one number for the whole prompt; it stands for every field the
    metric asks for (``metadata["fields"]``), read on the metric's ``scale``.
    """

    name = "critic"
    paid = False

    def __init__(self, critic: Any) -> None:
        self.critic = critic
        self.model = type(critic).__qualname__

    def __repr__(self) -> str:
        return f"<CriticBackend {self.model}>"

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None) -> Completion:
        if schema is not None:
            messages = with_instruction(messages, schema)
        prompt, meta = _prompt(messages), dict(metadata)
        ascore = getattr(self.critic, "ascore", None)
        if ascore is not None and inspect.iscoroutinefunction(ascore):
            value = await ascore(prompt=prompt, metadata=meta)
        else:
            value = await asyncio.to_thread(self.critic.score, prompt=prompt, metadata=meta)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"the critic's score returned {type(value).__name__}; the RAG metric spec's "
                            "LLMCritic returns a float")
        fields = (schema.score_fields if schema is not None else None) or metadata.get("fields") or ("score",)
        return Completion(json.dumps({field: value for field in fields}),
                          answer_format=INSTRUCTIONS if schema is not None else None)


@attrs.frozen
class DSPyTask:
    """A judge question as DSPy's own metric asks it: ``dspy.ChainOfThought(signature)(**inputs)``,
    ``signature`` naming a class of ``dspy.evaluate.auto_evaluation`` (``SemanticRecallPrecision``,
    ``AnswerCompleteness``, ...). On DSPy's LM the judge asks this instead of its own prompt, so the
    LM gets exactly the request DSPy's ``SemanticF1`` / ``CompleteAndGrounded`` send."""

    signature: str
    inputs: Mapping[str, Any]


class DSPyBackend:
    """The LM DSPy is configured with where the judge is called (``dspy.configure(lm=...)`` /
    ``dspy.context(lm=...)``, as DSPy's own metrics read ``dspy.settings.lm``); ``fallback`` (the
    LM configured when the metric was opened) where the call's context has none.

    A :class:`DSPyTask` runs DSPy's own module, with the LM's own settings, as DSPy's metrics
    do; its outputs become the answer (scores clamped to the scale, as DSPy's ``f1_score``
    clamps them; ChainOfThought's ``reasoning`` as the rationale where the signature has no
    field of that name). Another schema is asked through a typed signature: the system message
    as the instructions, the conversation as one input, the answer model's fields as output
    fields (numbers as ``float``, texts as ``str``), with the judge's decoding.
    """

    name = "dspy"
    paid = False

    def __init__(self, fallback: Any = None) -> None:
        self.fallback = fallback

    def __repr__(self) -> str:
        return f"<DSPyBackend {self.model}>"

    def current_lm(self) -> Any:
        """The LM to judge with here and now: ``dspy.settings.lm``, else :attr:`fallback`."""
        import dspy

        lm = dspy.settings.lm or self.fallback
        if lm is None:
            raise DSPyNotConfigured("the judge is DSPy's LM but DSPy has no LM configured; call "
                                    "dspy.configure(lm=...) or judge inside dspy.context(lm=...)")
        return lm

    @property
    def model(self) -> str:  # type: ignore[override]
        """The model name of the LM in use (part of every cache key)."""
        try:
            lm = self.current_lm()
        except DSPyNotConfigured:
            return "(no LM configured)"
        return str(getattr(lm, "model", type(lm).__qualname__))

    async def agenerate(self, messages: Messages, decoding: Decoding, metadata: Mapping[str, Any],
                        schema: type[JudgeAnswer] | None = None, task: DSPyTask | None = None) -> Completion:
        lm = self.current_lm()  # here, in the caller's context (the thread gets a copy of it)
        if task is not None and schema is not None:
            return await asyncio.to_thread(self._run_task, lm, task, schema)
        if schema is not None:
            return await asyncio.to_thread(self._predict, lm, messages, decoding, schema)
        return Completion(await asyncio.to_thread(self._generate, lm, messages, decoding))

    def _run_task(self, lm: Any, task: DSPyTask, schema: type[JudgeAnswer]) -> Completion:
        import dspy
        from dspy.evaluate import auto_evaluation

        signature = getattr(auto_evaluation, task.signature)
        with dspy.context(lm=lm, track_usage=True):
            try:
                prediction = dspy.ChainOfThought(signature)(**task.inputs)
            except _adapter_parse_error() as exc:  # the reply as DSPy got it: the critic reads and validates it
                return Completion(str(getattr(exc, "lm_response", "") or ""), answer_format=DSPY_SIGNATURE)
        answer = {name: prediction.get(name) for name in signature.output_fields}
        answer.setdefault(schema.rationale_field, prediction.get("reasoning"))
        low, high = SCALES[schema.score_scale]
        for name in schema.score_fields:
            value = answer.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                answer[name] = max(low, min(high, value))
        answer = {name: value for name, value in answer.items() if value is not None}
        return Completion(json.dumps(answer, default=str), _dspy_usage(prediction), answer_format=DSPY_SIGNATURE)

    def _predict(self, lm: Any, messages: Messages, decoding: Decoding, schema: type[JudgeAnswer]) -> Completion:
        import dspy

        signature = _signature(dspy, messages, schema)
        conversation = _conversation(messages)
        with dspy.context(lm=lm, track_usage=True):
            predict = dspy.Predict(signature, temperature=decoding.temperature, max_tokens=decoding.max_tokens)
            try:
                prediction = predict(judged=conversation)
            except _adapter_parse_error() as exc:  # the reply as DSPy got it: the critic reads and validates it
                return Completion(str(getattr(exc, "lm_response", "") or ""), answer_format=DSPY_SIGNATURE)
        answer = {name: prediction.get(name) for name in schema.model_fields if prediction.get(name) is not None}
        return Completion(json.dumps(answer, default=str), _dspy_usage(prediction), answer_format=DSPY_SIGNATURE)

    def _generate(self, lm: Any, messages: Messages, decoding: Decoding) -> str:
        try:  # DSPy >= 3.4: a normalised request (messages= is deprecated there)
            from dspy.lm15 import Config, Message, Request
        except ImportError:
            outputs = lm(messages=[dict(m) for m in messages], temperature=decoding.temperature,
                         max_tokens=decoding.max_tokens)
            first = outputs[0] if outputs else ""
            return first.get("text", "") if isinstance(first, Mapping) else str(first)
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
        turns = tuple(Message.user(text_only(m["content"])) for m in messages if m["role"] != "system")
        config = Config(max_tokens=decoding.max_tokens, temperature=decoding.temperature)
        response = lm(Request(model=str(getattr(lm, "model", "")), messages=turns, system=system, config=config))
        return response.text or ""


class DSPyNotConfigured(EvalcoreError):
    """The judge is DSPy's LM, but none is configured where it is called."""


def _adapter_parse_error() -> type[Exception]:
    """DSPy's error for a reply its adapter cannot parse."""
    try:
        from dspy.utils.exceptions import AdapterParseError
    except ImportError:  # pragma: no cover - older DSPy
        return ValueError
    return AdapterParseError


def _signature(dspy: Any, messages: Messages, schema: type[JudgeAnswer]) -> Any:
    """A DSPy signature asking for ``schema``'s fields, instructed by the system message."""
    fields: dict[str, Any] = {"judged": (str, dspy.InputField(desc="what to judge"))}
    for name, info in schema.model_fields.items():
        if name in schema.score_fields:
            low, high = SCALES[schema.score_scale]
            fields[name] = (float, dspy.OutputField(desc=f"{info.description or name}: a number from {low:g} "
                                                         f"to {high:g}"))
        else:
            fields[name] = (str, dspy.OutputField(desc=info.description or name))
    instructions = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
    return dspy.make_signature(fields, instructions, signature_name=schema.__name__)


def _conversation(messages: Messages) -> str:
    """The non-system messages as one text (a repair request shows the earlier answer)."""
    parts = []
    for message in messages:
        if message["role"] == "assistant":
            parts.append(f"Your earlier answer:\n{message['content']}")
        elif message["role"] != "system":
            parts.append(text_only(message["content"]))
    return "\n\n".join(parts)


def _dspy_usage(prediction: Any) -> Usage | None:
    """Tokens of a prediction's LM calls, where DSPy tracked them."""
    usage = prediction.get_lm_usage() if hasattr(prediction, "get_lm_usage") else None
    if not usage:
        return None
    prompt = sum(int(u.get("prompt_tokens") or 0) for u in usage.values() if isinstance(u, Mapping))
    completion = sum(int(u.get("completion_tokens") or 0) for u in usage.values() if isinstance(u, Mapping))
    return Usage(prompt, completion)


class LiteLLMBackend(_StructuredOutputs):
    """A LiteLLM model string (``provider/model``) called through ``litellm.acompletion``;
    ``base_url`` and ``api_key`` are passed on when given (else LiteLLM reads its own variables).
    A schema is passed through as ``response_format`` while the provider takes it."""

    name = "litellm"
    paid = True

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 4) -> None:
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.structured_outputs: bool | None = None
        self._init_structured()

    def __repr__(self) -> str:
        return f"<LiteLLMBackend model={self.model!r}>"

    async def _send(self, messages: Messages, decoding: Decoding, response_format: Mapping[str, Any] | None,
                    ) -> Completion:
        import litellm

        extra: dict[str, Any] = {k: v for k, v in (("api_base", self.base_url), ("api_key", self.api_key)) if v}
        if response_format is not None:
            extra["response_format"] = dict(response_format)
        response = await litellm.acompletion(
            model=self.model, messages=[dict(m) for m in messages], temperature=decoding.temperature,
            seed=decoding.seed, max_tokens=decoding.max_tokens, timeout=self.timeout, num_retries=self.max_retries,
            **extra,
        )
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        tokens = Usage(int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)) if usage else None
        return Completion(choice.message.content or "", tokens, getattr(choice, "finish_reason", None))

    def _rejected(self, exc: Exception) -> bool:
        status = getattr(exc, "status_code", None)
        return rejects_response_format(status if isinstance(status, int) else None, str(exc))
