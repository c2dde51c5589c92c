"""Judged metrics at their defaults against the floor, and against ragas and DeepEval at theirs.

One separate process serves ``/v1/chat/completions`` and ``/v1/embeddings`` on 127.0.0.1
(``bench_judge_throughput.serve``: HTTP/1.1 keep-alive, each answer after ``--delay`` seconds)
and counts the requests. A chat request that asks for a JSON schema gets a valid instance of
it; the claim tasks (statements, verdicts, context usefulness, attribution) are answered as
``bench_claim_metrics.make_reply`` answers them, in evalcore's structured form and in ragas'
prompt form alike, so both score the same verdicts.

* **floor**: every judged metric of evalcore-judge scores ``--records`` records through
  ``evalcore.evaluate`` with no concurrency setting (the run's and the judge's defaults, cache
  off); its time is set against ``calls × delay ÷ concurrency`` (the judge's default ceiling, 32)
  with the target ``1.3×``, and the client's CPU seconds (what a loaded machine stretches: a
  client whose CPU time stays below the floor can reach it on a free core) and the scripted
  server's (its own share of the time over the floor).
  ``judge/context_precision`` runs both ways (one call per context, and
  ``one_call=True``, DeepEval's one call per sample).
* **peers**: context recall, faithfulness and context precision in evalcore and in ragas
  (``ragas.evaluate`` at its default ``RunConfig``: 16 workers), contextual precision and
  faithfulness in DeepEval (``evaluate`` at its default ``AsyncConfig``), interleaved over
  ``--repeats`` rounds, min and median seconds and the calls each made.

    python benchmarks/bench_judge_floor.py [--records 320 --delay 0.05 --repeats 3 --only floor,peers]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_claim_metrics import make_reply  # noqa: E402 - the benchmarks' own modules
from bench_judge_throughput import _answer, _ragas_importable, serve  # noqa: E402

# The references stay offline (their telemetry would wait on the network inside the timings);
# set before they are imported.
os.environ.update(RAGAS_DO_NOT_TRACK="true", DEEPEVAL_TELEMETRY_OPT_OUT="YES", DEEPEVAL_UPDATE_WARNING_OPT_IN="0")

TARGET = 1.3
DEFAULT_CEILING = 32  # the judge's default concurrency (evalcore-judge's ``concurrency``)
CLAIM_TASK = make_reply(0.0)


def answer(path: str, request: dict) -> bytes:
    """The claim tasks as ``bench_claim_metrics`` answers them (evalcore's and ragas' prompts),
    anything else as ``bench_judge_throughput`` does (a valid instance of the schema asked for)."""
    if not path.endswith("/embeddings"):
        try:
            return json.dumps(CLAIM_TASK(request).body).encode()
        except (KeyError, ValueError, IndexError, TypeError):
            pass
    return _answer(path, request)


def records(n: int) -> list[dict[str, Any]]:
    """Records with every field a judged metric reads; contexts in ``make_reply``'s form."""
    out = []
    for i in range(n):
        facts = [f"item {i} has property {j}." for j in range(3)]
        out.append({
            "id": str(i), "query": f"What about item {i}?", "reference_answer": " ".join(facts),
            "response": " ".join(facts[:2]) + f" item {i} is blue.",
            "retrieved": out_contexts(facts),
            "turns": [{"role": "user", "content": f"Tell me about item {i}."},
                      {"role": "assistant", "content": facts[0]}],
            "relevant_docs": out_contexts(facts),
            "chatbot_role": "a helpful assistant", "tool_calls": [],
        })
    return out


def out_contexts(facts: list[str]) -> list[dict[str, str]]:
    """Three retrieved contexts; every other one says 'useful' (``make_reply``'s usefulness)."""
    return [{"doc_id": str(c), "text": facts[c].rstrip(".") + (" useful" if c % 2 == 0 else "")} for c in range(3)]


