"""Speed of evalcore-overlap against rouge-score and sacrebleu, printed as ratios.

Standalone: ``python benchmarks/bench_overlap.py [--pairs 1000] [--tokens 200]``. Every
comparison also checks that both sides give identical numbers. Times are process CPU times
(all of it single-threaded), the least of several runs, so other load on the machine
disturbs the ratios little.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import evalcore
import sacrebleu
from evalcore_overlap import _compiled, _tokenizers
from rouge_score import rouge_scorer

STEMS = ("connect", "generat", "relat", "happ", "run", "walk", "organ", "nation", "comput", "form",
         "develop", "argu", "establish", "provid", "consider", "observ", "measur", "report")
SUFFIXES = ("", "s", "ed", "ing", "ion", "ions", "ly", "ness", "ational", "ization", "ful", "er")
FILLERS = ("the", "a", "of", "to", "and", "in", "is", "was", "for", "on", "with", "as", "by", ",", ".")


def make_pairs(pairs: int, tokens: int, seed: int = 13) -> tuple[list[str], list[str]]:
    """References of ``tokens`` words and predictions that keep about 60 % of them in order."""
    rng = random.Random(seed)
    vocab = [f"{stem}{suffix}{rng.choice(('', '', 'x', 'o'))}" for stem in STEMS for suffix in SUFFIXES]
    words = vocab + list(FILLERS) * 8
    refs, preds = [], []
    for _ in range(pairs):
        ref = [rng.choice(words) for _ in range(tokens)]
        pred = [w if rng.random() < 0.6 else rng.choice(words) for w in ref]
        refs.append(" ".join(ref).capitalize())
        preds.append(" ".join(pred))
    return refs, preds


def best_time(fn: Callable[[], Any], repeat: int, before: Callable[[], None] = lambda: None) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        before()
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result


def cold_stems() -> None:
    """Empty the stem cache so every run of ours pays for stemming, as a fresh process does."""
    _tokenizers._STEMS.clear()


def bench_rouge(refs: list[str], preds: list[str], variant: str, stem: bool, repeat: int) -> float:
    rouge_type = {"1": "rouge1", "L": "rougeL"}[variant]
    scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem)
    t_ref, want = best_time(lambda: [scorer.score(r, p)[rouge_type].fmeasure for r, p in zip(refs, preds)], 1)
    metric = evalcore.get_metric("overlap/rouge", variant=variant, use_stemmer=stem)
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": p} for p in preds]
    t_ours, got = best_time(lambda: [s.value for s in metric.score_many(examples, predictions)], repeat, cold_stems)
    assert got == want, "ROUGE scores differ from rouge-score"
    print(f"ROUGE-{variant} stemmer={'on' if stem else 'off'}: rouge-score {t_ref:.3f}s, "
          f"evalcore {t_ours:.3f}s -> {t_ref / t_ours:.1f}x faster (identical scores)")
    return t_ref / t_ours


def bench_bleu(refs: list[str], preds: list[str], repeat: int) -> float:
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": p} for p in preds]

    def ours() -> float | None:
        # a fresh metric per run, as corpus_bleu builds a fresh BLEU (sacrebleu caches tokenised
        # segments per tokenizer instance, which would favour a reused metric)
        metric = evalcore.get_metric("overlap/bleu")
        return metric.corpus_score([state for _, state in metric.states(examples, predictions)]).value

    # interleaved, so load from other processes hits both sides alike
    t_ref, t_ours, want, got = float("inf"), float("inf"), None, None
    for _ in range(repeat):
        t, want = best_time(lambda: sacrebleu.corpus_bleu(preds, [refs]).score, 1)
        t_ref = min(t_ref, t)
        t, got = best_time(ours, 1)
        t_ours = min(t_ours, t)
    assert got == want, "BLEU differs from sacrebleu"
    print(f"corpus BLEU: sacrebleu {t_ref:.3f}s, evalcore {t_ours:.3f}s -> "
          f"evalcore/sacrebleu time {t_ours / t_ref:.3f} (identical score {got:.4f})")
    return t_ours / t_ref


CORPUS = {"overlap/bleu": sacrebleu.corpus_bleu, "overlap/chrf": sacrebleu.corpus_chrf}


def bench_corpus_evaluate(refs: list[str], preds: list[str], repeat: int) -> dict[str, float]:
    """Corpus BLEU and chrF through ``evalcore.evaluate`` (records in, the value and its bootstrap
    interval out) against sacrebleu's ``corpus_*`` alone, interleaved; min and median (TER:
    :func:`bench_corpus_ter`)."""
    records = [{"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": p}}
               for i, (r, p) in enumerate(zip(refs, preds))]
    ratios = {}
    for metric_id, reference in CORPUS.items():
        mine, theirs, want, got = [], [], None, None
        for _ in range(repeat):
            t, want = best_time(lambda reference=reference: reference(preds, [refs]).score, 1)
            theirs.append(t)
            t, result = best_time(
                lambda metric_id=metric_id: evalcore.evaluate(records, [metric_id], progress=False), 1)
            mine.append(t)
            got = result.metrics[metric_id]
        assert got.value == want, f"{metric_id} differs from sacrebleu"
        assert got.ci is not None
        mine.sort()
        theirs.sort()
        ratios[metric_id] = theirs[0] / mine[0]
        print(f"{metric_id} through evaluate (interval included): sacrebleu min {theirs[0]:.3f}s "
              f"median {theirs[len(theirs) // 2]:.3f}s, evalcore min {mine[0]:.3f}s median {mine[len(mine) // 2]:.3f}s "
              f"-> sacrebleu/evalcore {ratios[metric_id]:.2f}x (min), "
              f"{theirs[len(theirs) // 2] / mine[len(mine) // 2]:.2f}x (median); identical value")
    return ratios


def bench_corpus_ter(refs: list[str], preds: list[str], repeat: int) -> dict[str, float]:
    """Corpus TER: sacrebleu's ``corpus_ter`` alone against ``evalcore.evaluate`` (records in, the
    value and its bootstrap interval out) and against the metric called directly (``states`` and
    ``corpus_score`` of a fresh metric), the three interleaved; min and median CPU times, the ratios
    sacrebleu/evalcore, and the load average. The edits come from the compiled ``_ter`` extension
    where it was built (sacrebleu's Python otherwise: the line says which)."""
    records = [{"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": p}}
               for i, (r, p) in enumerate(zip(refs, preds))]
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": p} for p in preds]

    def direct() -> float | None:
        metric = evalcore.get_metric("overlap/ter")
        return metric.corpus_score([state for _, state in metric.states(examples, predictions)]).value

    def evaluate() -> float | None:
        result = evalcore.evaluate(records, ["overlap/ter"], progress=False).metrics["overlap/ter"]
        assert result.ci is not None
        return result.value

    sides = {"sacrebleu": lambda: sacrebleu.corpus_ter(preds, [refs]).score, "evaluate": evaluate, "direct": direct}
    times: dict[str, list[float]] = {name: [] for name in sides}
    values = {}
    for _ in range(repeat):
        for name, fn in sides.items():
            t, values[name] = best_time(fn, 1)
            times[name].append(t)
    assert values["evaluate"] == values["direct"] == values["sacrebleu"], f"TER differs from sacrebleu: {values}"
    low, mid = min(times["sacrebleu"]), statistics.median(times["sacrebleu"])
    ratios = {}
    edits = "compiled _ter" if _compiled.ter is not None else "sacrebleu's Python (_ter not built)"
    print(f"corpus TER, {len(refs)} pairs, edits by {edits}; load average {os.getloadavg()[0]:.2f}: "
          f"sacrebleu corpus_ter min {low:.3f}s median {mid:.3f}s")
    for name in ("evaluate", "direct"):
        ratios[name] = low / min(times[name])
        print(f"  evalcore {name}{' (interval included)' if name == 'evaluate' else ''}: "
              f"min {min(times[name]):.3f}s median {statistics.median(times[name]):.3f}s -> sacrebleu/evalcore "
              f"{ratios[name]:.2f}x (min), {mid / statistics.median(times[name]):.2f}x (median); identical value")
    return ratios


