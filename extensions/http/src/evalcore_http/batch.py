"""Chat completions sent through a provider's batch API, at the batch rate (half the price).

:class:`BatchQueue` gathers the requests of many concurrent callers (the samples a run scores at
once): it sends them as one batch when ``size`` are waiting or when no request came for ``delay``
seconds, polls the batch every ``poll_s`` seconds and answers each caller with its own result,
matched by ``custom_id``. Two protocols:

* :class:`OpenAIBatches` — the OpenAI Batch API: the requests uploaded as a JSONL file to
  ``/files`` (``purpose=batch``), ``POST /batches``, ``GET /batches/{id}``, the output and error
  files read from ``/files/{id}/content``;
* :class:`AnthropicBatches` — Anthropic's Message Batches: ``POST /messages/batches``,
  ``GET /messages/batches/{id}``, the results read from its ``results_url``.

Each request's batch id is written to a ledger (a JSON file) as soon as the batch is created, so
a run killed while it waits finds the same batch again and polls it instead of paying twice. A
batch that ends (expired, cancelled, failed) with some requests answered keeps those answers and
sends the rest again in a new batch.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import pathlib
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import orjson

from .errors import BackendError, MalformedResponse, RequestRejected

OPENAI = "openai"
ANTHROPIC = "anthropic"
BATCH_APIS = (OPENAI, ANTHROPIC)
ANTHROPIC_VERSION = "2023-06-01"
RETRIES = 5
"""Times a poll or a result download is tried again while the server fails."""


class BatchAPI(Protocol):
    """One provider's batch protocol."""

    async def create(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
        """Send ``(custom_id, chat-completions body)`` pairs as one batch; its id."""
        ...

    async def poll(self, batch_id: str) -> bool:
        """Whether the batch has ended (answered, expired, cancelled or failed)."""
        ...

    async def results(self, batch_id: str) -> dict[str, dict[str, Any]]:
        """The chat completions (OpenAI's shape) of the requests the ended batch answered, by custom_id."""
        ...

    async def close(self) -> None:
        ...


class _HTTP:
    """An aiohttp session on ``base_url`` whose errors become :class:`BackendError`."""

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers)
        self._session: Any = None

    async def request(self, method: str, url: str, **kwargs: Any) -> bytes:
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(headers=self.headers, trust_env=False)
        full = url if url.startswith(("http://", "https://")) else self.base_url + url
        try:
            async with self._session.request(method, full, allow_redirects=False, **kwargs) as response:
                body = await response.read()
        except (aiohttp.ClientError, OSError) as exc:
            raise BackendError(f"{method} {full} failed: {exc}") from None
        if not 200 <= response.status < 300:
            text = body.decode("utf-8", errors="replace")
            raise RequestRejected(f"{method} {full} answered HTTP {response.status}: {text[:300]}",
                                  status=response.status, body=text)
        return body

    async def json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        body = await self.request(method, url, **kwargs)
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise MalformedResponse(f"{method} {url} answered with invalid JSON: {body[:200]!r}") from None
        if not isinstance(data, dict):
            raise MalformedResponse(f"{method} {url} answered with JSON that is not an object")
        return data

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()


def _lines(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in body.splitlines() if line.strip()]


