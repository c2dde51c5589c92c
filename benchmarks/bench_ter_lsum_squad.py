"""Speed of evalcore's TER, ROUGE-Lsum with sentence splitting and SQuAD v2 against their
references (sacrebleu, rouge-score with ``split_summaries=True``, the official SQuAD v2
script's functions as HF evaluate calls them), printed as ratios.

Standalone: ``python benchmarks/bench_ter_lsum_squad.py [--pairs 300] [--repeat 5]``. Each
comparison checks that both sides give the same numbers, runs the two sides interleaved and
reports the least and the median process CPU time of the repeats.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import evalcore
import nltk
from evalcore_overlap._punkt import write_nltk_data
from rouge_score import rouge_scorer

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plugins" / "overlap" / "tests"))
from bench_overlap import bench_corpus_ter  # noqa: E402 - this folder, the shared corpus TER row
from test_squad import squad_v2  # noqa: E402 - the ported SQuAD v2 script is the test's reference

WORDS = ("the", "cat", "sat", "on", "a", "mat", "Mr.", "Smith", "went", "home", "in", "Paris",
         "tower", "was", "built", "1889", "by", "Gustave", "Eiffel", "it", "is", "tall", "U.S.", "and")


def make_texts(pairs: int, sentences: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """References of ``sentences`` sentences and responses that keep about 70 % of the words."""
    rng = random.Random(seed)
    refs, preds = [], []
    for _ in range(pairs):
        ref = [[rng.choice(WORDS) for _ in range(rng.randint(4, 14))] for _ in range(sentences)]
        pred = [[w if rng.random() < 0.7 else rng.choice(WORDS) for w in s] for s in ref]
        refs.append(" ".join(" ".join(s).capitalize() + "." for s in ref))
        preds.append(" ".join(" ".join(s).capitalize() + "." for s in pred))
    return refs, preds


def interleaved(
    reference: Callable[[], Any], ours: Callable[[], Any], repeat: int,
) -> tuple[list[float], list[float], Any, Any]:
    """CPU times of ``repeat`` alternating runs of each side, and each side's last result."""
    t_ref, t_ours, want, got = [], [], None, None
    for _ in range(repeat):
        for times, fn in ((t_ref, reference), (t_ours, ours)):
            start = time.process_time()
            result = fn()
            times.append(time.process_time() - start)
            if fn is reference:
                want = result
            else:
                got = result
    return t_ref, t_ours, want, got


def report(name: str, reference: str, t_ref: list[float], t_ours: list[float]) -> None:
    low, mid = min(t_ours) / min(t_ref), statistics.median(t_ours) / statistics.median(t_ref)
    print(f"{name}: {reference} min {min(t_ref):.3f}s median {statistics.median(t_ref):.3f}s; evalcore "
          f"min {min(t_ours):.3f}s median {statistics.median(t_ours):.3f}s -> evalcore/reference time "
          f"{low:.2f} (min) {mid:.2f} (median), identical values")


def bench_ter(refs: list[str], preds: list[str], repeat: int) -> None:
    """sacrebleu's ``corpus_ter`` against ``evalcore.evaluate`` (interval included) and the direct
    call, interleaved (:func:`bench_overlap.bench_corpus_ter`)."""
    bench_corpus_ter(refs, preds, repeat)


def bench_lsum(refs: list[str], preds: list[str], repeat: int) -> None:
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], split_summaries=True)
    metric = evalcore.get_metric("overlap/rouge", variant="Lsum", split_summaries=True)
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": p} for p in preds]
    t_ref, t_ours, want, got = interleaved(
        lambda: [scorer.score(r, p)["rougeLsum"].fmeasure for r, p in zip(refs, preds)],
        lambda: [s.value for s in metric.score_many(examples, predictions)], repeat)
    assert got == want, "ROUGE-Lsum differs from rouge-score"
    report("ROUGE-Lsum split_summaries", "rouge-score", t_ref, t_ours)


def bench_squad(refs: list[str], preds: list[str], repeat: int) -> None:
    rng = random.Random(3)
    answers = [[] if rng.random() < 0.3 else [r.split(".")[0]] for r in refs]
    texts = ["" if rng.random() < 0.2 else p.split(".")[0] for p in preds]
    probs = [rng.choice((0.0, 0.25, 0.5, 0.75, 1.0)) for _ in refs]
    hf_preds = [{"id": str(i), "prediction_text": t, "no_answer_probability": p}
                for i, (t, p) in enumerate(zip(texts, probs))]
    hf_refs = [{"id": str(i), "answers": {"text": a, "answer_start": [0] * len(a)}} for i, a in enumerate(answers)]
    examples = [{"reference_answer": a} for a in answers]
    predictions = [{"response": t, "no_answer_probability": p} for t, p in zip(texts, probs)]

    def ours() -> dict[str, Any]:
        metric = evalcore.get_metric("overlap/squad_v2", measure="f1", no_answer_threshold=0.5)
        return dict(metric.corpus_score([state for _, state in metric.states(examples, predictions)]).details)

    t_ref, t_ours, want, got = interleaved(lambda: squad_v2(hf_preds, hf_refs, 0.5), ours, repeat)
    assert got == want, "SQuAD v2 differs from the official script"
    report("SQuAD v2", "official script", t_ref, t_ours)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--sentences", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    refs, preds = make_texts(args.pairs, args.sentences)
    print(f"{args.pairs} pairs x {args.sentences} sentences, {args.repeat} interleaved repeats")
    with tempfile.TemporaryDirectory() as folder:
        write_nltk_data(pathlib.Path(folder))  # rouge-score's nltk.sent_tokenize, offline
        nltk.data.path.insert(0, folder)
        bench_ter(refs, preds, args.repeat)
        bench_lsum(refs, preds, args.repeat)
        bench_squad(refs * 20, preds * 20, args.repeat)


if __name__ == "__main__":
    main()
