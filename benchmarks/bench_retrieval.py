"""Retrieval speed and memory: evalcore-retrieval vs pytrec_eval, ir_measures and C trec_eval.

Four paths, each over 100 retrieved documents (scores descending, as runs are written) and
30 graded judgements per query, computing nDCG@10, MAP, MRR, P@10 and recall@100 per query
and their means:

* TREC files: ``read_trec`` + the measures, vs pytrec_eval parsing the same files in Python
  and evaluating, vs ir_measures reading and evaluating them, vs C trec_eval (``--trec-eval
  PATH``, ``trec_eval`` on PATH, or built from the pytrec-eval-terrier sdist; skipped with a
  message when none can be had, and above 10k queries, where it takes minutes);
* Python dicts: ``evaluate_run`` vs pytrec_eval (ingestion included);
* columns: ``evaluate_columns`` from pyarrow Tables (``qid, docno, rel`` / ``qid, docno, score``),
  vs pytrec_eval from dicts;
* command line: ``evalcore evaluate --qrels Q --run R -m ...`` as a user runs it (interpreter
  start-up, plugin discovery, the engine's rows and bootstrap intervals included), vs C trec_eval
  on the same files, vs pytrec_eval parsing the same files in Python and evaluating (its imports
  not timed), and vs what the command cannot do without: reading the files and the measures
  (``read+measure``: the reader's import, ``read_trec`` and the metrics' ``score_columns`` on the
  engine's 1000-query chunks; the registry's and the measures' imports not timed). The difference
  between the command and ``read+measure`` is the engine's own cost (interpreter start-up, the
  imports of numpy, the registry and the command, plugin discovery, the run's scheduling, the
  samples journal, the bootstrap intervals, the report), printed below the table.

Every measurement runs in its own subprocess (for its peak RSS), repeats are interleaved
(A B C, B C A, C A B ...), and the table gives the min and median wall time of each, the ratios to
evalcore, and the min CPU time (all threads and child processes: on a shared machine the wall
time also counts waiting for a core). The means are checked against pytrec_eval (1e-9), ir_measures (1e-4) and
trec_eval (its 4 printed decimals). Below each table, the ratios evalcore aims at (``TARGETS``) are
printed with the measured ones and whether they are met, and the load average when the path finished.

    python benchmarks/bench_retrieval.py            # 10k and 100k queries
    python benchmarks/bench_retrieval.py --quick    # 10k only
    python benchmarks/bench_retrieval.py --repeat 5 --trec-eval /path/to/trec_eval
    python benchmarks/bench_retrieval.py --paths "command line" --before /path/to/older/checkout
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCS_PER_QUERY = 100
JUDGED_PER_QUERY = 30
METRICS = {  # evalcore id -> (trec_eval / pytrec_eval measure, ir_measures measure)
    "retrieval/ndcg@10": ("ndcg_cut_10", "nDCG@10"),
    "retrieval/map": ("map", "AP"),
    "retrieval/mrr": ("recip_rank", "RR"),
    "retrieval/precision@10": ("P_10", "P@10"),
    "retrieval/recall@100": ("recall_100", "R@100"),
}
PYTREC_MEASURES = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
PATHS = {  # path -> (contenders, evalcore's contender); each contender is a worker function below
    "TREC files": (["evalcore", "pytrec_eval", "ir_measures", "trec_eval"], "evalcore"),
    "dicts": (["evalcore", "pytrec_eval"], "evalcore"),
    "columns": (["evalcore", "pytrec_eval"], "evalcore"),
    "command line": (["evalcore", "read+measure", "pytrec_eval", "trec_eval"], "evalcore"),
}
# the speed evalcore aims at: (path, contender) -> {queries: least ratio of the contender's time to
# evalcore's, min and median}
TARGETS = {
    ("command line", "trec_eval"): {10_000: 1.2},
    ("command line", "pytrec_eval"): {10_000: 3.0, 100_000: 5.0},
    ("TREC files", "pytrec_eval"): {100_000: 10.0},
}
# C trec_eval 10 prints 4 decimals and compares scores in double precision; the trec_eval inside
# pytrec_eval (which evalcore's ties='trec' matches exactly) compares them in single precision, so
# scores equal only as floats rank differently (on these runs MRR differs by about 1e-4)
TOLERANCE = {"pytrec_eval": 1e-9, "ir_measures": 1e-4, "trec_eval": 2e-4, "read+measure": 1e-12, "before": 1e-12}
CHUNK = 1000  # the command's default --chunk-size
TREC_EVAL_UP_TO = 10_000  # C trec_eval is quadratic in the queries: 589 s on one 100k run


# ---------------------------------------------------------------- data


def make_files(n_queries: int, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """A run (100 documents per query, scores descending) and graded qrels (30 judged, 2/3 retrieved)."""
    import numpy as np

    qrels_path, run_path = folder / f"qrels.{n_queries}.{seed}", folder / f"run.{n_queries}.{seed}"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    retrieved_judged = 2 * JUDGED_PER_QUERY // 3
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q in range(n_queries):
            docs = rng.choice(50_000, DOCS_PER_QUERY + JUDGED_PER_QUERY - retrieved_judged, replace=False)
            scores = sorted(rng.random(DOCS_PER_QUERY).tolist(), reverse=True)
            run.write("".join(f"q{q} Q0 doc{d} {r} {s!r} bench\n"
                              for r, (d, s) in enumerate(zip(docs[:DOCS_PER_QUERY].tolist(), scores), start=1)))
            # judged: 20 documents at random ranks of the run and 10 it did not retrieve
            picked = rng.choice(DOCS_PER_QUERY, retrieved_judged, replace=False)
            judged = np.concatenate([docs[picked], docs[DOCS_PER_QUERY:]]).tolist()
            grades = rng.choice([0, 0, 1, 1, 2, 3], JUDGED_PER_QUERY).tolist()
            qrels.write("".join(f"q{q} 0 doc{d} {g}\n" for d, g in zip(judged, grades)))
    return qrels_path, run_path


def parse_dicts(qrels_path: str, run_path: str) -> tuple[dict, dict]:
    """pytrec_eval's documented way of reading TREC files: split lines in Python."""
    qrels: dict = {}
    run: dict = {}
    with open(qrels_path) as handle:
        for line in handle:
            qid, _, docno, rel = line.split()
            qrels.setdefault(qid, {})[docno] = int(rel)
    with open(run_path) as handle:
        for line in handle:
            qid, _, docno, _, score, _ = line.split()
            run.setdefault(qid, {})[docno] = float(score)
    return qrels, run


