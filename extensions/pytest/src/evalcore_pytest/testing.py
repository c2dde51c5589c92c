"""Test helpers for evalcore and plugin authors (public as :mod:`evalcore.testing`; the conformance kit
is :mod:`evalcore.testkit`).

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
  OpenAI settings left out of its environment. The pytest plugin ``evalcore`` also gives a
  ``scripted_server`` fixture: a running :class:`ScriptedServer`.
* :func:`assert_metric` and :func:`assert_no_regression`: quality gates in ordinary tests, over
  an :class:`~evalcore.EvaluationResult` or a saved run; the pytest plugin's ``evalcore_run``
  fixture evaluates once per test session and hands every test the same result.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

import attrs
from evalcore import PluginError

__all__ = [
    "Reply", "ScriptedServer", "assert_metric", "assert_no_regression", "compiled_part", "default_reply",
    "heavy_modules_after_listing", "import_ragas", "silent_server",
    "modules_imported_by_listing", "nested_list", "requested_schema", "run_evalcore", "run_without",
    "schema_instance", "write_journal", "write_records",
]

REQUIRE_COMPILED_ENV = "EVALCORE_REQUIRE_COMPILED"
"""Set to ``1`` (the test sessions do), a plugin's C extension that was not built fails its tests
instead of skipping them (:func:`compiled_part`)."""


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
    """Chat: an instance of the answer schema the request asks for (:func:`schema_instance`), else
    ``{"score": 1, "explanation": "scripted"}``; embeddings: length vectors."""
    if "input" in request:
        return Reply.embeddings([[float(len(t)), 1.0] for t in request["input"]])
    schema = requested_schema(request)
    text = json.dumps(schema_instance(schema)) if schema else '{"score": 1, "explanation": "scripted"}'
    return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})


def requested_schema(request: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks its answer to follow (OpenAI's ``response_format``), if any."""
    response_format = request.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("schema") if isinstance(response_format, dict) else None


def schema_instance(schema: Mapping[str, Any], *, number: float = 1, text: str = "scripted") -> Any:
    """A small value valid under ``schema``: every property, one item per list, ``number`` for numbers
    (moved into their bounds) and ``text`` for strings; ``$ref`` into ``$defs`` is followed."""
    definitions = schema.get("$defs", {})

    def build(node: Mapping[str, Any]) -> Any:
        if "$ref" in node:
            return build(definitions[node["$ref"].rsplit("/", 1)[-1]])
        for combined in ("anyOf", "oneOf", "allOf"):
            if node.get(combined):
                return build(node[combined][0])
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type", "object")
        kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
        if kind == "object":
            return {name: build(sub) for name, sub in node.get("properties", {}).items()}
        if kind == "array":
            return [build(node.get("items", {})) for _ in range(max(1, node.get("minItems", 1)))]
        if kind in ("number", "integer"):
            value = max(node.get("minimum", number), min(node.get("maximum", number), number))
            return int(value) if kind == "integer" else value
        return {"string": text, "boolean": True, "null": None}.get(kind, text)

    return build(schema)


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


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port on 127.0.0.1 whose server accepts connections and never answers them: a judge or
    tracker that hangs. Connections are held open until the block ends."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for connection in held:
            connection.close()
        listener.close()


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


