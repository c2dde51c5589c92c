"""trec_eval's whole ``all_trec`` set: evalcore against pytrec_eval with every measure it has.

Random runs of 100 documents per query with 30 graded judgements (``bench_retrieval``'s
files: scores descending, 20 judged documents at random ranks of the run). Three paths:

* ``files``: TREC files. pytrec_eval parses them in Python (its documented way) and
  evaluates every measure; evalcore reads them (``read_trec``) and scores ``all_trec``
  (the 98 metrics of ``trec_eval -m all_trec``), per-query values for both;
* ``cli``: ``evalcore evaluate --qrels Q --run R -m all_trec --json`` end to end (a new
  interpreter: imports, plugin discovery, the engine's chunks, rows journal and summary),
  against the ``files`` path of pytrec_eval;
* ``dicts``: the same data as Python dicts, ``evaluate_run`` against pytrec_eval
  (parsing not timed).

Every measurement is its own subprocess (its peak RSS, no warm caches), repeats are
interleaved (pytrec_eval, evalcore, command line, pytrec_eval, ...), and the table gives the
min and median wall time, their ratios to pytrec_eval, and the min CPU time of the
subprocess (``getrusage`` of the child, all threads: on a shared machine the wall time also
counts waiting for a core). The means of every measure the two share are checked to 1e-9.
pytrec_eval bundles trec_eval 9, so it lacks rbp, rbp_resid and unj and rounds the recall
levels of iprec_at_recall / 11pt_avg differently; its per-query gm_* values are logarithms:
those, and num_q, are left out of the check.

    python benchmarks/bench_all_trec.py                       # 10k and 100k queries, 3 repeats
    python benchmarks/bench_all_trec.py --sizes 10000 --paths files,cli --repeat 5
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_retrieval import make_files, parse_dicts

PATHS = {  # path -> contenders, each a worker below (the first is the reference)
    "files": ("pytrec_eval", "evalcore"),
    "cli": ("pytrec_eval", "evalcore"),
    "dicts": ("pytrec_eval", "evalcore"),
}
SKIPPED = ("iprec_at_recall", "11pt_avg", "gm_", "num_q", "runid", "relstring")


def pytrec_measures() -> set[str]:
    import pytrec_eval

    return set(pytrec_eval.supported_measures) - {"runid", "relstring"}


# ---------------------------------------------------------------- workers (run in subprocesses)


def files_pytrec_eval(qrels: str, run: str, _: Path) -> dict:
    import pytrec_eval

    judged, ranked = parse_dicts(qrels, run)
    return pytrec_eval.RelevanceEvaluator(judged, pytrec_measures()).evaluate(ranked)


def files_evalcore(qrels: str, run: str, _: Path) -> object:
    from evalcore_retrieval import read_trec
    from evalcore_retrieval._api import score_queries

    data = read_trec(qrels, run)
    return score_queries(data.qids, ["all_trec"], data.rankings)


def cli_evalcore(qrels: str, run: str, scratch: Path) -> dict[str, float]:
    report = scratch / "report.json"
    command = [str(Path(sys.executable).with_name("evalcore")), "evaluate", "--qrels", qrels, "--run", run,
               "-m", "all_trec", "--json", "-o", str(report)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return {metric_id: entry["value"] for metric_id, entry in json.loads(report.read_text())["metrics"].items()}


def dicts_pytrec_eval(judged: dict, ranked: dict, _: Path) -> dict:
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(judged, pytrec_measures()).evaluate(ranked)


def dicts_evalcore(judged: dict, ranked: dict, _: Path) -> object:
    from evalcore_retrieval import evaluate_run

    return evaluate_run(judged, ranked, ["all_trec"])


def means(result: object) -> dict[str, float]:
    """The ``all`` value of each metric, by evalcore id (pytrec_eval's measures that evalcore
    computes the same way only; see the module's description)."""
    import evalcore
    from evalcore.plugin import aggregate_values
    from evalcore_retrieval import QueryScores, average

    if isinstance(result, QueryScores):
        return average(result)
    if not isinstance(next(iter(result.values())), dict):  # the command line's report
        return result
    out = {}
    for name in next(iter(result.values())):
        if not name.startswith(SKIPPED):
            metric = evalcore.get_metric(name)
            out[metric.id] = aggregate_values([v[name] for v in result.values()], metric.spec.aggregate)
    return out


def worker(path: str, contender: str, qrels: str, run: str, scratch: str) -> None:
    """Run one contender once; print its time, CPU time, peak RSS and per-metric values as JSON."""
    if contender == "evalcore" and path != "cli":  # imports and plugin discovery are not timed
        import evalcore
        import evalcore_retrieval._trec  # noqa: F401

        evalcore.get_metric("retrieval/map")
    else:
        import pytrec_eval  # noqa: F401
    inputs = parse_dicts(qrels, run) if path == "dicts" else (qrels, run)
    kind = "files" if path == "cli" and contender == "pytrec_eval" else path
    function = globals()[f"{kind}_{contender}"]
    start, cpu_start = time.perf_counter(), _cpu()
    result = function(*inputs, Path(scratch))
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu_start
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak / 1024, "means": means(result)}))


