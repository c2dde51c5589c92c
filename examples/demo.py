"""Evaluate the bundled RAG example data with the installed metrics and print the results."""

from __future__ import annotations

import pathlib

import evalcore
from evalcore._contract.identity import parse_metric_id

DATA = pathlib.Path(__file__).with_name("rag.jsonl")

# Offline, deterministic metrics from the families that ship with evalcore.
CANDIDATES = [
    "retrieval/ndcg@10", "retrieval/recall@3", "retrieval/mrr", "retrieval/map",
    "overlap/exact_match", "overlap/token_f1", "overlap/rouge(variant='L')", "overlap/bleu(variable_references=True)",
    "overlap/evidence_overlap_faithfulness", "checks/length(max_chars=60)",
    "system/mean_latency", "system/distinct_n",
    "robustness/noise_robustness(metric='overlap/token_f1')", "robustness/negative_rejection",
]


def main() -> None:
    installed = set(evalcore.metric_keys())
    metrics = [m for m in CANDIDATES if parse_metric_id(m).key in installed]
    plugins = evalcore.list_plugins()
    print(f"evalcore {evalcore.__version__}: {len(installed)} metrics from "
          f"{sum(p.ok for p in plugins)} plugins ({', '.join(sorted(p.name for p in plugins))})")
    print(f"evaluating {DATA.name} with {len(metrics)} metrics\n")
    result = evalcore.evaluate(DATA, metrics, seed=0, max_errors=3)  # stop after 3 failed samples
    print(result.table())
    print(f"\n{len(result.samples)} records; 95% CI: seeded percentile bootstrap over per-sample values")


if __name__ == "__main__":
    main()