def compiled_part(module: ModuleType | None, what: str) -> ModuleType:
    """A plugin's optional C extension for a test (``module``: ``None`` where it was not built):
    the test is skipped where it was not built, and fails with ``EVALCORE_REQUIRE_COMPILED=1``."""
    import pytest

    if module is None:
        if os.environ.get(REQUIRE_COMPILED_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
            pytest.fail(f"{what} was not built (is a C compiler installed?)")
        pytest.skip(f"{what} was not built here")
    return module


def import_ragas(langchain_openai: bool = True) -> None:
    """Make ``import ragas`` work in a parity test, or skip the test (without ragas, or without
    langchain-openai when ``langchain_openai``). ragas 0.4 imports langchain-community's Vertex AI
    chat model at import time, which newer langchain-community releases no longer ship; it only serves
    isinstance checks there, so a stand-in class does where it is missing."""
    import importlib.util
    import types

    import pytest

    try:
        import langchain_community.chat_models.vertexai  # noqa: F401
    except ImportError:
        if importlib.util.find_spec("langchain_community") is None:
            pytest.skip("ragas needs langchain-community")
        stub = types.ModuleType("langchain_community.chat_models.vertexai")
        stub.ChatVertexAI = type("ChatVertexAI", (), {})  # type: ignore[attr-defined]
        sys.modules.setdefault(stub.__name__, stub)
    pytest.importorskip("ragas")
    if langchain_openai:
        pytest.importorskip("langchain_openai")


def nested_list(depth: int) -> list[Any]:
    """``[[[...]]]`` nested ``depth`` levels deep: hostile input for anything that recurses."""
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def write_journal(
    path: Any, rows: Mapping[str, Mapping[str, Any]], *, metrics: Mapping[str, Mapping[str, Any]] | None = None,
    header: bool = True, checkpoint_every: int = 0, checksums: bool = True,
) -> Any:
    """Write a samples journal by hand: ``rows`` maps record id to ``{metric id: score}``.

    A score is a number or ``None`` (an ``ok`` value) or a full score object (``status``,
    ``reason``, ``error``, ``state`` ...). ``metrics`` holds the header's per-metric entries
    (``granularity``, ``direction`` ...). The journal is the one a run writes (format 2): its
    rows are followed by checkpoint lines, every ``checkpoint_every`` rows (default: one after
    all of them), each holding the SHA-256 of the file before it. ``checksums=False`` writes the
    older format 1 (checkpoints without checksums, only where ``checkpoint_every`` asks);
    ``header=False`` the header-less form without ``"i"``. Numbers are written as Python's json
    writes them (``NaN`` and ``Infinity`` included).
    """
    import hashlib

    digest = hashlib.sha256()
    lines: list[bytes] = []

    def add(value: Mapping[str, Any]) -> None:
        line = (json.dumps(value) + "\n").encode()
        digest.update(line)
        lines.append(line)

    def checkpoint(index: int, count: int) -> None:
        if checksums and header:
            add({"chunk": index, "rows": count, "sha256": digest.hexdigest()})
        else:
            add({"chunk": index, "rows": count})

    if header:
        add({"evalcore_journal": 2 if checksums else 1, **({"checksums": "sha256"} if checksums else {}),
             "fingerprint": {"written_by": "evalcore.testing"},
             "metrics": {k: dict(v) for k, v in (metrics or {}).items()}})
    count = chunk = 0
    for i, (record_id, scores) in enumerate(rows.items()):
        row: dict[str, Any] = {"id": record_id, "scores": {
            metric_id: dict(score) if isinstance(score, Mapping) else {"value": score, "status": "ok"}
            for metric_id, score in scores.items()}}
        if header:
            row["i"] = i
        add(row)
        count += 1
        if checkpoint_every and count == checkpoint_every:
            checkpoint(chunk, count)
            chunk, count = chunk + 1, 0
    if count and checksums and header:
        checkpoint(chunk, count)
    with open(path, "wb") as handle:
        handle.writelines(lines)
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


_HIDE = """
import importlib.abc, sys


class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Hide())
"""


def run_without(packages: str | tuple[str, ...], code: str, *,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Python ``code`` run in a fresh interpreter that cannot import ``packages`` (top-level names),
    as where their distributions are not installed; its output as text."""
    hidden = {packages} if isinstance(packages, str) else set(packages)
    return subprocess.run([sys.executable, "-c", _HIDE.format(hidden=hidden) + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)


def assert_metric(result: Any, metric: str, at_least: float | None = None, at_most: float | None = None) -> None:
    """Fail (``AssertionError``) unless ``metric``'s value in ``result`` lies within the bounds.

    ``result`` is an :class:`~evalcore.EvaluationResult` or the path of a JSON report or samples
    journal. The message shows the value with its interval, the bound, and the worst records
    (up to five ids with their values). A metric the result does not hold raises
    :class:`~evalcore.InputError`.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    from evalcore import gate

    if at_least is None and at_most is None:
        raise TypeError("assert_metric needs at_least, at_most or both")
    outcome = gate(result, at_least={metric: at_least} if at_least is not None else None,
                   at_most={metric: at_most} if at_most is not None else None)
    failed = outcome.failures
    if failed:
        raise AssertionError("\n".join(o.message() for o in failed))


def assert_no_regression(result: Any, baseline: Any, metric: str, alpha: float = 0.05, **options: Any) -> None:
    """Fail (``AssertionError``) when ``result`` is significantly worse than ``baseline`` on ``metric``.

    Both are an :class:`~evalcore.EvaluationResult` or a saved run's path; they are paired record
    by record and tested as :func:`evalcore.compare` does (``options``: ``tests``, ``correction``,
    ``n_resamples``, ``seed``, ``intersect``), so a difference within the noise passes. The message
    shows both values, the difference with its interval, the corrected p-value and the records
    that lost most. A baseline computed by another version of the metric raises
    :class:`~evalcore.InputError`.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    from evalcore import gate

    outcome = gate(result, baseline=baseline, no_worse=[metric], alpha=alpha, **options)
    if not outcome.passed:
        raise AssertionError("\n".join(o.message() for o in outcome.failures))
