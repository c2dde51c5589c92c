"""The Ray executor with 1 and 2 workers against the local executor, printed as ratios.

Standalone, with evalcore-ray installed (``pip install -e extensions/ray``; ``nox -s bench``
installs it): ``python benchmarks/bench_ray.py [--records 20000] [--slow-records 2000]
[--repeat 3]``. Three helper processes stay up for the whole run: one runs the local
executor, one a local Ray instance with 1 CPU, one with 2 CPUs (Ray is started and its
workers warmed once, outside the timings). The parent asks them in turn, repeat after
repeat, to evaluate the same records with a cheap metric (``overlap/token_f1``) and a
slow one (a synchronous metric that sleeps 5 ms per sample, like a remote call), so
every configuration sees the same machine load; wall times, min and median. Every run
also checks that the aggregates equal the local executor's.

``--cluster`` measures a real two-node Ray cluster on this machine instead: ``ray start
--head`` and a second ``ray start --address`` each give the cluster their own CPU
(``--cpus-per-node``), and ``evalcore evaluate FILE --executor ray --ray-address ...``
runs against it as a user's command would, beside the same command with the local
executor, interleaved, at each size of ``--sizes`` (a CPU-bound metric,
``overlap/sentence_bleu``, on generated JSON lines; whole commands timed, start-up and
connecting included). Every pair checks that the aggregates are equal; the cluster is
stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from typing import Any

CONFIGS = {"local": 0, "ray, 1 worker": 1, "ray, 2 workers": 2}


def records(n: int) -> list[dict[str, Any]]:
    words = "the capital of france is paris and berlin is the capital of germany".split()
    return [{"id": f"r{i}", "example": {"reference_answer": " ".join(words[i % 5:i % 5 + 6])},
             "prediction": {"response": " ".join(words[(i * 7) % 6:(i * 7) % 6 + 5])}} for i in range(n)]


def sleepy(gold: Any, pred: Any, trace: Any = None) -> float:
    """An I/O-bound metric: waits 5 ms (a model or service call), then compares."""
    time.sleep(0.005)
    return float(pred.response.split()[0] in gold.reference_answer)


def serve(workers: int, args: argparse.Namespace) -> None:
    """Evaluate on request (one metric name per stdin line); print the time and the aggregates."""
    import evalcore

    options: dict[str, Any] = {"chunk_size": args.chunk_size, "progress": False, "n_boot": 200}
    if workers:
        import ray

        ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
        options["executor"] = "ray"
    data = {"cheap": records(args.records), "slow": records(args.slow_records)}
    metrics = {"cheap": "overlap/token_f1", "slow": sleepy}
    for kind in metrics:  # warm up: workers started, plugins imported
        evalcore.evaluate(data[kind][: args.chunk_size * 4], [metrics[kind]], **options)
    print("ready", flush=True)
    for line in sys.stdin:
        kind = line.strip()
        start = time.perf_counter()
        result = evalcore.evaluate(data[kind], [metrics[kind]], **options)
        elapsed = time.perf_counter() - start
        print(json.dumps({"s": elapsed, "metrics": result.to_dict()["metrics"]}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=20_000, help="records for the cheap metric")
    parser.add_argument("--slow-records", type=int, default=2000, help="records for the sleeping metric")
    parser.add_argument("--chunk-size", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cluster", action="store_true", help="a two-node Ray cluster against the local executor")
    parser.add_argument("--sizes", default="10000,100000,1000000", help="--cluster: records per run")
    parser.add_argument("--cpus-per-node", type=int, default=1, help="--cluster: CPUs each Ray node offers")
    parser.add_argument("--metric", default="overlap/sentence_bleu", help="--cluster: the metric")
    args = parser.parse_args()
    if args.cluster:
        cluster(args)
        return
    if args.serve is not None:
        serve(args.serve, args)
        return
    passed = [f"--records={args.records}", f"--slow-records={args.slow_records}", f"--chunk-size={args.chunk_size}"]
    helpers = {name: subprocess.Popen([sys.executable, __file__, f"--serve={workers}", *passed], text=True,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
               for name, workers in CONFIGS.items()}
    try:
        for name, helper in helpers.items():
            if helper.stdout.readline().strip() != "ready":  # type: ignore[union-attr]
                raise SystemExit(f"the {name} helper failed to start")
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for kind in ("cheap", "slow"):
                reference = None
                for name, helper in helpers.items():
                    helper.stdin.write(kind + "\n")  # type: ignore[union-attr]
                    helper.stdin.flush()  # type: ignore[union-attr]
                    answer = json.loads(helper.stdout.readline())  # type: ignore[union-attr]
                    reference = reference or answer["metrics"]
                    assert answer["metrics"] == reference, f"{name}: aggregates differ from the local run's"
                    times.setdefault((kind, name), []).append(answer["s"])
    finally:
        for helper in helpers.values():
            helper.stdin.close()  # type: ignore[union-attr]
            helper.wait(timeout=120)
    report(times, args)


def report(times: dict[tuple[str, str], list[float]], args: argparse.Namespace) -> None:
    print(f"{os.cpu_count()} CPUs; chunk_size={args.chunk_size}; {args.repeat} interleaved repeats; "
          "identical aggregates in every run")
    for kind, what in (("cheap", f"overlap/token_f1, {args.records} records"),
                       ("slow", f"sleeping 5 ms per sample, {args.slow_records} records")):
        print(f"\n{what}")
        local_min = min(times[(kind, "local")])
        local_median = statistics.median(times[(kind, "local")])
        for name in CONFIGS:
            values = times[(kind, name)]
            low, mid = min(values), statistics.median(values)
            print(f"  {name:15s} min {low:7.3f} s  median {mid:7.3f} s  "
                  f"speed vs local (>1: faster): min {local_min / low:5.2f}x  median {local_median / mid:5.2f}x")
        one, two = times[(kind, "ray, 1 worker")], times[(kind, "ray, 2 workers")]
        print(f"  2 workers vs 1: min {min(one) / min(two):5.2f}x  "
              f"median {statistics.median(one) / statistics.median(two):5.2f}x faster")


def write_records(path: str, n: int) -> None:
    """``n`` translation-like records (a 30-word response and reference), as JSON lines."""
    words = ("the committee approved a new budget for public transport while the city council delayed "
             "its vote on housing because several members asked for more time to read the report").split()
    with open(path, "w") as out:
        for i in range(n):
            ref = " ".join(words[(i + j * 7) % len(words)] for j in range(30))
            hyp = " ".join(words[(i * 3 + j * 7) % len(words)] for j in range(30))
            out.write(json.dumps({"id": f"r{i}", "example": {"reference_answer": ref},
                                  "prediction": {"response": hyp}}) + "\n")


# The cluster uses Ray's token authentication (its default for `ray start`): every command
# that starts a node or joins the cluster gets the same token.
CLUSTER_ENV = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def ray_cli(*arguments: str) -> None:
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ray"), *arguments], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CLUSTER_ENV)


def evaluate_s(path: str, metric: str, *extra: str) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one ``evalcore evaluate`` command, and its aggregates."""
    command = [sys.executable, "-m", "evalcore", "evaluate", path, "-m", metric, "--json", "--no-progress", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=CLUSTER_ENV)
    elapsed = time.perf_counter() - start
    return elapsed, json.loads(done.stdout)["metrics"]


