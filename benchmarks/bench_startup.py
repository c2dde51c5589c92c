"""Start-up time of the ``evalcore`` command, against a bare Python interpreter, printed as ratios.

Standalone: ``python benchmarks/bench_startup.py [--repeats 15]``. Each round starts, in turn, a
bare interpreter (``python -c pass``), ``evalcore --help``, ``evalcore list`` three ways, the Python
API's listing and a small evaluation, every one a fresh process (interleaved, so other load on the
machine hits every command alike):

* ``list, cached``: the listing cache file exists and is valid (the usual case);
* ``list, no cache file``: the file was removed before the run, which loads every plugin and
  writes the file again (the first run after installing or upgrading a plugin);
* ``list --no-cache``: loads every plugin, neither reads nor writes the cache;
* ``list_metrics(), cached``: ``python -c "import evalcore; evalcore.list_metrics()"`` with a valid
  listing cache (its own cache folder, so removing the command's file does not touch it);
* ``evaluate JSONL, 1 metric``: ``evalcore evaluate examples/rag.jsonl -m overlap/exact_match``
  (12 records, one cheap metric), its output files removed before each run.

The cache lives in a temporary ``EVALCORE_CACHE_DIR``; ``PYTHONDONTWRITEBYTECODE`` is removed from
the commands' environment, so they run from compiled bytecode as an installed package does. The
table shows the least and the median wall time and CPU time (user + system of the child) of each,
and the least wall time's ratio to the bare interpreter, and the median's to the bare median. The
targets are 80 ms for ``--help`` and ``list_metrics()``, and 150 ms for ``list``.
``python -X importtime -m evalcore list`` shows where the time goes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

EVALCORE = [sys.executable, "-m", "evalcore"]
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "rag.jsonl")
TARGET_MS = {"evalcore --help": 80.0, "list, cached": 150.0, "list_metrics(), cached": 80.0}


def _nothing() -> None:
    pass


def _child_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ms(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one run of ``command``."""
    cpu = _child_cpu_s()
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = (time.perf_counter() - start) * 1000
    return wall, (_child_cpu_s() - cpu) * 1000


def cases(cache_dir: str) -> dict[str, tuple[list[str], Callable[[], None], str]]:
    """Each measured command with what to do (untimed) before it runs and its cache folder."""

    def remove_files(folder: str) -> Callable[[], None]:
        def remove() -> None:
            for name in os.listdir(folder) if os.path.isdir(folder) else ():
                os.unlink(os.path.join(folder, name))

        return remove

    output = os.path.join(cache_dir, "evaluate")
    os.makedirs(output, exist_ok=True)

    api_cache = os.path.join(cache_dir, "api")  # not emptied by "list, no cache file"
    return {
        "python -c pass": ([sys.executable, "-c", "pass"], _nothing, cache_dir),
        "evalcore --help": ([*EVALCORE, "--help"], _nothing, cache_dir),
        "list, cached": ([*EVALCORE, "list"], _nothing, cache_dir),
        "list, no cache file": ([*EVALCORE, "list"], remove_files(os.path.join(cache_dir, "listing")), cache_dir),
        "list --no-cache": ([*EVALCORE, "list", "--no-cache"], _nothing, cache_dir),
        "list_metrics(), cached": ([sys.executable, "-c", "import evalcore; evalcore.list_metrics()"], _nothing,
                                   api_cache),
        "evaluate JSONL, 1 metric": ([*EVALCORE, "evaluate", EXAMPLE, "-m", "overlap/exact_match",
                                      "-o", os.path.join(output, "result.json")], remove_files(output), cache_dir),
    }


def measure(repeats: int, cache_dir: str) -> dict[str, list[tuple[float, float]]]:
    env = {**os.environ, "EVALCORE_CACHE_DIR": cache_dir}
    for name in ("EVALCORE_NO_LIST_CACHE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    todo = cases(cache_dir)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in todo}
    for command, prepare, folder in todo.values():  # one unmeasured round fills the file-system and bytecode caches
        prepare()
        run_ms(command, {**env, "EVALCORE_CACHE_DIR": folder})
    for _ in range(repeats):
        for name, (command, prepare, folder) in todo.items():
            prepare()
            times[name].append(run_ms(command, {**env, "EVALCORE_CACHE_DIR": folder}))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache_dir:
        times = measure(args.repeats, cache_dir)
    bare = [wall for wall, _ in times["python -c pass"]]
    base, base_median = min(bare), statistics.median(bare)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{'command':<26}{'wall min':>9}{'median':>8}{'cpu min':>9}{'median':>8}{'min / python':>14}"
          f"{'median / python':>17}{'target':>8}   (ms, {args.repeats} interleaved runs each; load {load})")
    for name, values in times.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        target = TARGET_MS.get(name)
        print(f"{name:<26}{min(walls):>9.1f}{statistics.median(walls):>8.1f}{min(cpus):>9.1f}"
              f"{statistics.median(cpus):>8.1f}{min(walls) / base:>14.2f}"
              f"{statistics.median(walls) / base_median:>17.2f}{(f'{target:.0f}' if target else '-'):>8}")


if __name__ == "__main__":
    main()
