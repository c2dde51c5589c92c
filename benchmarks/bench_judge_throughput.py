"""Judge and embedding calls per second against a loopback server that answers after a fixed delay.

A separate process serves ``/v1/chat/completions`` and ``/v1/embeddings`` on 127.0.0.1
(HTTP/1.1 keep-alive, each answer after ``--delay`` seconds). In one run, with interleaved
repeats, it times ``--calls`` requests at ``--concurrency``:

* ``evalcore``: the judge metric ``judge/llm_judge`` (cache off) scoring ``--calls`` samples,
  each asked with its answer's JSON schema as OpenAI structured output and the answer
  validated against it, and the embedding-similarity metric embedding ``--calls`` batches
  over HTTP;
* ``asyncio``: a bare client on asyncio streams with ``--concurrency`` kept-alive connections
  (close to what the transport allows);
* ``httpx``: one shared ``httpx.AsyncClient``.

The bare clients send the same ``response_format`` in their chat requests.

The ideal is ``calls / concurrency * delay``. Prints min and median seconds of each, their
ratio to the ideal, and the client process's CPU seconds (what a loaded machine stretches:
a client whose CPU time stays below the ideal can reach it on a free core).

    python benchmarks/bench_judge_throughput.py [--calls 1000 --concurrency 32 --delay 0.05 --repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import time

CHAT = {"id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"explanation": "ok", "score": 1}'},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def _answer(path: str, request: dict) -> bytes:
    if path.endswith("/embeddings"):
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0]}
                for i, t in enumerate(request.get("input") or [])]
        return json.dumps({"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1}}).encode()
    return json.dumps(CHAT).encode()


def serve(port_queue: multiprocessing.Queue, delay: float) -> None:
    """A keep-alive HTTP/1.1 server on asyncio streams; answers every POST after ``delay``."""

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
                await asyncio.sleep(delay)
                data = _answer(path, json.loads(body or b"{}"))
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


def evalcore_judge(port: int, calls: int, concurrency: int) -> None:
    import evalcore

    metric = evalcore.get_metric("judge/llm_judge", base_url=f"http://127.0.0.1:{port}/v1", model="m",
                                 cache="off", concurrency=concurrency, prices={"*": (0, 0)})
    examples = [{"query": f"question {i}"} for i in range(calls)]
    predictions = [{"response": f"answer {i}"} for i in range(calls)]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
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
            "asyncio": lambda: bare_asyncio(port, "/v1/chat/completions", chat, c),
            "httpx": lambda: shared_httpx(port, "/v1/chat/completions", chat, c),
        },
        "embeddings": {
            "evalcore": lambda: evalcore_embed(port, n, c),
            "asyncio": lambda: bare_asyncio(port, "/v1/embeddings", embed, c),
            "httpx": lambda: shared_httpx(port, "/v1/embeddings", embed, c),
        },
    }
    ideal = n / c * args.delay
    try:
        for endpoint, runs in contenders.items():
            times: dict[str, list[float]] = {name: [] for name in runs}
            cpu: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.repeats):
                for name, fn in runs.items():
                    start, start_cpu = time.perf_counter(), time.process_time()
                    fn()
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(time.process_time() - start_cpu)
            print(f"{endpoint}: {n} calls at concurrency {c}, {args.delay * 1000:g} ms each; ideal {ideal:.2f} s")
            for name, values in times.items():
                low, mid = min(values), statistics.median(values)
                print(f"  {name:9s} min {low:6.2f} s  median {mid:6.2f} s  = {mid / ideal:4.2f}x ideal  "
                      f"(client CPU {statistics.median(cpu[name]):5.2f} s)")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