def cluster(args: argparse.Namespace) -> None:
    """Two Ray nodes on this machine against the local executor, at each size."""
    import tempfile

    port = 6390
    address = f"127.0.0.1:{port}"
    sizes = [int(size) for size in args.sizes.split(",")]
    common = ["--node-ip-address=127.0.0.1", f"--num-cpus={args.cpus_per_node}", "--disable-usage-stats"]
    times: dict[tuple[int, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        ray_cli("start", "--head", f"--port={port}", "--include-dashboard=false", *common)
        try:
            ray_cli("start", f"--address={address}", *common)
            for size in sizes:
                path = os.path.join(folder, f"records-{size}.jsonl")
                write_records(path, size)
                for _ in range(args.repeat):
                    ray_s, remote = evaluate_s(path, args.metric, "--executor=ray", f"--ray-address={address}",
                                               f"--chunk-size={args.chunk_size}")
                    local_s, local = evaluate_s(path, args.metric)
                    assert remote == local, f"{size} records: the cluster's aggregates differ from the local run's"
                    times.setdefault((size, "local"), []).append(local_s)
                    times.setdefault((size, "cluster"), []).append(ray_s)
                os.unlink(path)
        finally:
            ray_cli("stop", "--force")
    print(f"{os.cpu_count()} CPUs; two Ray nodes with {args.cpus_per_node} CPU each; {args.metric}; "
          f"cluster chunks of {args.chunk_size}; {args.repeat} interleaved repeats; identical aggregates in every run")
    print(f"{'records':>9}  {'local min / median':>20}  {'cluster min / median':>22}  cluster speed-up (>1: faster)")
    for size in sizes:
        local, remote = times[(size, "local")], times[(size, "cluster")]
        print(f"{size:>9}  {min(local):8.2f} / {statistics.median(local):6.2f} s  "
              f"{min(remote):10.2f} / {statistics.median(remote):6.2f} s  "
              f"min {min(local) / min(remote):5.2f}x  "
              f"median {statistics.median(local) / statistics.median(remote):5.2f}x")


if __name__ == "__main__":
    main()
