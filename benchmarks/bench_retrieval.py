"""Retrieval speed: evalcore-retrieval vs pytrec_eval vs ranx, from Python dicts to averages.

Each library starts from the same ``{qid: {docid: grade}}`` qrels and
``{qid: {docid: score}}`` run (random scores, random graded judgements) and computes
nDCG@10, MAP, MRR, P@10 and recall@100 per query and their means; ingestion from the
dicts is included in the time. The per-query values of evalcore are checked against
pytrec_eval (1e-9) and the means against ranx. ranx's numba functions are compiled on a
small warm-up run before timing. Times are the best of ``--repeat`` runs.

    python benchmarks/bench_retrieval.py           # 10k and 100k queries x 100 documents
    python benchmarks/bench_retrieval.py --quick   # 10k only
    python benchmarks/bench_retrieval.py --repeat 1
    python benchmarks/bench_retrieval.py --all-trec   # trec_eval's whole all_trec set, 10k queries

With ``--all-trec`` every ``all_trec`` measure is computed by both (pytrec_eval: all it
supports; it bundles trec_eval 9, so it lacks rbp, rbp_resid and unj, and rounds the recall
levels of iprec_at_recall / 11pt_avg differently: those are left out of the check). The two are
run interleaved; min and median of the repeats are printed.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from typing import Any

DOCS_PER_QUERY = 100
JUDGED_PER_QUERY = 30
METRICS = {  # evalcore id -> (pytrec_eval measure, ranx metric)
    "retrieval/ndcg@10": ("ndcg_cut_10", "ndcg@10"),
    "retrieval/map": ("map", "map"),
    "retrieval/mrr": ("recip_rank", "mrr"),
    "retrieval/precision@10": ("P_10", "precision@10"),
    "retrieval/recall@100": ("recall_100", "recall@100"),
}
PYTREC_MEASURES = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}


def make_collection(n_queries: int, seed: int = 0) -> tuple[dict, dict]:
    """Random run (100 documents per query) and graded qrels (30 judged, 2/3 of them retrieved)."""
    rng = random.Random(seed)
    pool = [f"doc{i}" for i in range(50_000)]
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = rng.sample(pool, DOCS_PER_QUERY + JUDGED_PER_QUERY // 3)
        run[qid] = {d: rng.random() for d in docs[:DOCS_PER_QUERY]}
        judged = docs[DOCS_PER_QUERY - 2 * JUDGED_PER_QUERY // 3:]
        qrels[qid] = {d: rng.choice((0, 0, 1, 1, 2, 3)) for d in judged}
    return qrels, run


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The best wall time of ``repeat`` calls, and the last result."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def run_evalcore(qrels: dict, run: dict) -> tuple[dict, dict]:
    from evalcore_retrieval import average, evaluate_run

    per_query = evaluate_run(qrels, run, list(METRICS))
    return per_query, average(per_query)


def read_dicts_evalcore(qrels: dict, run: dict) -> Any:
    """evalcore's ingestion step alone (dicts to rankings), to show where the time goes."""
    from evalcore_retrieval._dicts import judged_queries, rankings_from_dicts

    return rankings_from_dicts(qrels, run, judged_queries(qrels), "trec")


def run_pytrec_eval(qrels: dict, run: dict) -> tuple[dict, dict]:
    import pytrec_eval

    per_query = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
    means = {m: sum(v[m] for v in per_query.values()) / len(per_query) for m, _ in METRICS.values()}
    return per_query, means


def run_ranx(qrels: dict, run: dict) -> dict:
    import ranx

    return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), [r for _, r in METRICS.values()])


def check(ours: tuple[dict, dict], pytrec: tuple[dict, dict], ranx_means: dict) -> str:
    per_query, means = ours
    ref_per_query, _ = pytrec
    assert set(per_query) == set(ref_per_query), "different query sets"
    worst = max(
        abs(per_query[q][mid] - ref_per_query[q][measure])
        for q in per_query for mid, (measure, _) in METRICS.items()
    )
    assert worst <= 1e-9, f"evalcore differs from pytrec_eval by {worst}"
    ranx_worst = max(abs(means[mid] - ranx_means[name]) for mid, (_, name) in METRICS.items())
    # ranx breaks tied scores differently; random scores tie only in single precision, rarely
    assert ranx_worst <= 1e-4, f"evalcore means differ from ranx by {ranx_worst}"
    return f"max |diff| per query vs pytrec_eval {worst:.1e}, of means vs ranx {ranx_worst:.1e}"