def _cpu() -> float:
    """CPU seconds of this process (every thread) and of its finished children."""
    return sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


# ---------------------------------------------------------------- driver


def measure(path: str, contender: str, qrels: Path, run: Path, scratch: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", path, contender, str(qrels), str(run), str(scratch)],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{path} / {contender} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def check(reference: dict[str, float], ours: dict[str, float]) -> tuple[int, float]:
    """How many means were compared and the largest difference; asserts it is within 1e-9."""
    worst = max(abs(ours[metric_id] - value) for metric_id, value in reference.items())
    assert worst <= 1e-9, f"all_trec means differ from pytrec_eval by {worst}"
    return len(reference), worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated numbers of queries")
    parser.add_argument("--paths", default="files,cli,dicts", help=f"comma-separated, of {', '.join(PATHS)}")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each (default 3)")
    parser.add_argument("--data", help="folder for the generated files (kept between runs)")
    args = parser.parse_args()
    scratch = Path(args.data or Path(tempfile.gettempdir()) / "evalcore-bench-retrieval")
    scratch.mkdir(parents=True, exist_ok=True)
    paths = args.paths.split(",")
    print(f"all_trec (98 evalcore metrics; pytrec_eval: its {len(pytrec_measures())} measure families), "
          f"100 retrieved and 30 judged documents per query; {args.repeat} interleaved runs each, "
          "one subprocess per run")
    print(f"{'queries':>8} {'path':<6} {'contender':<12} {'min s':>8} {'median s':>9} {'peak MB':>8} "
          f"{'speed-up min':>13} {'speed-up median':>16} {'min cpu s':>10} {'cpu speed-up':>13}")
    for n in map(int, args.sizes.split(",")):
        qrels, run = make_files(n, scratch)
        jobs = [(path, contender) for path in paths for contender in PATHS[path]
                if not (path == "cli" and contender == "pytrec_eval" and "files" in paths)]
        results: dict[tuple[str, str], list[dict]] = {job: [] for job in jobs}
        for _ in range(args.repeat):
            for job in jobs:
                results[job].append(measure(*job, qrels, run, scratch))
        for path in paths:
            shared_reference = path == "cli" and "files" in paths  # pytrec_eval on the files, run once
            reference = results[("files" if shared_reference else path, "pytrec_eval")]
            for contender in PATHS[path]:
                runs = reference if contender == "pytrec_eval" else results[(path, contender)]
                times, cpu = [r["seconds"] for r in runs], min(r["cpu"] for r in runs)
                base = [r["seconds"] for r in reference]
                print(f"{n:>8} {path:<6} {contender:<12} {min(times):>8.2f} {statistics.median(times):>9.2f} "
                      f"{max(r['peak_mb'] for r in runs):>8.0f} {min(base) / min(times):>12.1f}x "
                      f"{statistics.median(base) / statistics.median(times):>15.1f}x {cpu:>10.2f} "
                      f"{min(r['cpu'] for r in reference) / cpu:>12.1f}x")
            compared, worst = check(reference[0]["means"], results[(path, "evalcore")][0]["means"])
            print(f"{'':>8} {path}: max |diff| of {compared} means vs pytrec_eval {worst:.1e}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:7])
    else:
        main()
