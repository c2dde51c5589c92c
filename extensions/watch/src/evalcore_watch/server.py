"""The receiver and the scoring loop: OTLP/HTTP in, spool, traces, batches, runs, monitors, alarms."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, ClientTimeout, web
from evalcore.plugin import InputError
from google.rpc.code_pb2 import INVALID_ARGUMENT, RESOURCE_EXHAUSTED

from .assembly import Assembler, Trace
from .config import WatchConfig
from .monitor import Monitor
from .otlp import JSON, PROTOBUF, decode_request, decompress, encode_response, encode_status, media_type, spans_of
from .scoring import Scorer
from .store import Store

__all__ = ["Watch"]

log = logging.getLogger("evalcore.watch")

MAX_BODY_BYTES = 64 * 2**20
"""The largest export request accepted, before and after decompression."""


def _values(rows: Path, metric: str) -> Iterator[tuple[str, float]]:
    """``(record id, value)`` of each record a run's rows journal scored ``ok`` for ``metric``."""
    if not rows.exists():
        return
    with open(rows, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            score = (row.get("scores") or {}).get(metric) if "id" in row else None
            if score and score.get("status") == "ok" and isinstance(score.get("value"), (int, float)):
                yield row["id"], float(score["value"])


def _refuse(status: int, content_type: str, code: int, message: str,
            headers: dict[str, str] | None = None) -> web.Response:
    """A refused request's answer: HTTP ``status`` with a ``google.rpc.Status`` in the request's encoding."""
    body, kind = encode_status(content_type, code, message)
    return web.Response(status=status, body=body, content_type=kind, headers=headers)


class Watch:
    """One receiver over one store: recovers what an earlier process left, then serves."""

    def __init__(self, config: WatchConfig) -> None:
        self.config = config
        self.store = Store(config.store)
        self.scorer = Scorer(self.store, config.rules, config.budget, options=config.evaluate_options())
        self.assembler = Assembler(self._complete, config.trace_timeout_s, skip=self.scorer.claimed.__contains__)
        self.ready: list[Trace] = []
        self.ready_spans = 0
        self.ready_since = 0.0
        self.monitors = [Monitor(spec) for spec in config.monitors]
        self.alarms_path = self.store.root / "alarms.jsonl"
        self.fired = {(a["monitor"], a["window"]) for a in self._read_alarms()}
        self.wake = asyncio.Event()
        self.received_spans = 0
        self.compacted = ""

    # -- receiving -------------------------------------------------------------------
    def _complete(self, trace: Trace) -> None:
        self.scorer.claimed.add(trace.trace_id)  # late spans of a trace handed on are not a new trace
        if not self.ready:
            self.ready_since = time.monotonic()
        self.ready.append(trace)
        self.ready_spans += trace.n_spans
        self.wake.set()

    @property
    def queued_spans(self) -> int:
        return self.ready_spans + self.assembler.pending_spans

    async def receive(self, request: web.Request) -> web.Response:
        """``POST /v1/traces``: spool, then answer. Refused, with a ``google.rpc.Status`` body: 415 for a
        Content-Type other than protobuf or JSON, 429 with Retry-After while the queue is full, 400 for
        a body that is not an export request (or cannot be decompressed)."""
        content_type = request.headers.get("Content-Type", PROTOBUF)
        if media_type(content_type) not in (PROTOBUF, JSON):
            return _refuse(415, content_type, INVALID_ARGUMENT,
                           f"Content-Type: expected {PROTOBUF} or {JSON}, got {content_type!r}")
        if self.queued_spans >= self.config.max_queue_spans:
            return _refuse(429, content_type, RESOURCE_EXHAUSTED,
                           f"queue full ({self.config.max_queue_spans} spans), retry later",
                           {"Retry-After": str(self.config.retry_after_s)})
        try:
            body = decompress(await request.read(), request.headers.get("Content-Encoding"), MAX_BODY_BYTES)
            data = decode_request(body, content_type)
        except InputError as exc:
            return _refuse(400, content_type, INVALID_ARGUMENT, str(exc))
        self.store.append(data)
        rejected = self.assembler.add(data)
        self.received_spans += len(spans_of(data)) - rejected
        message = f"{rejected} spans without a valid traceId and spanId (hex)" if rejected else ""
        body, kind = encode_response(content_type, rejected, message)
        return web.Response(body=body, content_type=kind)

    # -- scoring ---------------------------------------------------------------------
    async def score_loop(self) -> None:
        """Batches complete traces, scores them, feeds the monitors; expires traces without a root."""
        while True:
            try:
                await asyncio.wait_for(self.wake.wait(), self.config.batch_wait_s)
            except TimeoutError:
                pass
            self.wake.clear()
            self.assembler.expire()
            due = time.monotonic() - self.ready_since >= self.config.batch_wait_s
            while self.ready and (due or len(self.ready) >= self.config.batch_size):
                batch, self.ready = self.ready[:self.config.batch_size], self.ready[self.config.batch_size:]
                self.ready_spans -= sum(t.n_spans for t in batch)
                manifest = self.scorer.claim(batch)
                await asyncio.to_thread(self.scorer.score, manifest)
                await self._watch(manifest)
                self.ready_since = time.monotonic()
                if manifest["hour"] != self.compacted:
                    waiting = {t.trace_id for t in self.ready} | set(self.assembler.open)  # not yet in a batch
                    self.store.compact(self.scorer.claimed - waiting)
                    self.compacted = manifest["hour"]

    async def _watch(self, manifest: dict[str, Any]) -> None:
        for monitor in self.monitors:
            if monitor.spec.scorer not in manifest["scorers"]:
                continue
            rows = self.store.report_path(manifest, monitor.spec.scorer).with_suffix(".rows.jsonl")
            scored = list(_values(rows, monitor.spec.metric))
            for found in monitor.add_many([v for _, v in scored], [i for i, _ in scored]):
                if (found["monitor"], found["window"]) not in self.fired:
                    await self._alarm(found)

    async def _alarm(self, alarm: dict[str, Any]) -> None:
        self.fired.add((alarm["monitor"], alarm["window"]))
        with open(self.alarms_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(alarm) + "\n")
        log.error("alarm %s: %s of scorer %s is below %.4f (upper bound %.4f after %d traces, window %d)",
                  alarm["monitor"], alarm["metric"], alarm["scorer"], alarm["reference"], alarm["upper"],
                  alarm["n"], alarm["window"])
        if self.config.webhook:
            try:
                async with ClientSession(timeout=ClientTimeout(total=10)) as session:
                    async with session.post(self.config.webhook, json=alarm) as response:
                        if response.status >= 300:
                            log.warning("alarm webhook %s answered %d", self.config.webhook, response.status)
            except Exception as exc:  # noqa: BLE001 - the alarm is in the log and the store already
                log.warning("alarm webhook %s failed: %s", self.config.webhook, exc)

    def _read_alarms(self) -> list[dict[str, Any]]:
        if not self.alarms_path.exists():
            return []
        return [json.loads(line) for line in self.alarms_path.read_text(encoding="utf-8").splitlines() if line]

    # -- running ---------------------------------------------------------------------
    async def recover(self) -> None:
        """Finishes the batches an earlier process claimed, replays the monitors over every finished
        run, and reassembles the spooled traces not yet claimed."""
        pending = self.scorer.pending()
        for manifest in pending:
            await asyncio.to_thread(self.scorer.score, manifest)
        for manifest in self.store.manifests():
            await self._watch(manifest)
        for request in self.store.spooled():
            self.assembler.add(request)
        if pending or self.ready or self.assembler.open:
            log.info("recovered: %d unfinished batches scored; %d spooled traces complete, %d waiting for spans",
                     len(pending), len(self.ready), len(self.assembler.open))

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.router.add_post("/v1/traces", self.receive)
        return app

    def runner(self) -> web.AppRunner:
        """The receiver's runner: bodies decompressed here (:func:`~.otlp.decompress`), so a body that
        is not the gzip it claims is answered 400 like any bad request."""
        return web.AppRunner(self.app(), access_log=None, auto_decompress=False)

    async def serve(self, ready: asyncio.Event | None = None) -> None:
        """Recovers, then receives and scores until cancelled."""
        await self.recover()
        runner = self.runner()
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.config.port)
        await site.start()
        log.info("evalcore watch: receiving OTLP/HTTP traces at http://%s:%d/v1/traces, store %s",
                 self.config.host, self.config.port, self.store.root)
        if ready is not None:
            ready.set()
        try:
            await self.score_loop()
        finally:
            await runner.cleanup()
            self.store.close()
