"""OpenAI-compatible model APIs (chat completions and embeddings) over kept-alive HTTP/1.1 connections.

It covers OpenAI, vLLM, Ollama, llama.cpp's server and LiteLLM proxies (anything that
serves ``POST {base_url}/chat/completions`` and ``POST {base_url}/embeddings``), with:

* one connection pool per event loop (a run), :class:`~evalcore_http.pool.HTTPPool`,
  and a concurrency limit that adapts to the server (:class:`~evalcore_http.limiter.AdaptiveLimiter`:
  it starts at ``max_concurrency``, halves on 429 and 503, backs off as answers slow down, and
  grows again while the server keeps up); the request is the JSON body as it is (``orjson``), the answer read
  as JSON, with no request or response objects built on the way (on a fast local server the
  ``openai`` SDK's request path cost more CPU than the call took);
* the key passed in (a run reads ``$OPENAI_API_KEY``, or the variable a metric names, where
  it starts: :func:`run_client`);
* a per-call time limit that holds the retries too: retries with exponential backoff and jitter
  on HTTP 429, 5xx, timeouts and refused connections, honouring ``Retry-After``, each attempt
  but the last given at most half the time left, so a server that accepts and never answers is
  tried again within the limit;
* a client that stops calling a server that does not answer: after ``give_up_after`` attempts
  in a row got no answer (no connection, or no reply in time), every call fails at once with
  :class:`BackendUnreachable`, so a run with the judge down ends in seconds, not minutes;
* errors that say what went wrong (:class:`BackendError` and its subclasses);
* token usage from the response, turned into a cost by a :class:`PriceTable`.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import orjson
from evalcore import __version__
from evalcore.plugin import ParameterError

from .errors import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    BackendUnreachable,
    MalformedResponse,
    RateLimited,
    RequestRejected,
    ServerError,
)
from .limiter import ANSWERED, FAILED, OVERLOADED, AdaptiveLimiter
from .pool import HTTPPool, _BodyTooLarge, _ConnectFailed, _ConnectionLost
from .prices import Usage, estimate_tokens

if TYPE_CHECKING:
    from evalcore.plugin import RunContext

ENV_API_KEY = "OPENAI_API_KEY"


@attrs.frozen
class ChatResult:
    """One chat completion: the text, why generation stopped, usage and the raw answer."""

    text: str
    model: str
    usage: Usage
    finish_reason: str | None = None
    raw: Mapping[str, Any] = attrs.field(factory=dict, repr=False)


@attrs.frozen
class EmbeddingResult:
    """Vectors in input order, with usage."""

    vectors: list[list[float]]
    model: str
    usage: Usage


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class OpenAIClient:
    """Calls one model on an OpenAI-compatible server (``POST {base_url}/chat/completions``,
    ``POST {base_url}/embeddings``).

    ``base_url`` includes the API prefix (``http://127.0.0.1:8000/v1``). The API key is
    ``api_key`` (local servers need none); ``api_key_env`` names the variable it was read
    from, for error messages. A run's metrics build their clients with :func:`run_client`,
    which reads the key from the environment as the run started. ``timeout`` bounds each
    attempt; ``max_retries`` retries follow retryable failures after ``backoff_base * 2**attempt``
    seconds (at most ``backoff_max``, with jitter), or after ``Retry-After`` (at most
    ``max_retry_after`` and at most ``timeout``: a server asking for an hour does not stall a run).

    At most ``max_concurrency`` calls are in flight, fewer while the server refuses calls for
    load or slows down (``adaptive=False`` keeps it fixed). One connection pool is made per event
    loop and closed when that loop shuts down, so a run shares its kept-alive connections.

    ``structured_outputs`` records whether the server takes OpenAI structured output
    (``response_format={"type": "json_schema", ...}``, passed to :meth:`achat` as it is):
    ``None`` until a caller finds out, then ``True`` or ``False`` for the client's life.
    """

    def __init__(
        self, base_url: str | None, model: str, *, api_key: str | None = None, api_key_env: str | None = None,
        timeout: float = 60.0, max_retries: int = 4, backoff_base: float = 0.5, backoff_max: float = 30.0,
        max_retry_after: float = 120.0, max_concurrency: int = 32, max_response_bytes: int = 10_000_000,
        rng: random.Random | None = None, give_up_after: int = 3, adaptive: bool = True,
    ) -> None:
        base_url = base_url or ""
        if not base_url.startswith(("http://", "https://")):
            raise ParameterError(f"OpenAIClient: parameter 'base_url' must start with http:// or https://; "
                                 f"got {base_url!r}")
        if max_concurrency < 1:
            raise ParameterError(f"OpenAIClient: parameter 'max_concurrency' must be at least 1; got {max_concurrency}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self._api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.max_concurrency = max_concurrency
        self.max_response_bytes = max_response_bytes
        self.give_up_after = give_up_after
        self.adaptive = adaptive
        self.calls = 0
        self._unanswered = 0  # attempts in a row that got no answer
        self._down: str | None = None  # why calls are no longer made, once the server is taken for down
        self.structured_outputs: bool | None = None
        self._rng = rng or random.Random()
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        return f"<OpenAIClient {self.base_url} model={self.model!r}>"

    # -- public calls ------------------------------------------------------------------

    async def achat(
        self, messages: Sequence[Mapping[str, str]], *, temperature: float = 0.0, seed: int | None = None,
        max_tokens: int | None = None, **extra: Any,
    ) -> ChatResult:
        """One chat completion (``temperature`` 0 and ``seed`` make it as repeatable as the server allows)."""
        payload = self.chat_payload(messages, temperature=temperature, seed=seed, max_tokens=max_tokens, **extra)
        data, body = await self._call("/chat/completions", payload)
        return self.read_chat(data, messages, body)

    def chat_payload(
        self, messages: Sequence[Mapping[str, str]], *, temperature: float = 0.0, seed: int | None = None,
        max_tokens: int | None = None, **extra: Any,
    ) -> dict[str, Any]:
        """The chat-completions request body :meth:`achat` sends (also a line of a batch)."""
        payload: dict[str, Any] = {"model": self.model, "messages": list(messages), "temperature": temperature}
        if seed is not None:
            payload["seed"] = seed
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        payload.update(extra)
        return payload

    def read_chat(self, data: Mapping[str, Any], messages: Sequence[Mapping[str, str]],
                  body: bytes = b"") -> ChatResult:
        """A chat completion's answer ``data`` (to ``messages``) as a :class:`ChatResult`."""
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"]
            if text is None:
                text = ""
            if not isinstance(text, str):
                raise TypeError("message content is not a string")
        except (KeyError, IndexError, TypeError) as exc:
            raise MalformedResponse(f"chat completion without choices[0].message.content ({exc})",
                                    body=_text(body) or json.dumps(data, default=str)[:2000]) from None
        usage = _usage(data.get("usage"), prompt=_message_text(messages), completion=text)
        return ChatResult(text, str(data.get("model") or self.model), usage, choice.get("finish_reason"), dict(data))

    async def aembed(self, texts: Sequence[str]) -> EmbeddingResult:
        """Embeddings of ``texts`` in input order."""
        payload = {"model": self.model, "input": list(texts), "encoding_format": "float"}
        data, body = await self._call("/embeddings", payload)
        try:
            items = sorted(data["data"], key=lambda item: item["index"])
            vectors = [[float(x) for x in item["embedding"]] for item in items]
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedResponse(f"embedding response without data[].embedding ({exc})", body=_text(body)) from None
        if len(vectors) != len(texts):
            raise MalformedResponse(f"asked for {len(texts)} embeddings, got {len(vectors)}", body=_text(body))
        usage = _usage(data.get("usage"), prompt="".join(texts), completion="")
        return EmbeddingResult(vectors, str(data.get("model") or self.model), usage)

    def chat(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> ChatResult:
        """Blocking :meth:`achat` (not from inside a running event loop)."""
        return asyncio.run(self.achat(messages, **kwargs))

    def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        """Blocking :meth:`aembed`."""
        return asyncio.run(self.aembed(texts))

    # -- transport -----------------------------------------------------------------------

    def _state(self) -> _LoopState:
        """This event loop's connection pool and concurrency limit, made on first use."""
        loop = asyncio.get_running_loop()
        state = self._per_loop.get(loop)
        if state is None:
            # Without a key no Authorization header is sent (local servers need none).
            headers = {"User-Agent": f"evalcore/{__version__}"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            pool = HTTPPool(self.base_url, headers, max_body=self.max_response_bytes)
            limiter = AdaptiveLimiter(self.max_concurrency, adaptive=self.adaptive)
            state = self._per_loop[loop] = _LoopState(pool, limiter)
            state.start_closer()
        return state

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (equal jitter)."""
        cap = min(self.backoff_max, self.backoff_base * 2**attempt)
        return cap / 2 + self._rng.uniform(0, cap / 2)

    async def _call(self, path: str, payload: Mapping[str, Any]) -> tuple[dict[str, Any], bytes]:
        """The JSON object answered to ``payload``, and the body it came in. Each attempt holds a
        slot of the loop's :class:`~evalcore_http.limiter.AdaptiveLimiter`; a retry waits outside it."""
        body = orjson.dumps(payload)
        state = self._state()
        limiter = state.limiter
        deadline: float | None = None
        attempt = 0
        while True:
            sent = await limiter.acquire()
            deadline = deadline or time.monotonic() + self.timeout
            left = deadline - time.monotonic()
            last = attempt >= self.max_retries
            outcome = FAILED
            try:
                result = await self._attempt(state.api, path, body, left if last else left / 2)
                outcome = ANSWERED
                return result
            except BackendError as exc:
                if exc.status in (429, 503):
                    outcome = OVERLOADED
                wait = exc.retry_after  # a server's wish, never longer than the call may take
                wait = self.backoff(attempt) if wait is None else min(wait, self.max_retry_after)
                out_of_time = wait >= deadline - time.monotonic()
                if not exc.retryable or last or self._down or out_of_time:
                    exc.args = (self._why_stopped(exc, attempt + 1, out_of_time and not last),)
                    raise
                attempt += 1
            finally:
                limiter.release(sent, outcome)
            await asyncio.sleep(wait)

    def _why_stopped(self, error: BackendError, attempts: int, out_of_time: bool) -> str:
        """The message of the error a call ends with."""
        if self._down:
            return self._down
        message = str(error.args[0])
        if out_of_time and error.retryable:
            return f"{message} (after {attempts} attempt{'s' if attempts > 1 else ''}; no time left to retry " \
                   f"within the {self.timeout:g} s limit)"
        return f"{message} (after {attempts} attempts within the {self.timeout:g} s limit)" if attempts > 1 else message

    async def _attempt(self, pool: HTTPPool, path: str, body: bytes,
                       limit: float) -> tuple[dict[str, Any], bytes]:
        """One POST of the JSON ``body`` (at most ``limit`` seconds), its answer parsed or turned
        into a :class:`BackendError`."""
        if self._down:
            raise BackendUnreachable(self._down)
        self.calls += 1
        url = self.base_url + path
        try:
            async with asyncio.timeout(max(limit, 0.0)):
                response = await pool.post(path, body)
        except TimeoutError:
            raise self._unanswered_attempt(BackendTimeout(f"{url} did not answer within {limit:.2g} s")) from None
        except _ConnectFailed as exc:
            raise self._unanswered_attempt(BackendUnreachable(f"cannot connect to {url}: {exc}")) from None
        except _ConnectionLost as exc:
            raise self._unanswered_attempt(BackendUnreachable(f"connection to {url} failed: {exc}")) from None
        except _BodyTooLarge as exc:
            self._unanswered = 0
            raise MalformedResponse(f"{url} answered {exc.size} bytes, more than {self.max_response_bytes}",
                                    status=exc.status) from None
        self._unanswered = 0
        if not 200 <= response.status < 300:
            raise self._http_error(url, response.status, response.text, response.headers.get("retry-after"))
        content = response.content
        try:
            data = orjson.loads(content)
        except orjson.JSONDecodeError:
            try:  # what orjson refuses and Python reads (a lone surrogate escaped in a string)
                data = json.loads(content)
            except ValueError:
                raise MalformedResponse(f"{url} answered with invalid JSON: {response.text[:200]!r}",
                                        status=response.status, body=response.text) from None
        if not isinstance(data, dict):
            raise MalformedResponse(f"{url} answered with JSON that is not an object", status=response.status,
                                    body=response.text)
        return data, content

    def _unanswered_attempt(self, error: BackendError) -> BackendError:
        """Count an attempt that got no answer; at ``give_up_after`` in a row the server is taken for down."""
        self._unanswered += 1
        if self._unanswered >= self.give_up_after and self._down is None:
            self._down = (f"gave up on {self.base_url}: {self._unanswered} attempts in a row got no answer "
                          f"(is the server running, and the URL right?); the last: {error.args[0]}")
        return error

    def _http_error(self, url: str, status: int, body: str, retry_after: str | None) -> BackendError:
        detail = f"{url} answered HTTP {status}: {body[:300]}"
        if status == 429:
            error: BackendError = RateLimited(
                detail, status=status, body=body, retry_after=parse_retry_after(retry_after)
            )
        elif status >= 500:
            error = ServerError(detail, status=status, body=body, retry_after=parse_retry_after(retry_after))
        elif status in (401, 403):
            if self.api_key_env:
                hint = f"check ${self.api_key_env}" + ("" if self._api_key else " (it is not set)")
            else:
                hint = "check the API key given"
            error = AuthenticationError(f"{detail} -- authentication failed; {hint}", status=status, body=body)
        else:
            error = RequestRejected(detail, status=status, body=body)
        return error


class _LoopState:
    """One event loop's connection pool and concurrency limit; the pool is closed as the loop shuts down."""

    def __init__(self, api: HTTPPool, limiter: AdaptiveLimiter) -> None:
        self.api = api
        self.limiter = limiter
        self._closer: Any = None

    def start_closer(self) -> None:
        """Park an async generator on the loop: ``asyncio.run`` finalises it (and so closes the
        pool's connections) when it shuts the loop's async generators down."""

        async def closer() -> Any:
            try:
                yield
            finally:
                await self.api.close()

        self._closer = closer()
        try:
            self._closer.asend(None).send(None)
        except StopIteration:
            pass


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


def _message_text(messages: Sequence[Mapping[str, str]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


def _usage(raw: Any, *, prompt: str, completion: str) -> Usage:
    if isinstance(raw, Mapping):
        try:
            prompt_tokens = int(raw.get("prompt_tokens") or 0)
            completion_tokens = int(raw.get("completion_tokens") or 0)
            return Usage(prompt_tokens, completion_tokens)
        except (TypeError, ValueError):
            pass
    return Usage(estimate_tokens(prompt), estimate_tokens(completion), reported=False)



def run_client(context: RunContext, base_url: str, model: str, *, api_key_env: str | None = None,
               seed: int | None = None, **options: Any) -> OpenAIClient:
    """An OpenAI-compatible client of a run for ``model`` at ``base_url``, its key read from
    ``api_key_env`` (default ``OPENAI_API_KEY``) as the run started, its retries jittered from the
    run's seed (or ``seed``), each call (retries included) within the run's per-sample time limit
    where it sets one; ``options`` go to :class:`OpenAIClient`."""
    variable = api_key_env or ENV_API_KEY
    rng = random.Random(context.seed if seed is None else seed)
    if context.timeout_s is not None:  # the run's per-sample limit holds a call's retries too
        options["timeout"] = min(options.get("timeout", context.timeout_s), context.timeout_s)
    return OpenAIClient(base_url, model, api_key=context.secret(variable), api_key_env=variable, rng=rng, **options)
