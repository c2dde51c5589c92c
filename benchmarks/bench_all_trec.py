"""trec_eval's whole ``all_trec`` set: evalcore's ``evaluate_run`` against pytrec_eval with every measure.

Standalone: ``python benchmarks/bench_all_trec.py [--queries 10000] [--repeat 3]``. Random runs of
100 documents per query with 30 graded judgements; the two are run interleaved and the min and
median wall times printed with their ratio. pytrec_eval bundles trec_eval 9, so it lacks rbp,
rbp_resid and unj and rounds the recall levels of iprec_at_recall / 11pt_avg differently: those
are left out of the check of the means.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

DOCS_PER_QUERY = 100
JUDGED_PER_QUERY = 30


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import evalcore
    import pytrec_eval
    from evalcore.plugin import aggregate_values
    from evalcore_retrieval import average, evaluate_run

    qrels, run = make_collection(args.queries)
    measures = set(pytrec_eval.supported_measures) - {"runid", "relstring"}
    ours_t, theirs_t = [], []
    ours = theirs = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        ours = average(evaluate_run(qrels, run, ["all_trec"]))
        ours_t.append(time.perf_counter() - start)
        start = time.perf_counter()
        theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        theirs_t.append(time.perf_counter() - start)
    names = [n for n in next(iter(theirs.values()))
             if not n.startswith(("iprec_at_recall", "11pt_avg", "gm_", "num_q"))]
    worst = 0.0
    for name in names:
        metric = evalcore.get_metric("ndcg(k=None)" if name == "ndcg" else name)
        reference = aggregate_values([v[name] for v in theirs.values()], metric.spec.aggregate)
        worst = max(worst, abs(ours[metric.id] - reference))
    assert worst <= 1e-9, f"all_trec means differ from pytrec_eval by {worst}"
    print(f"all_trec, {args.queries} queries x {DOCS_PER_QUERY} documents, {args.repeat} interleaved repeats: "
          f"evalcore min {min(ours_t):.2f}s median {statistics.median(ours_t):.2f}s; pytrec_eval min "
          f"{min(theirs_t):.2f}s median {statistics.median(theirs_t):.2f}s; ratio (min) "
          f"{min(theirs_t) / min(ours_t):.1f}x, "
          f"(median) {statistics.median(theirs_t) / statistics.median(ours_t):.1f}x; "
          f"max |diff| of {len(names)} means {worst:.1e}")


if __name__ == "__main__":
    main()
