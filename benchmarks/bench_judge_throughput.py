"""Judge and embedding calls per second against a loopback server that answers after a fixed delay.

A separate process serves ``/v1/chat/completions`` and ``/v1/embeddings`` on 127.0.0.1
(HTTP/1.1 keep-alive, each answer after ``--delay`` seconds; a chat request that asks for a JSON
schema gets a valid instance of it, :func:`evalcore.testing.schema_instance`). In one run, with
interleaved repeats, it times ``--calls`` requests at ``--concurrency``:

* ``evalcore``: the judge metric ``judge/llm_judge`` (cache off) scoring ``--calls`` samples,
  each asked with its answer's JSON schema as OpenAI structured output and the answer
  validated against it, and the embedding-similarity metric embedding ``--calls`` batches
  over HTTP;
* ``faithful``: the structured path of a RAG judge, ``judge/faithfulness`` scoring ``--calls``
  samples with their retrieved evidence (one call each, ``FaithfulnessAnswer``'s schema);
* ``claims``: ``judge/claim_faithfulness`` scoring ``--calls / 2`` samples, two structured calls
  each (the statements, then a verdict per statement): the same number of calls;
* ``asyncio``: a bare client on asyncio streams with ``--concurrency`` kept-alive connections
  (close to what the transport allows);
* ``httpx``: one shared ``httpx.AsyncClient``;
* ``openai``: one shared ``openai.AsyncOpenAI`` (its aiohttp transport where installed), the
  typed ``chat.completions.create`` / ``embeddings.create`` calls a user of the SDK makes.

The bare clients send the same ``response_format`` in their chat requests. ``--only`` runs some
of the contenders (by name, comma-separated).

The ideal is ``calls / concurrency * delay``. Prints min and median seconds of each, their
ratio to the ideal (the target for the judge paths is 1.3x), and the client process's CPU
seconds (what a loaded machine stretches: a client whose CPU time stays below the ideal can
reach it on a free core).

Then it counts the calls one claim-level faithfulness sample costs in evalcore and in ragas
(where ragas can be imported), on the same samples asked of one scripted server
(``bench_claim_metrics.py``'s samples and verdict oracle); by its definition a sample with
statements costs two.

    python benchmarks/bench_judge_throughput.py [--calls 1000 --concurrency 32 --delay 0.05 --repeats 3
                                                 --claim-samples 5 --only evalcore,asyncio,openai]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib.util
import json
import multiprocessing
import statistics
import sys
import time
import types
from collections.abc import Callable
from typing import Any

TARGET = 1.3  # the judge paths' time, at most this many times the ideal
CHAT = {"id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"explanation": "ok", "score": 1}'},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


@functools.cache
def _chat(schema: str | None) -> bytes:
    """The chat answer to a request asking for ``schema`` (JSON text, or none): a valid instance of it."""
    if schema is None:
        return json.dumps(CHAT).encode()
    from evalcore.testing import schema_instance

    content = json.dumps(schema_instance(json.loads(schema), text="ok"))
    choice = {**CHAT["choices"][0], "message": {"role": "assistant", "content": content}}
    return json.dumps({**CHAT, "choices": [choice]}).encode()


def _answer(path: str, request: dict) -> bytes:
    if path.endswith("/embeddings"):
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0]}
                for i, t in enumerate(request.get("input") or [])]
        return json.dumps({"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1}}).encode()
    from evalcore.testing import requested_schema

    schema = requested_schema(request)
    return _chat(json.dumps(schema, sort_keys=True) if schema else None)


def serve(port_queue: multiprocessing.Queue, delay: float, answer: Callable[[str, dict], bytes] | None = None,
          counter: Any = None) -> None:
    """A keep-alive HTTP/1.1 server on asyncio streams; answers every POST after ``delay`` with
    ``answer(path, request)`` (default: :func:`_answer`), counting the requests in ``counter``
    (a ``multiprocessing.Value``) where given."""
    answer = answer or _answer

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                if counter is not None:
                    with counter.get_lock():
                        counter.value += 1
                await asyncio.sleep(delay)
                data = answer(path, json.loads(body or b"{}"))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(data)).encode() + b"\r\n\r\n" + data)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
        port_queue.put(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def bare_asyncio(port: int, path: str, payloads: list[dict], concurrency: int) -> None:
    """``concurrency`` workers, each with one kept-alive connection, sharing the request list."""

    async def worker(queue: list[dict]) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while queue:
            body = json.dumps(queue.pop()).encode()
            writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(next(line.split(":")[1] for line in head.decode().split("\r\n")
                              if line.lower().startswith("content-length")))
            json.loads(await reader.readexactly(length))
        writer.close()

    async def run() -> None:
        queue = list(payloads)
        await asyncio.gather(*(worker(queue) for _ in range(concurrency)))

    asyncio.run(run())


def shared_httpx(port: int, path: str, payloads: list[dict], concurrency: int) -> None:
    import httpx

    async def run() -> None:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        semaphore = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60) as client:
            async def one(payload: dict) -> None:
                async with semaphore:
                    (await client.post(path, json=payload)).json()

            await asyncio.gather(*(one(p) for p in payloads))

    asyncio.run(run())


def shared_openai(port: int, path: str, payloads: list[dict], concurrency: int) -> None:
    import openai

    async def run() -> None:
        semaphore = asyncio.Semaphore(concurrency)
        try:
            http_client = openai.DefaultAioHttpClient()
        except (AttributeError, RuntimeError):  # openai without the aiohttp extra: its httpx transport
            http_client = None
        async with openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0,
                                      http_client=http_client) as client:
            create = client.embeddings.create if path.endswith("/embeddings") else client.chat.completions.create

            async def one(payload: dict) -> None:
                async with semaphore:
                    await create(**payload)

            await asyncio.gather(*(one(p) for p in payloads))

    asyncio.run(run())


def evalcore_judge(port: int, samples: int, concurrency: int, metric_id: str = "judge/llm_judge") -> None:
    """``samples`` records scored by ``metric_id`` (cache off), each with retrieved evidence; every
    answer must have come as structured output, without a repair."""
    import evalcore

    metric = evalcore.get_metric(metric_id, base_url=f"http://127.0.0.1:{port}/v1", model="m",
                                 cache_mode="off", concurrency=concurrency, prices={"*": (0, 0)})
    examples = [{"query": f"question {i}"} for i in range(samples)]
    predictions = [{"response": f"answer {i}.", "retrieved": [{"doc_id": f"d{i}", "text": f"evidence {i}"}]}
                   for i in range(samples)]
    scores = metric.score_many(examples, predictions)
    assert all(s.ok for s in scores), [s for s in scores if not s.ok][:1]
    assert all(s.details["structured_output"] and not s.details["repaired"] for s in scores)


def evalcore_embed(port: int, calls: int, concurrency: int) -> None:
    from evalcore.plugin import RunContext
    from evalcore_semantic.embedders import HTTPEmbedder

    client = RunContext().client(f"http://127.0.0.1:{port}/v1", "m", max_concurrency=concurrency)
    embedder = HTTPEmbedder(client, batch_size=1)
    vectors = embedder.embed([f"text {i}" for i in range(calls)])
    assert len(vectors) == calls


def _ragas_importable() -> bool:
    """ragas 0.4 imports a Vertex AI class that newer langchain-community releases no longer ship;
    it only serves isinstance checks, so a stand-in class does where it is missing."""
    if importlib.util.find_spec("langchain_community") is not None:
        try:
            import langchain_community.chat_models.vertexai  # noqa: F401
        except ImportError:
            stub = types.ModuleType("langchain_community.chat_models.vertexai")
            stub.ChatVertexAI = type("ChatVertexAI", (), {})
            sys.modules.setdefault(stub.__name__, stub)
    return all(importlib.util.find_spec(name) is not None for name in ("ragas", "langchain_openai"))


def claim_calls(n_samples: int) -> None:
    """Calls per claim-level faithfulness sample, evalcore and ragas, on the same samples and judge."""
    from bench_claim_metrics import make_reply, run_evalcore, run_ragas, samples
    from evalcore.testing import ScriptedServer

    contenders = {"evalcore": lambda server, data: run_evalcore(server, data, "judge/claim_faithfulness", {})}
    if _ragas_importable():
        contenders["ragas"] = lambda server, data: run_ragas(server, data, "claim_faithfulness")
    print(f"claim_faithfulness: calls per sample on {n_samples} samples (by its definition: 2 each)")
    with ScriptedServer(make_reply(0.0), max_requests=10**6) as server:
        for name, run in contenders.items():
            counts, values = [], []
            for sample in samples(n_samples, 3):
                before = len(server.requests)
                values += asyncio.run(run(server, [sample]))
                counts.append(len(server.requests) - before)
            print(f"  {name:9s} calls {counts}  values {[round(v, 4) for v in values]}")
    if "ragas" not in contenders:
        print("  ragas     not importable here (pip install ragas langchain-openai)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--claim-samples", type=int, default=5)
    parser.add_argument("--only", default="", help="the contenders to run, comma-separated (default: all)")
    args = parser.parse_args()

    ports: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(ports, args.delay), daemon=True)
    server.start()
    port = ports.get(timeout=30)
    n, c = args.calls, args.concurrency
    from evalcore_judge.schemas import LlmJudgeAnswer

    response_format = LlmJudgeAnswer.response_format()
    chat = [{"model": "m", "messages": [{"role": "user", "content": f"q {i}"}], "response_format": response_format}
            for i in range(n)]
    embed = [{"model": "m", "input": [f"text {i}"]} for i in range(n)]
    contenders = {
        "chat": {
            "evalcore": lambda: evalcore_judge(port, n, c),
            "faithful": lambda: evalcore_judge(port, n, c, "judge/faithfulness"),
            "claims": lambda: evalcore_judge(port, n // 2, c, "judge/claim_faithfulness"),
            "asyncio": lambda: bare_asyncio(port, "/v1/chat/completions", chat, c),
            "httpx": lambda: shared_httpx(port, "/v1/chat/completions", chat, c),
            "openai": lambda: shared_openai(port, "/v1/chat/completions", chat, c),
        },
        "embeddings": {
            "evalcore": lambda: evalcore_embed(port, n, c),
            "asyncio": lambda: bare_asyncio(port, "/v1/embeddings", embed, c),
            "httpx": lambda: shared_httpx(port, "/v1/embeddings", embed, c),
            "openai": lambda: shared_openai(port, "/v1/embeddings", embed, c),
        },
    }
    only = set(filter(None, args.only.split(",")))
    if only:
        contenders = {endpoint: {name: fn for name, fn in runs.items() if name in only}
                      for endpoint, runs in contenders.items()}
    judged = {"evalcore", "faithful", "claims"}
    ideal = n / c * args.delay
    try:
        for endpoint, runs in contenders.items():
            times: dict[str, list[float]] = {name: [] for name in runs}
            cpu: dict[str, list[float]] = {name: [] for name in runs}
            if not runs:
                continue
            for _ in range(args.repeats):
                for name, fn in runs.items():
                    start, start_cpu = time.perf_counter(), time.process_time()
                    fn()
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(time.process_time() - start_cpu)
            print(f"{endpoint}: {n} calls at concurrency {c}, {args.delay * 1000:g} ms each; ideal {ideal:.2f} s")
            for name, values in times.items():
                low, mid = min(values), statistics.median(values)
                verdict = ("" if endpoint != "chat" or name not in judged
                           else f"  {'within' if mid / ideal <= TARGET else 'over'} {TARGET}x")
                print(f"  {name:9s} min {low:6.2f} s  median {mid:6.2f} s  = {mid / ideal:4.2f}x ideal  "
                      f"(client CPU {statistics.median(cpu[name]):5.2f} s){verdict}")
    finally:
        server.terminate()
    if args.claim_samples:
        claim_calls(args.claim_samples)


if __name__ == "__main__":
    main()
