"""Batch runs: judged metrics with and without ``--judge-batch``, against ragas and DeepEval, on one server.

One server on 127.0.0.1 (the batch tests' ``BatchServer``: chat completions, the OpenAI Batch API
and Anthropic's Message Batches) answers every tool the same verdicts (``bench_judge_floor``'s
answers: the claim tasks as ``bench_claim_metrics`` answers them, in evalcore's structured form and
in ragas' prompt form; anything else a valid instance of the schema asked for). Each metric runs

* in evalcore through ``evalcore evaluate`` (a fresh process, a fresh cache): plain chat completions,
  ``--judge-batch`` (the OpenAI Batch API) and ``--judge-batch --judge-batch-api anthropic``;
* in ragas (``ragas.evaluate``) and DeepEval (``evaluate``), each at its defaults, where it has the
  metric; neither has a batch mode, so they run plain.

The table gives calls, tokens and cost per record as the server bills them (``judge_costs.Meter``:
four characters a token, evalcore's default price); evalcore's cost is the one its run reports
(the batch rate for a batch run), the references' their tokens at the full price.

    python benchmarks/bench_batch.py [--records 40 --poll-s 0.05]

Needs ragas and DeepEval for their rows (``pip install ragas langchain-openai deepeval``); not part
of the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "plugins" / "judge" / "tests"))
from batch_server import BatchServer  # noqa: E402 - the batch tests' server
from bench_judge_floor import answer as floor_answer  # noqa: E402 - the benchmarks' own modules
from bench_judge_floor import deepeval_run, ragas_run, records  # noqa: E402
from bench_judge_throughput import _ragas_importable  # noqa: E402
from evalcore.testing import run_evalcore, write_records  # noqa: E402
from evalcore_judge import prompts  # noqa: E402
from judge_costs import BATCH_RATE, HEADER, Meter  # noqa: E402

METRICS = {"faithfulness": "judge/claim_faithfulness", "context_precision": "judge/context_precision",
           "context_recall": "judge/context_recall"}
DEEPEVAL = ("faithfulness", "context_precision")  # the ones DeepEval has
MODES = {"plain": (), "batch, OpenAI": ("--judge-batch",),
         "batch, Anthropic": ("--judge-batch", "--judge-batch-api", "anthropic")}
ANSWERS = {t.system[:60]: t.answer for t in vars(prompts).values() if isinstance(t, prompts.Template)}


def answer(body: dict[str, Any]) -> str:
    """``bench_judge_floor``'s answer to ``body``. An Anthropic request carries no schema: the one of
    evalcore's prompt whose system text it starts with stands in for it."""
    if not body.get("response_format"):
        system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
        known = ANSWERS.get(system[:60]) if isinstance(system, str) else None
        if known is not None:
            body = {**body, "response_format": known.response_format()}
    return json.loads(floor_answer("/v1/chat/completions", body))["choices"][0]["message"]["content"]


def evalcore_cli(server: BatchServer, metric_id: str, data: Path, flags: tuple[str, ...], poll_s: float,
                 folder: Path) -> tuple[float, float]:
    """``evalcore evaluate`` of ``metric_id`` with ``flags``: the metric's value and the run's cost."""
    folder.mkdir()
    report = folder / "report.json"
    run_evalcore("evaluate", str(data), "-m", metric_id, "--judge-base-url", server.base_url, "--judge-model", "m",
                 "--cache-dir", str(folder / "cache"), "-o", str(report), "--judge-batch-poll-s", str(poll_s),
                 *flags, timeout=600)
    done = json.loads(report.read_text())
    return done["metrics"][metric_id]["value"], done["usage"]["cost_msats"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=40)
    parser.add_argument("--poll-s", type=float, default=0.05, help="seconds between polls of a batch")
    args = parser.parse_args()
    n = args.records
    data = records(n)
    references: dict[str, Callable[[str, str, list[dict]], list[float]]] = {}
    if _ragas_importable():
        references["ragas"] = ragas_run
    try:
        import deepeval  # noqa: F401
    except ImportError:
        print("DeepEval not importable here (pip install deepeval): its rows are left out")
    else:
        references["DeepEval"] = deepeval_run
    meter = Meter(answer)
    with tempfile.TemporaryDirectory() as tmp, BatchServer(meter) as server:
        path = write_records(Path(tmp) / "records.jsonl",
                             [{"id": r["id"], "example": r, "prediction": r} for r in data])
        print(f"{n} records; cost at evalcore's default price, a batch call at {BATCH_RATE:g} of it")
        for name, metric_id in METRICS.items():
            print(f"\n{name} ({metric_id})\n{HEADER}{'value':>8}")
            for mode, flags in MODES.items():
                mark = meter.mark()
                value, cost = evalcore_cli(server, metric_id, path, flags, args.poll_s,
                                           Path(tmp) / f"{name}-{len(flags)}")
                print(f"{meter.since(mark).row('evalcore', mode, n, cost)}{value:>8.3f}")
            for tool, run in references.items():
                if tool == "DeepEval" and name not in DEEPEVAL:
                    continue
                mark = meter.mark()
                try:
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                        values = run(server.base_url, name, data)  # their progress and result banners
                except Exception as exc:  # noqa: BLE001 - reported, the others still run
                    print(f"{tool:<12}not run: {str(exc).splitlines()[0][:100] if str(exc) else type(exc).__name__}")
                    continue
                mean = statistics.fmean(v for v in values if v == v)
                print(f"{meter.since(mark).row(tool, 'plain (no batch mode)', n)}{mean:>8.3f}")


if __name__ == "__main__":
    main()
