"""The measures ir_measures adds (SDCG, binary RBP, Compat, alpha-nDCG): evalcore vs ir_measures.

Each query has 100 retrieved documents and 30 judged ones (20 of them retrieved), graded 0..3;
for alpha-nDCG each judged document is judged for 1 to 3 of 4 subtopics. Per measure:

* SDCG(max_rel=3)@10 and RBP(p=0.8,rel=1) from dicts: ``evaluate_run`` (vectorised) vs
  ir_measures' cwl_eval provider;
* Compat(p=0.95) over records vs ir_measures' compat provider over dicts;
* alpha_nDCG@20 over records vs ir_measures' pyndeval provider (ndeval's C code).

Every measurement runs in its own subprocess, which builds its input (not timed) and times only
the evaluation, reporting wall and CPU time (``resource.getrusage`` of that process around the
timed part). Repeats are interleaved (evalcore, reference, evalcore, ...); the table gives the
min and median of each and the ratios reference / evalcore. The per-query values are checked
against the reference (1e-9) in every run.

    python benchmarks/bench_irm.py                 # 2000 queries, 3 repeats
    python benchmarks/bench_irm.py --queries 500 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import resource
import statistics
import subprocess
import sys
import time

MEASURES = {  # name -> (evalcore metric ids, ir_measures measures)
    "SDCG@10 + RBP(rel=1)": (["retrieval/sdcg(max_grade=3, ties='input', missing='zero')@10",
                              "retrieval/rbp(p=0.8, gain='binary', ties='input', missing='zero')"],
                             ["SDCG(max_rel=3)@10", "RBP(p=0.8,rel=1)"]),
    "Compat(p=0.95)": (["retrieval/compat"], ["Compat"]),
    "alpha_nDCG@20": (["retrieval/alpha_ndcg@20"], ["alpha_nDCG@20"]),
}


def make_data(n_queries: int, seed: int = 0) -> tuple[dict, dict, list]:
    """qrels ``{qid: {doc: grade}}``, run ``{qid: {doc: score}}`` and subtopic judgements."""
    rng = random.Random(seed)
    qrels, run, subtopics = {}, {}, []
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"doc{d}" for d in rng.sample(range(50_000), 110)]
        run[qid] = {doc: rng.random() for doc in docs[:100]}
        judged = rng.sample(docs[:100], 20) + docs[100:]
        qrels[qid] = {doc: rng.choice([0, 0, 1, 1, 2, 3]) for doc in judged}
        for doc in judged:
            for subtopic in rng.sample("1234", rng.randint(1, 3)):
                subtopics.append((qid, doc, rng.choice([0, 1, 1]), subtopic))
    return qrels, run, subtopics


def _records(qrels: dict, run: dict, subtopics: list | None) -> tuple[list, list]:
    judged: dict[str, list] = {qid: [] for qid in qrels}
    if subtopics is None:
        for qid, docs in qrels.items():
            judged[qid] = [{"doc_id": d, "relevance": g} for d, g in docs.items()]
    else:
        for qid, doc, grade, subtopic in subtopics:
            judged[qid].append({"doc_id": doc, "relevance": grade, "subtopic": subtopic})
    return ([{"relevant_docs": judged[qid]} for qid in run],
            [{"retrieved": [{"doc_id": d, "score": s} for d, s in run[qid].items()]} for qid in run])


def worker(measure: str, contender: str, n_queries: int) -> dict:
    """Build the input, then time one evaluation; per-query values for the check."""
    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    qrels, run, subtopics = make_data(n_queries)
    ours, theirs = MEASURES[measure]
    if contender == "evalcore":
        import evalcore
        from evalcore_retrieval import evaluate_run

        metrics = [evalcore.get_metric(m) for m in ours]
        examples, predictions = _records(qrels, run, subtopics if measure.startswith("alpha") else None)
        start, usage = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        if measure.startswith("SDCG"):
            got = evaluate_run(qrels, run, metrics)
            values = {f"{qid} {m}": got[qid][metric.id] for qid in run for m, metric in zip(theirs, metrics)}
        else:
            scores = metrics[0].score_many(examples, predictions)
            values = {f"{qid} {theirs[0]}": s.value for qid, s in zip(run, scores)}
    else:
        import ir_measures

        parsed = [ir_measures.parse_measure(m) for m in theirs]
        judgements = ([ir_measures.Qrel(q, d, g, s) for q, d, g, s in subtopics] if measure.startswith("alpha")
                      else qrels)
        start, usage = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        names = dict(zip(parsed, theirs))
        values = {f"{m.query_id} {names[m.measure]}": m.value for m in ir_measures.iter_calc(parsed, judgements, run)}
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
    return {"seconds": seconds, "cpu": cpu, "values": values}


def run_worker(measure: str, contender: str, n_queries: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", measure, contender, "--queries", str(n_queries)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker, args.queries)))
        return
    print(f"{args.queries} queries x 100 documents, {args.repeat} interleaved repeats\n")
    print("| measure | contender | min s | median s | ratio (min / median) | min CPU s | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for measure in MEASURES:
        runs: dict[str, list[dict]] = {"evalcore": [], "ir_measures": []}
        for _ in range(args.repeat):
            for contender in runs:
                runs[contender].append(run_worker(measure, contender, args.queries))
        expected = runs["ir_measures"][0]["values"]
        for result in runs["evalcore"]:
            bad = [k for k, v in expected.items() if abs(result["values"].get(k, float("nan")) - v) > 1e-9]
            assert not bad, f"{measure}: evalcore differs from ir_measures on {bad[:3]}"
        base = runs["evalcore"]
        for contender, results in runs.items():
            wall = [r["seconds"] for r in results]
            cpu = min(r["cpu"] for r in results)
            ratio = (f"{min(wall) / min(r['seconds'] for r in base):.1f}x / "
                     f"{statistics.median(wall) / statistics.median(r['seconds'] for r in base):.1f}x")
            print(f"| {measure} | {contender} | {min(wall):.3f} | {statistics.median(wall):.3f} | {ratio} | "
                  f"{cpu:.3f} | {cpu / min(r['cpu'] for r in base):.1f}x |")


if __name__ == "__main__":
    main()
