"""A server on 127.0.0.1 with chat completions, the OpenAI Batch API and Anthropic's Message Batches,
shared by the batch tests and ``benchmarks/bench_batch.py``."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import web

Answer = Callable[[dict[str, Any]], tuple[str, dict[str, int]]]
"""What the server answers a chat-completions body: the message's text and its usage
(``prompt_tokens``, ``completion_tokens``)."""


class BatchServer:
    """Chat completions, the OpenAI Batch API and Anthropic's Message Batches, every request answered
    by ``answer`` (an Anthropic request as the chat-completions body it came from: its system prompt
    a first message). ``mode``: ``complete`` (a batch ends at its first poll), ``hold`` (it never
    ends), ``fail`` (it fails, answering nothing) or ``expire`` (the first batch expires with only
    its first half answered; later ones complete)."""

    def __init__(self, answer: Answer, mode: str = "complete") -> None:
        self.answer, self.mode = answer, mode
        self.files: dict[str, str] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.chat_calls, self.created = 0, []
        self.ids = itertools.count(1)
        app = web.Application(client_max_size=64 * 1024 * 1024)  # a benchmark's batch file passes 1 MiB
        app.router.add_post("/v1/chat/completions", self.chat)
        app.router.add_post("/v1/files", self.upload)
        app.router.add_get("/v1/files/{id}/content", self.content)
        app.router.add_post("/v1/batches", self.create_openai)
        app.router.add_get("/v1/batches/{id}", self.get_openai)
        app.router.add_post("/v1/messages/batches", self.create_anthropic)
        app.router.add_get("/v1/messages/batches/{id}", self.get_anthropic)
        app.router.add_get("/v1/messages/batches/{id}/results", self.results_anthropic)
        self.app = app

    def __enter__(self) -> BatchServer:
        ready = threading.Event()

        def serve() -> None:
            self.loop = asyncio.new_event_loop()
            self.runner = web.AppRunner(self.app)
            self.loop.run_until_complete(self.runner.setup())
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            self.loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        ready.wait(10)
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``body``."""
        text, usage = self.answer(body)
        return {"id": "c", "object": "chat.completion", "model": body["model"], "usage": usage,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}]}

    # -- plain chat completions
    async def chat(self, request: web.Request) -> web.Response:
        self.chat_calls += 1
        return web.json_response(self.completion(await request.json()))

    # -- the OpenAI Batch API
    async def upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        assert form["purpose"] == "batch"
        file_id = f"file-{next(self.ids)}"
        self.files[file_id] = form["file"].file.read().decode()  # type: ignore[union-attr]
        return web.json_response({"id": file_id, "object": "file", "purpose": "batch"})

    async def content(self, request: web.Request) -> web.Response:
        return web.Response(text=self.files[request.match_info["id"]])

    def _lines(self, batch_id: str) -> tuple[list[tuple[str, dict[str, Any]]], int]:
        """The batch's (custom_id, body) pairs and how many of them the batch answers."""
        requests = self.batches[batch_id]["requests"]
        expire = self.mode == "expire" and batch_id == self.created[0]
        return requests, (len(requests) // 2 if expire else len(requests))

    async def create_openai(self, request: web.Request) -> web.Response:
        payload = await request.json()
        assert payload["endpoint"] == "/v1/chat/completions"
        lines = [json.loads(line) for line in self.files[payload["input_file_id"]].splitlines()]
        assert all(line["method"] == "POST" and line["url"] == "/v1/chat/completions" for line in lines)
        batch_id = f"batch_{next(self.ids)}"
        self.batches[batch_id] = {"requests": [(line["custom_id"], line["body"]) for line in lines]}
        self.created.append(batch_id)
        return web.json_response({"id": batch_id, "object": "batch", "status": "validating"})

    async def get_openai(self, request: web.Request) -> web.Response:
        batch_id = request.match_info["id"]
        batch = {"id": batch_id, "object": "batch", "status": "in_progress"}
        if self.mode == "hold":
            return web.json_response(batch)
        if self.mode == "fail":
            return web.json_response({**batch, "status": "failed", "output_file_id": None})
        if "answers" not in self.batches[batch_id]:  # answered once, however often it is polled
            requests, answered = self._lines(batch_id)
            out, err = f"file-out-{batch_id}", f"file-err-{batch_id}"
            self.files[out] = "".join(json.dumps({"id": "r", "custom_id": cid, "error": None, "response": {
                "status_code": 200, "body": self.completion(body)}}) + "\n" for cid, body in requests[:answered])
            self.files[err] = "".join(json.dumps({"id": "r", "custom_id": cid, "response": None, "error": {
                "code": "batch_expired", "message": "not done in time"}}) + "\n" for cid, _ in requests[answered:])
            self.batches[batch_id]["answers"] = dict(
                status="expired" if answered < len(requests) else "completed", output_file_id=out,
                error_file_id=err if answered < len(requests) else None)
        return web.json_response({**batch, **self.batches[batch_id]["answers"]})

    # -- Anthropic's Message Batches
    async def create_anthropic(self, request: web.Request) -> web.Response:
        assert request.headers["anthropic-version"]
        payload = await request.json()
        batch_id = f"msgbatch_{next(self.ids)}"
        self.batches[batch_id] = {"requests": [(r["custom_id"], r["params"]) for r in payload["requests"]]}
        self.created.append(batch_id)
        return web.json_response({"id": batch_id, "type": "message_batch", "processing_status": "in_progress"})

    async def get_anthropic(self, request: web.Request) -> web.Response:
        batch_id = request.match_info["id"]
        if self.mode == "hold":
            return web.json_response({"id": batch_id, "processing_status": "in_progress"})
        return web.json_response({"id": batch_id, "processing_status": "ended",
                                  "results_url": f"{self.base_url}/messages/batches/{batch_id}/results"})

    async def results_anthropic(self, request: web.Request) -> web.Response:
        requests, answered = self._lines(request.match_info["id"])
        lines = []
        for n, (cid, params) in enumerate(requests):
            assert "system" in params and all(m["role"] != "system" for m in params["messages"])
            if n < answered:
                text, usage = self.answer({**params, "messages": [
                    {"role": "system", "content": params["system"]}, *params["messages"]]})
                result = {"type": "succeeded", "message": {
                    "model": params["model"], "stop_reason": "end_turn", "content": [{"type": "text", "text": text}],
                    "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]}}}
            else:
                result = {"type": "expired"}
            lines.append(json.dumps({"custom_id": cid, "result": result}) + "\n")
        return web.Response(text="".join(lines))
