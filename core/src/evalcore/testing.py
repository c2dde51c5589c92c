"""Test helpers for evalcore and plugin authors (the conformance kit is :mod:`evalcore.testkit`).

* :class:`ScriptedServer`: a scripted OpenAI-compatible server on loopback, for testing
  model-backed metrics offline::

    with ScriptedServer() as server:
        server.script(Reply.chat('{"score": 0.8}'), Reply(429, headers={"Retry-After": "0"}))
        metric = get_metric("judge/faithfulness", base_url=server.base_url, model="m")

  Scripted replies are served in order; when none is left, ``default`` (a function of the
  request JSON) answers. Every request is recorded in ``requests`` (``at``, ``path``,
  ``json``, ``headers`` with lower-case names). The server binds to 127.0.0.1 only and answers at most
  ``max_requests`` requests (HTTP 503 after that).
* :func:`modules_imported_by_listing`: what listing the installed metrics imports, measured
  in a fresh interpreter, so a plugin can check that its registration module stays light.
* :func:`write_records` and :func:`run_evalcore`: a JSONL file of records, and the ``evalcore``
  command run on it in a fresh process (as users reach a metric), with the caller's evalcore and
  OpenAI settings left out of its environment. The conformance kit's pytest plugin also gives a
  ``scripted_server`` fixture: a running :class:`ScriptedServer`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

from evalcore._contract.errors import PluginError

__all__ = [
    "Reply", "ScriptedServer", "default_reply", "heavy_modules_after_listing", "modules_imported_by_listing",
    "nested_list", "run_evalcore", "write_journal", "write_records",
]


@attrs.frozen
class Reply:
    """One HTTP answer: status, body (a JSON value or raw text), headers, delay before it."""

    status: int = 200
    body: Any = attrs.field(factory=dict)
    headers: Mapping[str, str] = attrs.field(factory=dict)
    delay: float = 0.0

    @classmethod
    def chat(cls, text: str, *, usage: Mapping[str, int] | None = None, finish_reason: str = "stop",
             model: str = "scripted", delay: float = 0.0) -> Reply:
        """A chat completion answering ``text``; ``usage=None`` leaves usage out."""
        body: dict[str, Any] = {
            "id": "chatcmpl-scripted", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": finish_reason}],
        }
        if usage is not None:
            body["usage"] = {**usage, "total_tokens": sum(usage.values())}
        return cls(200, body, delay=delay)

    @classmethod
    def embeddings(cls, vectors: list[list[float]], model: str = "scripted") -> Reply:
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        return cls(200, {"object": "list", "data": data, "model": model,
                         "usage": {"prompt_tokens": len(vectors), "total_tokens": len(vectors)}})


def default_reply(request: Mapping[str, Any]) -> Reply:
    """Chat: ``{"score": 1}``-style JSON for every field the prompt asks for; embeddings: length vectors."""
    if "input" in request:
        return Reply.embeddings([[float(len(t)), 1.0] for t in request["input"]])
    return Reply.chat('{"score": 1, "explanation": "scripted"}', usage={"prompt_tokens": 10, "completion_tokens": 5})


class ScriptedServer:
    """A threaded HTTP server on 127.0.0.1 that plays back scripted replies."""

    def __init__(self, default: Callable[[Mapping[str, Any]], Reply] = default_reply,
                 max_requests: int = 1000) -> None:
        self.default = default
        self.max_requests = max_requests
        self.requests: list[dict[str, Any]] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests."""
        with self._lock:
            self._script.extend(replies)

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if len(self.requests) > self.max_requests:
                return Reply(503, {"error": "scripted server: request limit reached"})
            if self._script:
                return self._script.popleft()
        return self.default(request.get("json") or {})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8")
                try:
                    payload = json.loads(raw)
                except ValueError:
                    payload = None
                reply = server._next({"at": time.monotonic(), "path": self.path, "json": payload,
                                      "headers": {k.lower(): v for k, v in self.headers.items()}})
                if reply.delay:
                    time.sleep(reply.delay)
                body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = body.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                """Silent."""

        return Handler


def modules_imported_by_listing() -> set[str]:
    """The modules a fresh interpreter has imported after ``evalcore.list_metrics()``."""
    code = "import json, sys, evalcore; evalcore.list_metrics(); print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or [f"exit status {result.returncode}"]
        error = PluginError(f"listing metrics in a fresh interpreter failed: {lines[-1]}")
        error.stderr = result.stderr  # the whole traceback, for a test's report
        raise error
    return set(json.loads(result.stdout))


def heavy_modules_after_listing(package: str, heavy: tuple[str, ...] = ("numpy",)) -> list[str]:
    """Modules that listing metrics should not have imported: ``package``'s own modules other
    than its registration module, and every module under the ``heavy`` top-level names."""
    allowed = {package, f"{package}._register"}
    return sorted(
        m for m in modules_imported_by_listing()
        if (m.startswith(f"{package}.") and m not in allowed) or m.split(".")[0] in heavy
    )


def nested_list(depth: int) -> list[Any]:
    """``[[[...]]]`` nested ``depth`` levels deep: hostile input for anything that recurses."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def write_journal(
    path: Any, rows: Mapping[str, Mapping[str, Any]], *, metrics: Mapping[str, Mapping[str, Any]] | None = None,
    header: bool = True, checkpoint_every: int = 0,
) -> Any:
    """Write a samples journal by hand: ``rows`` maps record id to ``{metric id: score}``.

    A score is a number or ``None`` (an ``ok`` value) or a full score object (``status``,
    ``reason``, ``error``, ``state`` ...). ``metrics`` holds the header's per-metric entries
    (``granularity``, ``direction`` ...); ``header=False`` writes the older header-less form
    without ``"i"``; ``checkpoint_every`` interleaves checkpoint lines as a reader meets them.
    """
    lines: list[dict[str, Any]] = []
    if header:
        lines.append({"evalcore_journal": 1, "fingerprint": {"written_by": "evalcore.testing"},
                      "metrics": {k: dict(v) for k, v in (metrics or {}).items()}})
    for i, (record_id, scores) in enumerate(rows.items()):
        row: dict[str, Any] = {"id": record_id, "scores": {
            metric_id: dict(score) if isinstance(score, Mapping) else {"value": score, "status": "ok"}
            for metric_id, score in scores.items()}}
        if header:
            row["i"] = i
        lines.append(row)
        if checkpoint_every and (i + 1) % checkpoint_every == 0:
            lines.append({"chunk": (i + 1) // checkpoint_every, "done": i + 1})
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)
    return path


def write_records(path: Any, records: Any) -> Any:
    """Write ``records`` (``{"id", "example", "prediction"}`` dicts) as JSON lines to ``path``; returns ``path``."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(record) + "\n" for record in records)
    return path


def run_evalcore(*args: str, env: Mapping[str, str] | None = None, timeout: float = 120,
                 check: bool = True) -> subprocess.CompletedProcess[str]:
    """``python -m evalcore ARGS`` in a fresh process, its output as text. The environment is this
    process's without ``EVALCORE_*`` and ``OPENAI_*`` variables, plus ``env``; with ``check`` a
    non-zero exit fails with the command's stderr."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("EVALCORE_", "OPENAI_"))}
    environ.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "evalcore", *args], capture_output=True, text=True,
                          env=environ, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"evalcore {' '.join(args)} exited {proc.returncode}: {proc.stderr[-3000:]}")
    return proc