def _means(per_query: dict, key: int) -> dict[str, float]:
    names = {m[key]: mid for mid, m in METRICS.items()}
    return {names[name]: sum(v[name] for v in per_query.values()) / len(per_query) for name in names}


# ---------------------------------------------------------------- workers (run in subprocesses)


def files_evalcore(qrels: str, run: str) -> dict[str, float]:
    from evalcore_retrieval import read_trec
    from evalcore_retrieval._api import score_queries

    data = read_trec(qrels, run)
    return score_queries(data.qids, list(METRICS), data.rankings).mean()


def files_pytrec_eval(qrels: str, run: str) -> dict[str, float]:
    import pytrec_eval

    judged, ranked = parse_dicts(qrels, run)
    return _means(pytrec_eval.RelevanceEvaluator(judged, PYTREC_MEASURES).evaluate(ranked), 0)


def files_ir_measures(qrels: str, run: str) -> dict[str, float]:
    import ir_measures

    measures = {ir_measures.parse_measure(m[1]): mid for mid, m in METRICS.items()}
    means = ir_measures.calc_aggregate(list(measures), ir_measures.read_trec_qrels(qrels),
                                       ir_measures.read_trec_run(run))
    return {mid: means[m] for m, mid in measures.items()}


def files_trec_eval(qrels: str, run: str) -> dict[str, float]:
    command = [os.environ["BENCH_TREC_EVAL"]]
    for measure in PYTREC_MEASURES:
        command += ["-m", measure]
    out = subprocess.run([*command, qrels, run], capture_output=True, text=True, check=True).stdout
    names = {m[0]: mid for mid, m in METRICS.items()}
    return {names[f[0]]: float(f[2]) for f in map(str.split, out.splitlines()) if f[0] in names}