def all_trec(n_queries: int, repeat: int) -> None:
    """evaluate_run with ``all_trec`` vs pytrec_eval with every measure, interleaved repeats."""
    import statistics

    import evalcore
    import pytrec_eval
    from evalcore.plugin import aggregate_values
    from evalcore_retrieval import average, evaluate_run

    qrels, run = make_collection(n_queries)
    measures = set(pytrec_eval.supported_measures) - {"runid", "relstring"}
    ours_t, theirs_t = [], []
    for _ in range(repeat):
        t, ours = timed(lambda: average(evaluate_run(qrels, run, ["all_trec"])), 1)
        ours_t.append(t)
        t, theirs = timed(lambda: pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run), 1)
        theirs_t.append(t)
    names = [n for n in next(iter(theirs.values()))
             if not n.startswith(("iprec_at_recall", "11pt_avg", "gm_", "num_q"))]
    worst = 0.0
    for name in names:
        metric = evalcore.get_metric("ndcg(k=None)" if name == "ndcg" else name)
        reference = aggregate_values([v[name] for v in theirs.values()], metric.spec.aggregate)
        worst = max(worst, abs(ours[metric.id] - reference))
    assert worst <= 1e-9, f"all_trec means differ from pytrec_eval by {worst}"
    print(f"all_trec, {n_queries} queries x {DOCS_PER_QUERY} documents, {repeat} interleaved repeats: "
          f"evalcore min {min(ours_t):.2f}s median {statistics.median(ours_t):.2f}s; pytrec_eval min "
          f"{min(theirs_t):.2f}s median {statistics.median(theirs_t):.2f}s; ratio (min) "
          f"{min(theirs_t) / min(ours_t):.1f}x, (median) "
          f"{statistics.median(theirs_t) / statistics.median(ours_t):.1f}x; "
          f"max |diff| of {len(names)} means {worst:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k queries only")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--all-trec", action="store_true", help="trec_eval's whole all_trec set")
    args = parser.parse_args()
    if args.all_trec:
        all_trec(10_000, args.repeat)
        return
    sizes = [10_000] if args.quick else [10_000, 100_000]

    warm_qrels, warm_run = make_collection(50, seed=1)
    run_ranx(warm_qrels, warm_run)  # numba compilation, not timed
    run_evalcore(warm_qrels, warm_run)  # imports and plugin discovery, not timed

    print(f"metrics: {', '.join(METRICS)}; {DOCS_PER_QUERY} retrieved, {JUDGED_PER_QUERY} judged per query")
    print(f"{'queries':>8} {'evalcore':>10} {'pytrec_eval':>12} {'ranx':>10} "
          f"{'vs pytrec_eval':>15} {'vs ranx':>8}")
    for n in sizes:
        qrels, run = make_collection(n)
        t_ours, ours = timed(lambda q=qrels, r=run: run_evalcore(q, r), args.repeat)
        t_pytrec, pytrec = timed(lambda q=qrels, r=run: run_pytrec_eval(q, r), args.repeat)
        t_ranx, ranx_means = timed(lambda q=qrels, r=run: run_ranx(q, r), args.repeat)
        t_read, _ = timed(lambda q=qrels, r=run: read_dicts_evalcore(q, r), args.repeat)
        agreement = check(ours, pytrec, ranx_means)
        print(f"{n:>8} {t_ours:>9.2f}s {t_pytrec:>11.2f}s {t_ranx:>9.2f}s "
              f"{t_pytrec / t_ours:>14.1f}x {t_ranx / t_ours:>7.1f}x")
        print(f"{'':>8} evalcore reading the dicts: {t_read:.2f}s, metrics and output: "
              f"{max(t_ours - t_read, 0):.2f}s; {agreement}")


if __name__ == "__main__":
    main()