ANSWER_WORDS = ("the a of an paris london berlin capital city river france germany england is was big small "
                "north south 1989 1990 two three").split()


def make_answers(pairs: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """Short reference answers (1-4 words) and responses: half of them the answer with other case
    and punctuation, the rest 1-6 random words (partial token overlap). Each starts with a word that
    is not an article, so no side normalises to nothing (DSPy's F1 prints a line for that case)."""
    rng = random.Random(seed)
    content = [word for word in ANSWER_WORDS if word not in ("a", "an", "the")]

    def words(low: int, high: int) -> str:
        return " ".join([rng.choice(content), *(rng.choice(ANSWER_WORDS) for _ in range(rng.randint(low, high) - 1))])

    refs, preds = [], []
    for _ in range(pairs):
        answer = words(1, 4)
        response = answer.capitalize() + "." if rng.random() < 0.5 else words(1, 6)
        refs.append(answer)
        preds.append(response)
    return refs, preds


def bench_answer_metrics(pairs: int, repeat: int) -> float:
    """Token F1 and exact match of ``pairs`` short answers: DSPy's own ``F1`` and ``EM``
    (dspy.evaluate.metrics) in a loop against ``score_many`` of overlap/token_f1 and
    overlap/exact_match, interleaved, each run with cold normalisation memory; min and median."""
    from dspy.evaluate.metrics import EM, F1
    from evalcore_overlap import _normalize

    refs, preds = make_answers(pairs)
    examples = [{"reference_answer": r} for r in refs]
    predictions = [{"response": p} for p in preds]
    f1_metric, em_metric = evalcore.get_metric("overlap/token_f1"), evalcore.get_metric("overlap/exact_match")

    def theirs() -> tuple[list[float], list[float]]:
        return [F1(p, [r]) for r, p in zip(refs, preds)], [float(EM(p, [r])) for r, p in zip(refs, preds)]

    def ours() -> tuple[list[float | None], list[float | None]]:
        return ([s.value for s in f1_metric.score_many(examples, predictions)],
                [s.value for s in em_metric.score_many(examples, predictions)])

    def cold() -> None:
        _normalize.normalizer.cache_clear()  # the metrics' memory of normalised texts, emptied
        f1_metric.setup()
        em_metric.setup()

    mine, reference, want, got = [], [], None, None
    for _ in range(repeat):
        t, want = best_time(theirs, 1)
        reference.append(t)
        t, got = best_time(ours, 1, cold)
        mine.append(t)
    assert got == want, "token F1 / exact match differ from DSPy's F1 / EM"
    mine.sort()
    reference.sort()
    ratio = reference[0] / mine[0]
    print(f"token F1 + EM, {pairs} short answers: DSPy F1+EM loop min {reference[0]:.3f}s median "
          f"{reference[len(reference) // 2]:.3f}s, evalcore score_many min {mine[0]:.3f}s median "
          f"{mine[len(mine) // 2]:.3f}s -> {ratio:.2f}x (min), "
          f"{reference[len(reference) // 2] / mine[len(mine) // 2]:.2f}x (median); identical values")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus-pairs", type=int, default=10_000,
                        help="pairs of 30 tokens for corpus BLEU / chrF / TER through evaluate")
    parser.add_argument("--only-ter", action="store_true", help="run only the corpus TER comparison")
    parser.add_argument("--only-corpus", action="store_true",
                        help="run only the corpus BLEU and chrF comparison through evaluate")
    parser.add_argument("--answer-pairs", type=int, default=100_000,
                        help="short answers for token F1 + exact match (score_many against DSPy's loop)")
    parser.add_argument("--only-answers", action="store_true", help="run only the token F1 + EM comparison")
    args = parser.parse_args()
    if args.only_ter:
        bench_corpus_ter(*make_pairs(args.corpus_pairs, 30), args.repeat)
        return
    if args.only_corpus:
        print(f"load average {os.getloadavg()[0]:.2f}")
        bench_corpus_evaluate(*make_pairs(args.corpus_pairs, 30), args.repeat)
        print(f"load average {os.getloadavg()[0]:.2f}")
        return
    answers = bench_answer_metrics(args.answer_pairs, args.repeat)
    print(f"target: token F1 + EM score_many >= 1.5x DSPy's loop: {answers:.2f}x "
          f"{'ok' if answers >= 1.5 else 'MISSED'}")
    if args.only_answers:
        return
    corpus = make_pairs(args.corpus_pairs, 30)
    bench_corpus_evaluate(*corpus, args.repeat)
    ter = bench_corpus_ter(*corpus, args.repeat)
    print(f"target: corpus TER through evaluate >= 1x sacrebleu: {ter['evaluate']:.2f}x "
          f"{'ok' if ter['evaluate'] >= 1 else 'MISSED'}")
    refs, preds = make_pairs(args.pairs, args.tokens)
    print(f"{args.pairs} pairs x {args.tokens} tokens")
    rouge_l = bench_rouge(refs, preds, "L", False, args.repeat)
    rouge_1 = bench_rouge(refs, preds, "1", True, args.repeat)
    bleu = bench_bleu(refs, preds, max(args.repeat, 5))
    print(f"targets: ROUGE-L >= 20x: {rouge_l:.1f}x {'ok' if rouge_l >= 20 else 'MISSED'}; "
          f"ROUGE-1+stemmer >= 10x: {rouge_1:.1f}x {'ok' if rouge_1 >= 10 else 'MISSED'}; "
          f"BLEU within 10 %: {bleu:.3f} {'ok' if bleu <= 1.10 else 'MISSED'}")


if __name__ == "__main__":
    main()