def cli_evalcore(qrels: str, run: str, program: tuple[str, ...] = ()) -> dict[str, float]:
    """The ``evalcore`` console script (or ``program``) evaluating the files."""
    command = [*(program or [str(Path(sys.executable).with_name("evalcore"))]), "evaluate", "--qrels", qrels,
               "--run", run]
    for metric in METRICS:
        command += ["-m", metric]
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run([*command, "-o", str(report)], capture_output=True, check=True)
        metrics = json.loads(report.read_text())["metrics"]
    return {metric: metrics[metric]["value"] for metric in METRICS}


def floor_evalcore(qrels: str, run: str) -> dict[str, float]:
    """What the command cannot do without: read the files, score each chunk's columns."""
    import numpy as np
    from evalcore_retrieval._reader import trec_source  # pyarrow: the reader's import is reading

    metrics = [evalcore_metric(metric_id) for metric_id in METRICS]
    source = trec_source(qrels, run)
    sums, counts = np.zeros(len(metrics)), np.zeros(len(metrics))
    for chunk in source.chunks(CHUNK):
        for k, metric in enumerate(metrics):
            scores = metric.score_columns(chunk.columns)
            kept = np.ones(len(scores.values), dtype=bool)
            kept[list(scores.skipped)] = False
            sums[k] += np.asarray(scores.values)[kept].sum()
            counts[k] += kept.sum()
    return {metric_id: float(total / count) for metric_id, total, count in zip(METRICS, sums, counts)}


def evalcore_metric(metric_id: str) -> object:
    import evalcore

    return evalcore.get_metric(metric_id)


def dicts_evalcore(qrels: dict, run: dict) -> dict[str, float]:
    from evalcore_retrieval import average, evaluate_run

    return average(evaluate_run(qrels, run, list(METRICS)))


def dicts_pytrec_eval(qrels: dict, run: dict) -> dict[str, float]:
    import pytrec_eval

    return _means(pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run), 0)


def columns_evalcore(qrels: dict, run: dict) -> dict[str, float]:
    from evalcore_retrieval import average, evaluate_columns

    return average(evaluate_columns(qrels, run, list(METRICS)))


def _load(path: str, contender: str, qrels: str, run: str) -> tuple[object, object]:
    """The contender's input, prepared before the clock starts."""
    if path in ("TREC files", "command line"):
        return qrels, run
    judged, ranked = parse_dicts(qrels, run)
    if path == "dicts" or contender != "evalcore":
        return judged, ranked
    import pyarrow as pa

    def table(data: dict, value: str) -> pa.Table:
        rows = [(q, d, v) for q, docs in data.items() for d, v in docs.items()]
        return pa.table({"qid": [r[0] for r in rows], "docno": [r[1] for r in rows], value: [r[2] for r in rows]})

    return table(judged, "rel"), table(ranked, "score")


def worker(path: str, contender: str, qrels: str, run: str) -> None:
    """Run one contender once and print its time, peak RSS and means as JSON."""
    if path == "command line" and contender in ("evalcore", "before"):
        pass  # the command's start-up is part of its time
    elif contender == "evalcore":  # imports and plugin discovery are not timed
        import evalcore
        import evalcore_retrieval._columnar  # noqa: F401

        evalcore.get_metric("retrieval/map")
    elif contender == "read+measure":  # the registry and the measures' imports are not timed, the reader's are
        import evalcore

        evalcore.get_metric("retrieval/map")
    elif contender in ("pytrec_eval", "ir_measures"):
        __import__(contender)
    first, second = _load(path, contender, qrels, run)
    kind = {"TREC files": "files", "command line": "files" if contender != "evalcore" else "cli",
            "columns": "columns" if contender == "evalcore" else "dicts", "dicts": "dicts"}[path]
    if contender == "read+measure":
        kind, contender = "floor", "evalcore"
    older = contender == "before"
    if older:
        kind, contender = "cli", "evalcore"
    function = globals()[f"{kind}_{contender}"]
    if older:  # as ``python -m evalcore``: the console script is this checkout's, whose entry point
        function = functools.partial(function, program=(sys.executable, "-m", "evalcore"))  # it may lack
    start, cpu_start, children_start = time.perf_counter(), time.process_time(), _children_cpu()
    means = function(first, second)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start + _children_cpu() - children_start
    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": peak / 1024, "means": means}))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------- driver