class OpenAIBatches:
    """The OpenAI Batch API at ``base_url`` (the API root, ``.../v1``)."""

    def __init__(self, base_url: str, api_key: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = _HTTP(base_url, headers)

    async def create(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
        import aiohttp

        lines = b"".join(orjson.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions",
                                       "body": body}) + b"\n" for cid, body in requests)
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", lines, filename="requests.jsonl", content_type="application/jsonl")
        uploaded = await self.http.json("POST", "/files", data=form)
        batch = await self.http.json("POST", "/batches", json={
            "input_file_id": uploaded["id"], "endpoint": "/v1/chat/completions", "completion_window": "24h"})
        return str(batch["id"])

    async def _batch(self, batch_id: str) -> dict[str, Any]:
        return await self.http.json("GET", f"/batches/{batch_id}")

    async def poll(self, batch_id: str) -> bool:
        return (await self._batch(batch_id)).get("status") in ("completed", "expired", "cancelled", "failed")

    async def results(self, batch_id: str) -> dict[str, dict[str, Any]]:
        batch = await self._batch(batch_id)
        answered: dict[str, dict[str, Any]] = {}
        if batch.get("output_file_id"):
            for line in _lines(await self.http.request("GET", f"/files/{batch['output_file_id']}/content")):
                response = line.get("response") or {}
                if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
                    answered[str(line["custom_id"])] = response["body"]
                elif _error_text(line, response) != "expired":
                    answered[str(line["custom_id"])] = {"error": _error_text(line, response)}
        if batch.get("error_file_id"):
            for line in _lines(await self.http.request("GET", f"/files/{batch['error_file_id']}/content")):
                error = _error_text(line, line.get("response") or {})
                if error != "expired":
                    answered.setdefault(str(line["custom_id"]), {"error": error})
        return answered

    async def close(self) -> None:
        await self.http.close()


class AnthropicBatches:
    """Anthropic's Message Batches at ``base_url`` (``https://api.anthropic.com/v1``); the requests are
    turned from chat completions into messages (system prompt apart) and the answers back."""

    def __init__(self, base_url: str, api_key: str | None = None) -> None:
        headers = {"anthropic-version": ANTHROPIC_VERSION, **({"x-api-key": api_key} if api_key else {})}
        self.http = _HTTP(base_url, headers)

    async def create(self, requests: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
        batch = await self.http.json("POST", "/messages/batches",
                                     json={"requests": [{"custom_id": cid, "params": _to_messages(body)}
                                                        for cid, body in requests]})
        return str(batch["id"])

    async def poll(self, batch_id: str) -> bool:
        return (await self.http.json("GET", f"/messages/batches/{batch_id}")).get("processing_status") == "ended"

    async def results(self, batch_id: str) -> dict[str, dict[str, Any]]:
        batch = await self.http.json("GET", f"/messages/batches/{batch_id}")
        answered: dict[str, dict[str, Any]] = {}
        if batch.get("results_url"):
            for line in _lines(await self.http.request("GET", batch["results_url"])):
                result = line.get("result") or {}
                if result.get("type") == "succeeded":
                    answered[str(line["custom_id"])] = _from_message(result["message"])
                elif result.get("type") == "errored":
                    answered[str(line["custom_id"])] = {"error": json.dumps(result.get("error"))}
        return answered

    async def close(self) -> None:
        await self.http.close()


def _error_text(line: Mapping[str, Any], response: Mapping[str, Any]) -> str:
    """What a failed line of an OpenAI batch says (``"expired"`` for a request the batch did not reach)."""
    error = line.get("error") or (response.get("body") or {}).get("error") or {}
    code = error.get("code") if isinstance(error, Mapping) else None
    if code == "batch_expired":
        return "expired"
    return f"HTTP {response.get('status_code')}: {json.dumps(error)[:300]}"


def _to_messages(body: Mapping[str, Any]) -> dict[str, Any]:
    """A chat-completions body as Anthropic's Messages parameters."""
    system = "\n\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "system")
    params: dict[str, Any] = {"model": body["model"], "max_tokens": body.get("max_tokens") or 1024,
                              "messages": [dict(m) for m in body["messages"] if m["role"] != "system"],
                              "temperature": body.get("temperature", 0.0)}
    if system:
        params["system"] = system
    return params


def _from_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An Anthropic message as a chat completion."""
    text = "".join(part.get("text", "") for part in message.get("content") or [] if part.get("type") == "text")
    usage = message.get("usage") or {}
    stop = message.get("stop_reason")
    reason = {"end_turn": "stop", "max_tokens": "length"}.get(str(stop), stop)
    return {"model": message.get("model"), "choices": [{"message": {"content": text}, "finish_reason": reason}],
            "usage": {"prompt_tokens": usage.get("input_tokens", 0),
                      "completion_tokens": usage.get("output_tokens", 0)}}


def batch_api(kind: str, base_url: str, api_key: str | None = None) -> BatchAPI:
    """The batch protocol ``kind`` (:data:`OPENAI` or :data:`ANTHROPIC`) at ``base_url``."""
    if kind == ANTHROPIC:
        return AnthropicBatches(base_url, api_key)
    return OpenAIBatches(base_url, api_key)


class BatchAnswer(NamedTuple):
    """A request's answer as the batch gave it (a chat completion in OpenAI's shape), and the batch's id."""

    body: dict[str, Any]
    batch_id: str