JUDGED = ("judge/answer_quality", "judge/answer_relevancy", "judge/answer_statement_relevancy", "judge/bias",
          "judge/claim_faithfulness", "judge/complete_and_grounded", "judge/context_precision",
          "judge/context_precision(one_call=True)", "judge/context_recall", "judge/conversation_completeness",
          "judge/conversation_relevancy", "judge/diff_semantic", "judge/faithfulness",
          "judge/g_eval(criteria='Is the response correct?')", "judge/hallucination",
          "judge/knowledge_retention", "judge/llm_judge", "judge/role_adherence", "judge/semantic_f1",
          "judge/task_completion", "judge/toxicity")


class Counted:
    """The server's request count and CPU seconds, read around each run."""

    def __init__(self, counter: Any, server_pid: int) -> None:
        self.counter = counter
        self.server_pid = server_pid

    def run(self, fn: Callable[[], Any]) -> tuple[float, int, float]:
        """Wall seconds, requests served and this process's CPU seconds of ``fn()``; the server's CPU
        seconds over the same time are kept in ``server_cpu``."""
        before, server_before = self.counter.value, self._server_cpu()
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        seconds, used = time.perf_counter() - start, time.process_time() - cpu
        self.server_cpu = self._server_cpu() - server_before
        return seconds, self.counter.value - before, used

    def _server_cpu(self) -> float:
        """The server process's user + system CPU seconds (Linux ``/proc``; 0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.server_pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def evalcore_run(base_url: str, metric_id: str, data: list[dict]) -> list[float | None]:
    import evalcore

    result = evalcore.evaluate(examples=data, predictions=data, metrics=[metric_id],
                               judge={"base_url": base_url, "model": "m"},
                               embedding={"base_url": base_url, "model": "m"}, cache_mode="off", progress=False)
    rows = [next(iter(row["scores"].values())) for row in result.samples]
    errors = [r for r in rows if r["status"] == "error"]
    if errors:
        raise RuntimeError(f"{metric_id}: {len(errors)} errors, the first: {errors[0].get('error')}")
    return [r.get("value") for r in rows]


def floor(counted: Counted, base_url: str, n: int, delay: float) -> None:
    data = records(n)
    print(f"floor: {n} records each, {delay * 1000:g} ms a call, defaults (concurrency {DEFAULT_CEILING})")
    evalcore_run(base_url, "judge/llm_judge", data[:32])  # imports and first connections, not timed
    print(f"  {'metric':<55} {'calls':>6} {'seconds':>8} {'CPU s':>6} {'server':>6} {'floor':>6} {'ratio':>6}")
    for metric_id in JUDGED:
        try:
            seconds, calls, cpu = counted.run(lambda metric_id=metric_id: evalcore_run(base_url, metric_id, data))
        except Exception as exc:  # noqa: BLE001 - reported, the others still run
            print(f"  {metric_id:<55} not run: {str(exc).splitlines()[0][:120]}")
            continue
        ideal = calls * delay / DEFAULT_CEILING
        ratio = seconds / ideal if ideal else float("nan")
        verdict = "within" if ratio <= TARGET else "over"
        print(f"  {metric_id:<55} {calls:6d} {seconds:8.2f} {cpu:6.2f} {counted.server_cpu:6.2f} {ideal:6.2f} "
              f"{ratio:5.2f}x {verdict} {TARGET}x")


def ragas_run(base_url: str, name: str, data: list[dict]) -> list[float]:
    from langchain_openai import ChatOpenAI
    from ragas import EvaluationDataset, evaluate
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall

    llm = LangchainLLMWrapper(ChatOpenAI(base_url=base_url, api_key="scripted", model="m"))
    metric = {"faithfulness": Faithfulness, "context_precision": LLMContextPrecisionWithReference,
              "context_recall": LLMContextRecall}[name](llm=llm)
    dataset = EvaluationDataset.from_list([
        {"user_input": r["query"], "response": r["response"], "reference": r["reference_answer"],
         "retrieved_contexts": [c["text"] for c in r["retrieved"]]} for r in data])
    result = evaluate(dataset, metrics=[metric], show_progress=False)
    return list(result.to_pandas()[metric.name])


def deepeval_run(base_url: str, name: str, data: list[dict]) -> list[float]:
    from deepeval import evaluate
    from deepeval.evaluate.configs import DisplayConfig
    from deepeval.metrics import ContextualPrecisionMetric, FaithfulnessMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4.1", base_url=base_url, api_key="scripted")
    metric = {"faithfulness": FaithfulnessMetric, "context_precision": ContextualPrecisionMetric}[name](model=model)
    cases = [LLMTestCase(input=r["query"], actual_output=r["response"], expected_output=r["reference_answer"],
                         retrieval_context=[c["text"] for c in r["retrieved"]]) for r in data]
    result = evaluate(cases, [metric], display_config=DisplayConfig(show_indicator=False, print_results=False))
    return [t.metrics_data[0].score for t in result.test_results]


def peers(counted: Counted, base_url: str, n: int, repeats: int) -> None:
    data = records(n)
    contenders: dict[str, dict[str, Callable[[list[dict]], Any]]] = {
        "context_recall": {"evalcore": lambda d: evalcore_run(base_url, "judge/context_recall", d)},
        "faithfulness": {"evalcore": lambda d: evalcore_run(base_url, "judge/claim_faithfulness", d)},
        "context_precision": {
            "evalcore": lambda d: evalcore_run(base_url, "judge/context_precision", d),
            "evalcore one_call": lambda d: evalcore_run(base_url, "judge/context_precision(one_call=True)", d)},
    }
    if _ragas_importable():
        for name, runs in contenders.items():
            runs["ragas"] = lambda d, name=name: ragas_run(base_url, name, d)
    try:
        import deepeval  # noqa: F401
    except ImportError:
        pass
    else:
        for name in ("faithfulness", "context_precision"):
            contenders[name]["deepeval"] = lambda d, name=name: deepeval_run(base_url, name, d)
    print(f"peers: {n} records each, each tool at its defaults; {repeats} interleaved rounds")
    for name, runs in contenders.items():
        times: dict[str, list[float]] = {who: [] for who in runs}
        calls: dict[str, int] = {}
        cpu: dict[str, list[float]] = {who: [] for who in runs}
        failed: dict[str, str] = {}
        for who, fn in runs.items():  # imports and first connections, not timed
            try:
                fn(data[:8])
            except Exception as exc:  # noqa: BLE001 - reported, the others still run
                failed[who] = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        for _ in range(repeats):
            for who, fn in runs.items():
                if who in failed:
                    continue
                try:
                    seconds, calls[who], used = counted.run(lambda fn=fn: fn(data))
                except Exception as exc:  # noqa: BLE001 - reported, the others still run
                    failed[who] = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
                    continue
                times[who].append(seconds)
                cpu[who].append(used)
        print(f"  {name}")
        for who, values in times.items():
            if who in failed:
                print(f"    {who:18s} not run: {failed[who]}")
            else:
                print(f"    {who:18s} min {min(values):6.2f} s  median {statistics.median(values):6.2f} s  "
                      f"calls {calls[who]}  (client CPU {statistics.median(cpu[who]):5.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=320)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="floor,peers", help="floor, peers or both (comma-separated)")
    args = parser.parse_args()
    ports: multiprocessing.Queue = multiprocessing.Queue()
    counter = multiprocessing.Value("q", 0)
    server = multiprocessing.Process(target=serve, args=(ports, args.delay, answer, counter), daemon=True)
    server.start()
    base_url = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"
    counted = Counted(counter, server.pid)
    only = set(args.only.split(","))
    try:
        if "floor" in only:
            floor(counted, base_url, args.records, args.delay)
        if "peers" in only:
            peers(counted, base_url, args.records, args.repeats)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
