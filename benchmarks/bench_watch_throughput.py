"""Throughput of evalcore watch: spans received per second, and traces scored per second with a
deterministic metric and with a judge answering at a fixed latency.

* receiving: ``--requests`` OTLP/HTTP protobuf export requests of 50 traces (3 spans each, as the
  OpenTelemetry SDK encodes them) posted to the receiver, ``--clients`` at a time; each is decoded,
  appended to the spool and synced to disk, and assembled, before its answer;
* scoring: ``--traces`` complete traces claimed in batches of ``--batch-size`` and scored with
  ``checks/format``; then ``--judged`` traces scored with ``judge/answer_quality`` against a scripted
  OpenAI-compatible server on 127.0.0.1 that answers after ``--latency-s`` (the engine's
  ``--concurrency`` samples at once).

Run it on one core to read the per-core numbers: ``taskset -c 0 python benchmarks/bench_watch_throughput.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from aiohttp import ClientSession, web
from evalcore.testing import Reply, ScriptedServer, default_reply
from evalcore_watch import Budget, Rule, Watch, WatchConfig
from evalcore_watch.scoring import Scorer
from evalcore_watch.store import Store
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def requests(count: int, traces: int = 50) -> list[bytes]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("bench")
    bodies = []
    for r in range(count):
        memory.clear()
        for i in range(traces):
            with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT",
                                                                   "input.value": f"q{r}-{i}", "output.value": "a"}):
                with tracer.start_as_current_span("tool", attributes={"openinference.span.kind": "TOOL"}):
                    pass
                with tracer.start_as_current_span("llm", attributes={"openinference.span.kind": "LLM"}):
                    pass
        bodies.append(encode_spans(memory.get_finished_spans()).SerializeToString())
    return bodies


async def receive(store: Path, bodies: list[bytes], clients: int) -> tuple[float, Watch]:
    watch = Watch(WatchConfig(rules=[Rule("all", ["checks/format"])], store=str(store), max_queue_spans=10**9))
    runner = watch.runner()
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1/traces"
    queue = list(bodies)
    started = time.perf_counter()
    async with ClientSession() as session:
        async def client() -> None:
            while queue:
                body = queue.pop()
                async with session.post(url, data=body, headers={"Content-Type": "application/x-protobuf"}) as r:
                    assert r.status == 200, r.status
        await asyncio.gather(*(client() for _ in range(clients)))
    elapsed = time.perf_counter() - started
    await runner.cleanup()
    return elapsed, watch


def score(store: Path, traces: list, rule: Rule, batch: int, options: dict) -> float:
    scorer = Scorer(Store(store), [rule], Budget(), options=options)
    started = time.perf_counter()
    for at in range(0, len(traces), batch):
        scorer.score(scorer.claim(traces[at:at + batch]))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--traces", type=int, default=3000)
    parser.add_argument("--judged", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--latency-s", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    bodies = requests(args.requests)
    with tempfile.TemporaryDirectory() as folder:
        elapsed, watch = asyncio.run(receive(Path(folder) / "receive", bodies, args.clients))
        spans = watch.received_spans
        print(f"received   {spans} spans in {elapsed:.2f} s: {spans / elapsed:,.0f} spans/s "
              f"({len(bodies) / elapsed:,.0f} requests/s, each spooled with fsync)")
        traces = (watch.ready * (args.traces // len(watch.ready) + 1))[:args.traces]
        traces = [type(t)(f"{i:032x}", t.entries, t.attributes) for i, t in enumerate(traces)]
        elapsed = score(Path(folder) / "plain", traces, Rule("all", ["checks/format"]), args.batch_size, {})
        print(f"scored     {len(traces)} traces with checks/format in {elapsed:.2f} s: "
              f"{len(traces) / elapsed:,.0f} traces/s")

        def slow(request: dict) -> Reply:
            reply = default_reply(request)
            return Reply(reply.status, reply.body, reply.headers, args.latency_s)

        with ScriptedServer(default=slow, max_requests=10**6) as judge:
            options = {"judge": {"base_url": judge.base_url, "model": "judge-model"},
                       "cache_mode": "off", "concurrency": args.concurrency}
            judged = traces[:args.judged]
            elapsed = score(Path(folder) / "judged", judged, Rule("judged", ["judge/answer_quality"]),
                            args.batch_size, options)
        print(f"judged     {len(judged)} traces, judge latency {args.latency_s * 1000:.0f} ms, concurrency "
              f"{args.concurrency}, in {elapsed:.2f} s: {len(judged) / elapsed:,.1f} traces/s "
              f"(bound: {args.concurrency / args.latency_s:,.0f}/s)")


if __name__ == "__main__":
    main()