class Ledger:
    """custom_id → batch id, kept in a JSON file so a later run finds the batches an earlier one created."""

    def __init__(self, path: str | pathlib.Path | None) -> None:
        self.path = pathlib.Path(path) if path else None
        self.entries: dict[str, str] = {}
        if self.path is not None and self.path.exists():
            try:
                self.entries = dict(json.loads(self.path.read_text(encoding="utf-8")))
            except ValueError:
                self.entries = {}

    def record(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        self.entries.update(dict.fromkeys(custom_ids, batch_id))
        self._write()

    def forget(self, custom_ids: Sequence[str]) -> None:
        for cid in custom_ids:
            self.entries.pop(cid, None)
        self._write()

    def _write(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.entries, indent=0), encoding="utf-8")
        tmp.replace(self.path)


class BatchQueue:
    """Chat-completion requests of concurrent callers sent as batches through ``api``.

    :meth:`submit` waits for the request's answer: a chat completion in OpenAI's shape. ``batches``
    counts the batches this queue created."""

    def __init__(self, api: BatchAPI, *, ledger: Ledger | None = None, size: int = 50_000, delay: float = 0.2,
                 poll_s: float = 30.0) -> None:
        self.api = api
        self.ledger = ledger or Ledger(None)
        self.size = size
        self.delay = delay
        self.poll_s = poll_s
        self.batches = 0
        self._waiting: dict[str, tuple[Mapping[str, Any], list[asyncio.Future[BatchAnswer]]]] = {}
        self._pending: dict[str, tuple[Mapping[str, Any], list[asyncio.Future[BatchAnswer]]]] = {}
        self._watched: dict[str, asyncio.Task[None]] = {}
        self._ended: dict[str, dict[str, dict[str, Any]]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closer: Any = None  # the async generator that closes the queue with its loop

    async def submit(self, custom_id: str, body: Mapping[str, Any]) -> BatchAnswer:
        """The answer to ``body``; a request a ledgered batch holds is awaited there, not sent again."""
        future: asyncio.Future[BatchAnswer] = asyncio.get_running_loop().create_future()
        if custom_id in self._pending:
            self._pending[custom_id][1].append(future)
        elif custom_id in self._waiting:
            self._waiting[custom_id][1].append(future)
        elif custom_id in self._ended.get(self.ledger.entries.get(custom_id, ""), {}):
            batch_id = self.ledger.entries[custom_id]
            self._answer(custom_id, batch_id, self._ended[batch_id][custom_id], [future])
        elif custom_id in self.ledger.entries:
            batch_id = self.ledger.entries[custom_id]
            self._pending[custom_id] = (body, [future])
            if batch_id not in self._watched:
                self._watched[batch_id] = self._spawn(self._watch(batch_id))
        else:
            self._waiting[custom_id] = (body, [future])
            if len(self._waiting) >= self.size:
                self._flush()
            else:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = asyncio.get_running_loop().call_later(self.delay, self._flush)
        return await future

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._waiting:
            requests, self._waiting = self._waiting, {}
            self._spawn(self._send(requests))

    async def _send(self, requests: dict[str, tuple[Mapping[str, Any], list[asyncio.Future[BatchAnswer]]]],
                    ) -> None:
        try:
            batch_id = await self.api.create([(cid, body) for cid, (body, _) in requests.items()])
        except Exception as exc:  # noqa: BLE001 - every caller of the batch gets the error
            for _, futures in requests.values():
                _fail(futures, exc)
            return
        self.batches += 1
        self.ledger.record(batch_id, list(requests))
        self._pending.update(requests)
        await self._watch(batch_id)

    async def _watch(self, batch_id: str) -> None:
        """Poll ``batch_id`` until it ends, answer its callers, and send again what it left unanswered."""
        mine: list[str] = []
        try:
            while not await self._retried(self.api.poll, batch_id):
                await asyncio.sleep(self.poll_s)
            answered = await self._retried(self.api.results, batch_id)
            if not answered:  # a later run sends these again; this one does not go round in circles
                mine = self._mine(batch_id)
                self.ledger.forget(mine)
                raise BackendError(f"batch {batch_id} ended without answering any request (failed, cancelled "
                                   "or expired); its requests are sent again only by another run")
        except Exception as exc:  # noqa: BLE001 - every caller of the batch gets the error
            for cid in [cid for cid in self._pending if cid in mine or self.ledger.entries.get(cid) == batch_id]:
                _fail(self._pending.pop(cid)[1], exc)
            return
        finally:
            self._watched.pop(batch_id, None)
        self._ended[batch_id] = answered
        mine = self._mine(batch_id)
        unanswered = [cid for cid in mine if cid not in answered]
        failed = [cid for cid in mine if "choices" not in answered.get(cid, {"choices": None})]
        self.ledger.forget(unanswered + failed)  # a later run asks the failed ones again
        for cid in mine:
            body, futures = self._pending.pop(cid)
            if cid in answered:
                self._answer(cid, batch_id, answered[cid], futures)
            else:
                self._waiting[cid] = (body, futures)
        if unanswered:
            self._flush()

    async def _retried(self, call: Any, batch_id: str) -> Any:
        """``call(batch_id)``, tried again after a pause while the server fails (no answer, HTTP 429 or
        5xx), at most ``RETRIES`` times in a row."""
        for attempt in itertools.count():
            try:
                return await call(batch_id)
            except BackendError as exc:
                transient = exc.status is None or exc.status == 429 or exc.status >= 500
                if not transient or attempt >= RETRIES:
                    raise
            await asyncio.sleep(min(self.poll_s, 2.0**attempt))

    def _mine(self, batch_id: str) -> list[str]:
        return [cid for cid, bid in self.ledger.entries.items() if bid == batch_id and cid in self._pending]

    @staticmethod
    def _answer(custom_id: str, batch_id: str, answer: dict[str, Any], futures: list[asyncio.Future[BatchAnswer]],
                ) -> None:
        if "error" in answer and "choices" not in answer:
            _fail(futures, RequestRejected(f"batch request {custom_id} failed: {answer['error']}"))
            return
        for future in futures:
            if not future.done():
                future.set_result(BatchAnswer(answer, batch_id))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self.api.close()


def _fail(futures: list[asyncio.Future[BatchAnswer]], exc: BaseException) -> None:
    for future in futures:
        if not future.done():
            future.set_exception(exc)


_QUEUES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, ...], BatchQueue]] = (
    weakref.WeakKeyDictionary())


