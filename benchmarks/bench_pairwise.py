"""Pairwise judging, evalcore's judge/pairwise against DeepEval's ArenaGEval, on one scripted server.

Both judge the same pairs of answers against a loopback OpenAI-compatible server that answers after
``--delay`` seconds and names the longer answer the winner (so both agree on every record). The
table gives, per tool, wall time, and calls, tokens and cost per record as the server bills them
(``judge_costs.Meter``: four characters a token, evalcore's default price; evalcore's cost as its
run reports it), and the winners' agreement. evalcore asks each record in both orders (2 calls)
and replaces the masked names itself; DeepEval asks once and spends a second call rewriting the
reason.

    python benchmarks/bench_pairwise.py --records 40 --delay 0.02 --concurrency 8

Needs DeepEval (``pip install deepeval``); not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import evalcore
from evalcore.testing import Reply, ScriptedServer

sys.path.insert(0, str(Path(__file__).parent))
from judge_costs import HEADER, Meter, message_text  # noqa: E402 - the benchmarks' own module

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
STEPS = ["Prefer the fuller answer.", "Check it answers the input."]


def judge(request) -> str:
    """The longer answer wins; DeepEval's reason rewrite gets the reason without its ``$`` marks."""
    text = "\n".join(message_text(m["content"]) for m in request["messages"])
    if "rewritten_reason" in text:
        reason = text.split("Reason:\n", 1)[1].split("\n", 1)[0]
        return json.dumps({"rewritten_reason": reason.replace("$", "")})
    shown = json.loads(text.split("Contestants:\n", 1)[1].split("\n\nParameters:", 1)[0])["arena_test_cases"]
    cases = {name: json.loads(case)["actual_output"] for name, case in shown.items()}
    winner, loser = sorted(cases, key=lambda name: -len(cases[name]))
    return json.dumps({"winner": winner, "reason": f"${winner}$ says more than ${loser}$"})


def make_reply(meter: Meter, delay: float):
    def reply(request):
        text, usage = meter(request)
        return Reply.chat(text, usage=usage, delay=delay)
    return reply


def pairs(n: int) -> list[tuple[str, str, str]]:
    """Pairs of answers of different lengths (so the scripted judge never faces a tie)."""
    return [(f"Question {i}?", "word " * (2 + i % 5), "word " * (2 + i % 5 + (1 if i % 2 else -1)))
            for i in range(n)]


def run_evalcore(server: ScriptedServer, samples, concurrency: int) -> tuple[list[str], float, float]:
    metric = evalcore.get_metric("judge/pairwise", base_url=server.base_url, model="m", cache_mode="off",
                                 evaluation_steps=STEPS, concurrency=concurrency)
    records = [{"id": str(i), "example": {"query": q}, "prediction": {"response": a, "response_b": b}}
               for i, (q, a, b) in enumerate(samples)]
    start = time.perf_counter()
    result = evalcore.evaluate(records, [metric], concurrency=concurrency)
    took = time.perf_counter() - start
    (metric_id,) = result.metrics
    values = {str(r["id"]): r["scores"][metric_id]["value"] for r in result.samples}
    winners = [{1.0: "A", 0.0: "B"}.get(values[str(i)], "tie") for i in range(len(samples))]
    return winners, took, result.usage["cost_msats"]


def run_deepeval(server: ScriptedServer, samples, concurrency: int) -> tuple[list[str], float, None]:
    from deepeval.metrics import ArenaGEval
    from deepeval.models import GPTModel
    from deepeval.test_case import ArenaTestCase, Contestant, LLMTestCase, SingleTurnParams

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")

    async def one(gate, q, a, b):
        async with gate:
            return await measure(q, a, b)

    async def measure(q, a, b):
        metric = ArenaGEval(name="better", model=model, evaluation_steps=STEPS,
                            evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT])
        return await metric.a_measure(ArenaTestCase(contestants=[
            Contestant(name="A", test_case=LLMTestCase(input=q, actual_output=a)),
            Contestant(name="B", test_case=LLMTestCase(input=q, actual_output=b))]), _show_indicator=False)

    async def every():
        gate = asyncio.Semaphore(concurrency)  # records in flight, as evalcore's concurrency
        return await asyncio.gather(*(one(gate, *s) for s in samples))

    start = time.perf_counter()
    winners = asyncio.run(every())
    return list(winners), time.perf_counter() - start, None  # priced from the server's bill


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--records", type=int, default=40)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=8, help="records judged at once by each tool")
    args = parser.parse_args()
    samples = pairs(args.records)
    n = len(samples)
    meter = Meter(judge)
    rows = []
    with ScriptedServer(make_reply(meter, args.delay), max_requests=1_000_000) as server:
        for name, mode, run in (("evalcore", "both orders", run_evalcore),
                                ("DeepEval", "one order + rewrite", run_deepeval)):
            mark = meter.mark()
            winners, took, cost = run(server, samples, args.concurrency)
            rows.append((name, winners, took, meter.since(mark).row(name, mode, n, cost)))
    print(f"{n} records, {args.delay * 1000:.0f} ms per call, {args.concurrency} records at once")
    print(f"{HEADER}{'wall s':>9}")
    for _, _, took, row in rows:
        print(f"{row}{took:>9.2f}")
    same = sum(a == b for a, b in zip(rows[0][1], rows[1][1]))
    print(f"same winner on {same} of {n} records (ties: {rows[0][1].count('tie')} in evalcore's)")

if __name__ == "__main__":
    main()
