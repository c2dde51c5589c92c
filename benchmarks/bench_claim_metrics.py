"""Claim-level RAG metrics, evalcore against ragas, on one scripted OpenAI-compatible server.

Both score the same samples concurrently (asyncio) against a loopback server that answers each
task after ``--delay`` seconds with the same verdicts for both; the table gives wall time, calls
made and the ratio ragas / evalcore per metric, and checks the values agree.

    python benchmarks/bench_claim_metrics.py --samples 50 --contexts 3 --delay 0.02

Needs ragas (``pip install ragas``); not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import math
import sys
import time
import types

import evalcore
from evalcore.testing import Reply, ScriptedServer


def _input(text: str) -> dict:
    start = text.lower().rindex("input:")
    return json.JSONDecoder().raw_decode(text, text.index("{", start))[0]


def make_reply(delay: float):
    """Statements: the response's sentences; a statement is supported and a reference sentence
    attributable when it occurs in the context; a context is useful when it says 'useful'."""
    def sentences(text):
        return [s for s in text.replace(". ", ".\n").splitlines() if s.endswith(".")]

    def reply(request):
        text = "\n".join(m["content"] for m in request["messages"])
        schema = (request.get("response_format") or {}).get("json_schema", {}).get("name")
        if schema is None:
            data = _input(text)
            task = ("statements" if "StatementGeneratorOutput" in text else "verdicts" if "NLIStatementOutput" in text
                    else "attribution" if "ContextRecallClassifications" in text else "useful")
            context, response = data.get("context", ""), data.get("answer", "")
            statements = data.get("statements", [])
        else:
            task = {"claim_statements": "statements", "claim_verdicts": "verdicts", "context_useful": "useful",
                    "context_recall": "attribution"}[schema]
            context = text.split("Context:\n", 1)[-1].split("\n\n", 1)[0]
            response = text.split("Answer:\n", 1)[-1].split("\n\n", 1)[0]
            if task == "attribution":
                response = text.split("Reference answer:\n", 1)[1].split("\n\n", 1)[0]
            listed = text.split("Statements:\n", 1)[-1].split("\n\n", 1)[0]
            statements = [line.split(". ", 1)[-1] for line in listed.splitlines()]
        if task == "statements":
            answer = {"statements": sentences(response)}
        elif task == "verdicts":
            rows = [{"statement": s, "reason": "r", "verdict": int(s.rstrip(".") in context)} for s in statements]
            answer = {"statements" if schema is None else "verdicts": rows}
        elif task == "useful":
            answer = {"reason": "r", "verdict": int("useful" in context)}
        else:
            answer = {"classifications": [{"statement": s, "reason": "r", "attributed": int(s.rstrip(".") in context)}
                                          for s in sentences(response)]}
        return Reply.chat(json.dumps(answer), usage={"prompt_tokens": 100, "completion_tokens": 20}, delay=delay)
    return reply


def samples(n: int, contexts: int) -> list[dict]:
    out = []
    for i in range(n):
        facts = [f"item {i} has property {j}." for j in range(3)]
        out.append({"query": f"What about item {i}?", "response": " ".join(facts[:2]) + f" item {i} is blue.",
                    "reference": " ".join(facts),
                    "contexts": [facts[c % 3].rstrip(".") + (" useful" if c % 2 == 0 else "")
                                 for c in range(contexts)]})
    return out


CONCURRENCY = 8  # samples at once, for both (the loopback server's listen backlog is small)


async def _bounded(coroutines):
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(coroutine):
        async with gate:
            return await coroutine
    return await asyncio.gather(*(one(c) for c in coroutines))


async def run_evalcore(server, data, metric_id, params):
    metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off",
                                 concurrency=CONCURRENCY * 4, **params)
    metric.ensure_open()
    scores = await _bounded([metric.ascore(
        {"query": s["query"], "reference_answer": s["reference"]},
        {"response": s["response"], "retrieved": [{"doc_id": str(j), "text": t} for j, t in enumerate(s["contexts"])]})
        for s in data])
    return [sc.value for sc in scores]


async def run_ragas(server, data, name):
    from langchain_openai import ChatOpenAI
    from ragas.dataset_schema import SingleTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall

    llm = LangchainLLMWrapper(ChatOpenAI(base_url=server.base_url, api_key="scripted", model="m", max_retries=2))
    metric = {"claim_faithfulness": Faithfulness, "context_precision": LLMContextPrecisionWithReference,
              "context_recall": LLMContextRecall}[name](llm=llm)
    rows = [SingleTurnSample(user_input=s["query"], response=s["response"], retrieved_contexts=s["contexts"],
                             reference=s["reference"]) for s in data]
    return list(await _bounded([metric.single_turn_ascore(r) for r in rows]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--contexts", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.02)
    args = parser.parse_args()
    try:  # ragas 0.4 imports a Vertex AI class that newer langchain-community releases no longer ship
        import langchain_community.chat_models.vertexai  # noqa: F401
    except ImportError:
        if importlib.util.find_spec("langchain_community") is not None:
            stub = types.ModuleType("langchain_community.chat_models.vertexai")
            stub.ChatVertexAI = type("ChatVertexAI", (), {})
            sys.modules[stub.__name__] = stub
    data = samples(args.samples, args.contexts)
    print(f"{args.samples} samples, {args.contexts} contexts, server delay {args.delay * 1000:.0f} ms")
    print(f"{'metric':<20} {'evalcore s':>10} {'calls':>6} {'ragas s':>9} {'calls':>6} {'ratio':>6}  same values")
    with ScriptedServer(make_reply(args.delay), max_requests=10**7) as server:
        for name in ("claim_faithfulness", "context_precision", "context_recall"):
            before, start = len(server.requests), time.perf_counter()
            ours = asyncio.run(run_evalcore(server, data, f"judge/{name}", {}))
            our_time, our_calls = time.perf_counter() - start, len(server.requests) - before
            before, start = len(server.requests), time.perf_counter()
            theirs = asyncio.run(run_ragas(server, data, name))
            their_time, their_calls = time.perf_counter() - start, len(server.requests) - before
            same = all((a is None and math.isnan(b)) or a == b for a, b in zip(ours, theirs))
            print(f"{name:<20} {our_time:>10.2f} {our_calls:>6} {their_time:>9.2f} {their_calls:>6} "
                  f"{their_time / our_time:>6.2f}  {same}")


if __name__ == "__main__":
    main()