def run_queue(kind: str, base_url: str, api_key: str | None, *, folder: str | None, poll_s: float,
              delay: float = 0.2) -> BatchQueue:
    """The batch queue of this event loop (a run) for the protocol ``kind`` at ``base_url``, shared by
    every metric that asks it; its ledger is ``batches/<kind>-<hash of base_url>.json`` in ``folder``
    (the run's cache folder; ``None``: no ledger). The queue closes when the loop shuts down."""
    loop = asyncio.get_running_loop()
    queues = _QUEUES.setdefault(loop, {})
    key = (kind, base_url, folder or "")
    queue = queues.get(key)
    if queue is None:
        name = f"{kind}-{hashlib.sha256(base_url.encode()).hexdigest()[:16]}.json"
        ledger = Ledger(pathlib.Path(folder) / "batches" / name if folder else None)
        queue = queues[key] = BatchQueue(batch_api(kind, base_url, api_key), ledger=ledger, delay=delay,
                                         poll_s=poll_s)
        _close_with_loop(queue)
    return queue


def _close_with_loop(queue: BatchQueue) -> None:
    """Park an async generator on the loop: ``asyncio.run`` finalises it (closing the queue) at shutdown."""

    async def closer() -> Any:
        try:
            yield
        finally:
            await queue.close()

    queue._closer = closer()
    try:
        queue._closer.asend(None).send(None)
    except StopIteration:
        pass
