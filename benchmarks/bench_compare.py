"""Speed of ``evalcore.compare`` against sacrebleu's paired tests and ranx's Fisher test, as ratios.

Standalone: ``python benchmarks/bench_compare.py [--segments 300] [--repeat 5]``. For each
case both sides run interleaved ``repeat`` times in one process; the ratio (ours / theirs)
of the least and of the median process CPU time is printed. sacrebleu's cases also check
that both give the same p-value. evalcore's time includes reading the two journals and
decoding the per-record states; sacrebleu's includes extracting its statistics from text.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import evalcore
import numpy as np
from evalcore.testing import write_journal
from ranx.statistical_tests import fisher_randomization_test
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

WORDS = "the a of to and in is was for on with as by cat dog sat mat house red blue green runs".split()


def corpus(segments: int, rng: np.random.Generator) -> tuple[list[str], list[str], list[str]]:
    refs = [" ".join(rng.choice(WORDS, int(rng.integers(8, 30)))) for _ in range(segments)]

    def system(noise: float) -> list[str]:
        return [" ".join(w if rng.random() > noise else str(rng.choice(WORDS)) for w in r.split()) for r in refs]

    return refs, system(0.3), system(0.35)


def journal(folder: str, name: str, refs: list[str], hyps: list[str]) -> str:
    metric = evalcore.get_metric("overlap/bleu")
    rows = {f"s{i}": {"overlap/bleu": {"value": None, "status": "ok", "state": metric.encode_state(
        metric.sample_state({"reference_answer": r}, {"response": h}))}} for i, (r, h) in enumerate(zip(refs, hyps))}
    return str(write_journal(os.path.join(folder, f"{name}.jsonl"), rows,
                             metrics={"overlap/bleu": {"granularity": "corpus", "direction": "higher"}}))


def interleaved(ours: Callable[[], Any], theirs: Callable[[], Any], repeat: int) -> tuple[list[float], list[float]]:
    mine, other = [], []
    for _ in range(repeat):
        for fn, times in ((ours, mine), (theirs, other)):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    return mine, other


def report(name: str, mine: list[float], other: list[float]) -> None:
    print(f"{name:<42} ours min {min(mine):7.3f}s  median {statistics.median(mine):7.3f}s | "
          f"reference min {min(other):7.3f}s  median {statistics.median(other):7.3f}s | "
          f"ratio min {min(mine) / min(other):5.2f}  median {statistics.median(mine) / statistics.median(other):5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segments", type=int, default=300)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    refs, base, system = corpus(args.segments, rng)
    with tempfile.TemporaryDirectory() as folder:
        paths = journal(folder, "base", refs, base), journal(folder, "system", refs, system)
        for test_type, test, resamples in (("bs", "bootstrap", 1000), ("ar", "randomization", 10000)):
            os.environ["SACREBLEU_SEED"] = "12345"
            paired = PairedTest([("base", base), ("system", system)], {"bleu": BLEU()}, [refs],
                                test_type=test_type, n_samples=resamples)

            def ours(test: str = test, resamples: int = resamples) -> Any:
                return evalcore.compare(*paths, tests=[test], n_resamples=resamples, seed=12345, correction="none")

            want = list(paired()[1].values())[1][1].p_value
            got = ours().entries[0].tests[test].p_value
            assert got == want, (test, got, want)
            mine, other = interleaved(ours, paired, args.repeat)
            report(f"BLEU {test} ({resamples}, {args.segments} segments)", mine, other)

        base_q = rng.random(args.queries)
        system_q = np.clip(base_q + rng.normal(0.01, 0.1, args.queries), 0, 1)
        qpaths = []
        for name, values in (("qbase", base_q), ("qsystem", system_q)):
            rows = {f"q{i}": {"retrieval/ndcg@10": float(v)} for i, v in enumerate(values)}
            qpaths.append(str(write_journal(os.path.join(folder, f"{name}.jsonl"), rows,
                                            metrics={"retrieval/ndcg@10": {"granularity": "sample"}})))
        fisher_randomization_test(base_q, system_q, 10, 0.05, 42)  # numba compiles once, outside the timing
        mine, other = interleaved(
            lambda: evalcore.compare(*qpaths, tests=["fisher"], n_resamples=10000),
            lambda: fisher_randomization_test(base_q, system_q, 10000, 0.05, 42), args.repeat)
        report(f"Fisher (10000, {args.queries} queries) vs ranx", mine, other)


if __name__ == "__main__":
    main()