def find_trec_eval(given: str | None, scratch: Path) -> str | None:
    """A C trec_eval binary: the one given, one on PATH, or one built from the pytrec-eval-terrier sdist."""
    if given:
        return given
    if found := shutil.which("trec_eval"):
        return found
    sdist = scratch / "sdist"
    try:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "--no-build-isolation", "pytrec-eval-terrier", "-d", str(sdist)],
                       capture_output=True, check=True, timeout=300)
        archive = next(sdist.glob("pytrec_eval*.tar.gz"))
        shutil.unpack_archive(archive, sdist)
        source = next(sdist.glob("*/trec_eval/Makefile")).parent
        subprocess.run(["make", "-C", str(source)], capture_output=True, check=True, timeout=300)
        return str(source / "trec_eval")
    except (subprocess.SubprocessError, StopIteration, OSError) as exc:
        print(f"C trec_eval skipped: no trec_eval on PATH and none could be built from the "
              f"pytrec-eval-terrier sdist ({type(exc).__name__}: its build fetches trec_eval's source "
              f"from the network); pass --trec-eval PATH")
        return None


def measure(path: str, contender: str, qrels: Path, run: Path, env: dict[str, str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", path, contender, str(qrels), str(run)],
                         capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(f"{path} / {contender} failed:\n{out.stderr}")
    return json.loads(out.stdout.splitlines()[-1])


def check(path: str, results: dict[str, list[dict]]) -> str:
    ours = results["evalcore"][0]["means"]
    notes = []
    for contender, runs in results.items():
        if contender == "evalcore":
            continue
        worst = max(abs(ours[m] - runs[0]["means"][m]) for m in METRICS)
        assert worst <= TOLERANCE[contender], f"{path}: evalcore's means differ from {contender} by {worst}"
        notes.append(f"{contender} {worst:.0e}")
    return "max |diff| of means: " + ", ".join(notes)


def targets(path: str, n: int, results: dict[str, list[dict]], ours: str) -> list[str]:
    """The measured ratios of the contenders that have a target at this size, and whether each is met."""
    base = [r["seconds"] for r in results[ours]]
    lines = []
    for (target_path, contender), wanted in TARGETS.items():
        ratio = wanted.get(n)
        if target_path != path or contender not in results or ratio is None:
            continue
        times = [r["seconds"] for r in results[contender]]
        least, middle = min(times) / min(base), statistics.median(times) / statistics.median(base)
        cpu = min(r["cpu"] for r in results[contender]) / min(r["cpu"] for r in results[ours])
        met = "met" if min(least, middle) >= ratio else "NOT met"
        lines.append(f"target {contender}/{ours} >= {ratio:g}x: min {least:.2f}x, median {middle:.2f}x ({met}; "
                     f"min CPU {cpu:.2f}x)")
    return lines


def beyond(command: list[dict], floor: list[dict]) -> str:
    """The command's time beyond reading and the measures: least and median of the runs' differences
    (each repeat's pair ran one after the other)."""
    cpu = [c["cpu"] - f["cpu"] for c, f in zip(command, floor)]
    wall = [c["seconds"] - f["seconds"] for c, f in zip(command, floor)]
    least_cpu = min(c["cpu"] for c in command) - min(f["cpu"] for f in floor)
    least_wall = min(c["seconds"] for c in command) - min(f["seconds"] for f in floor)
    return (f"beyond reading and the measures: CPU {least_cpu:.2f} s (least of each; per repeat median "
            f"{statistics.median(cpu):.2f}), wall {least_wall:.2f} s (median {statistics.median(wall):.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k queries only")
    parser.add_argument("--sizes", help="comma-separated numbers of queries (default 10000,100000)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each (default 3)")
    parser.add_argument("--trec-eval", help="path of a C trec_eval binary")
    parser.add_argument("--data", help="folder for the generated files (kept between runs)")
    parser.add_argument("--paths", help=f"comma-separated paths to measure (default all: {', '.join(PATHS)})")
    parser.add_argument("--skip", default="", help="comma-separated contenders to leave out (e.g. trec_eval)")
    parser.add_argument("--before", help="another checkout of this repository: its command line is measured "
                                         "too (contender 'before'), interleaved with this one's")
    args = parser.parse_args()
    scratch = Path(args.data or Path(tempfile.gettempdir()) / "evalcore-bench-retrieval")
    scratch.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # modules compiled once, as an installed package's are
    trec_eval = None if "trec_eval" in args.skip.split(",") else find_trec_eval(args.trec_eval, scratch)
    if trec_eval:
        env["BENCH_TREC_EVAL"] = trec_eval
    envs = {}
    if args.before:  # the older checkout's sources ahead of the installed (editable) ones
        older = Path(args.before).resolve()
        sources = [older / "core" / "src", older / "plugins" / "retrieval" / "src"]
        envs["before"] = {**env, "PYTHONPATH": os.pathsep.join(map(str, sources))}
    print(f"metrics: {', '.join(METRICS)}; {DOCS_PER_QUERY} retrieved, {JUDGED_PER_QUERY} judged per query; "
          f"{args.repeat} interleaved runs each, one subprocess per run")
    print(f"{'queries':>8} {'path':<12} {'contender':<12} {'min s':>8} {'median s':>9} {'peak MB':>8} "
          f"{'min ratio':>10} {'median ratio':>13} {'min cpu s':>10} {'cpu ratio':>10}")
    sizes = [10_000] if args.quick else [10_000, 100_000]
    for n in map(int, args.sizes.split(",")) if args.sizes else sizes:
        qrels, run = make_files(n, scratch)
        for path, (contenders, ours) in PATHS.items():
            if args.paths and path not in args.paths.split(","):
                continue
            contenders = [c for c in contenders if (c != "trec_eval" or (trec_eval and n <= TREC_EVAL_UP_TO))
                          and c not in args.skip.split(",")]
            if args.before and path == "command line":
                contenders.insert(1, "before")
            results: dict[str, list[dict]] = {c: [] for c in contenders}
            for repeat in range(args.repeat):  # each repeat starts with another contender: none always
                turn = repeat % len(contenders)  # follows the same one (a 2 GB run leaves the memory busy)
                for contender in contenders[turn:] + contenders[:turn]:
                    results[contender].append(measure(path, contender, qrels, run, envs.get(contender, env)))
            base = [r["seconds"] for r in results[ours]]
            base_cpu = min(r["cpu"] for r in results[ours])
            for contender, runs in results.items():
                times = [r["seconds"] for r in runs]
                cpu = min(r["cpu"] for r in runs)
                print(f"{n:>8} {path:<12} {contender:<12} {min(times):>8.2f} {statistics.median(times):>9.2f} "
                      f"{max(r['peak_mb'] for r in runs):>8.0f} {min(times) / min(base):>9.1f}x "
                      f"{statistics.median(times) / statistics.median(base):>12.1f}x {cpu:>10.2f} "
                      f"{cpu / base_cpu:>9.1f}x")
            print(f"{'':>8} {check(path, results)}")
            for line in targets(path, n, results, ours):
                print(f"{'':>8} {line}")
            print(f"{'':>8} load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            for name in (ours, "before"):
                if name in results and "read+measure" in results:
                    print(f"{'':>8} {name}: {beyond(results[name], results['read+measure'])}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:6])
    else:
        main()
