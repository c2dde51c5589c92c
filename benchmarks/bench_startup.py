"""Start-up time of the ``evalcore`` command, against a bare Python interpreter, printed as ratios.

Standalone: ``python benchmarks/bench_startup.py [--repeats 15]``. Each round starts, in turn, a
bare interpreter (``python -c pass``), ``evalcore --help`` and ``evalcore list`` three ways, every
one a fresh process (interleaved, so other load on the machine hits every command alike):

* ``list, cached``: the listing cache file exists and is valid (the usual case);
* ``list, no cache file``: the file was removed before the run, which loads every plugin and
  writes the file again (the first run after installing or upgrading a plugin);
* ``list --no-cache``: loads every plugin, neither reads nor writes the cache.

The cache lives in a temporary ``EVALCORE_CACHE_DIR``; ``PYTHONDONTWRITEBYTECODE`` is removed from
the commands' environment, so they run from compiled bytecode as an installed package does. The
table shows the least and the median wall time and CPU time (user + system of the child) of each,
and the least wall time's ratio to the bare interpreter. The targets are 80 ms for ``--help`` and 150 ms for ``list``.
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
TARGET_MS = {"evalcore --help": 80.0, "list, cached": 150.0}


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


def cases(cache_dir: str) -> dict[str, tuple[list[str], Callable[[], None]]]:
    """Each measured command with what to do (untimed) before it runs."""

    def remove_cache_files() -> None:
        folder = os.path.join(cache_dir, "listing")
        for name in os.listdir(folder) if os.path.isdir(folder) else ():
            os.unlink(os.path.join(folder, name))

    return {
        "python -c pass": ([sys.executable, "-c", "pass"], _nothing),
        "evalcore --help": ([*EVALCORE, "--help"], _nothing),
        "list, cached": ([*EVALCORE, "list"], _nothing),
        "list, no cache file": ([*EVALCORE, "list"], remove_cache_files),
        "list --no-cache": ([*EVALCORE, "list", "--no-cache"], _nothing),
    }


def measure(repeats: int, cache_dir: str) -> dict[str, list[tuple[float, float]]]:
    env = {**os.environ, "EVALCORE_CACHE_DIR": cache_dir}
    for name in ("EVALCORE_NO_LIST_CACHE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    todo = cases(cache_dir)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in todo}
    for command, prepare in todo.values():  # one unmeasured round fills the file-system and bytecode caches
        prepare()
        run_ms(command, env)
    for _ in range(repeats):
        for name, (command, prepare) in todo.items():
            prepare()
            times[name].append(run_ms(command, env))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache_dir:
        times = measure(args.repeats, cache_dir)
    base = min(wall for wall, _ in times["python -c pass"])
    print(f"{'command':<22}{'wall min':>9}{'median':>8}{'cpu min':>9}{'median':>8}{'min / python':>14}"
          f"{'target':>8}   (ms, {args.repeats} interleaved runs each)")
    for name, values in times.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        target = TARGET_MS.get(name)
        print(f"{name:<22}{min(walls):>9.1f}{statistics.median(walls):>8.1f}{min(cpus):>9.1f}"
              f"{statistics.median(cpus):>8.1f}{min(walls) / base:>14.2f}{(f'{target:.0f}' if target else '-'):>8}")


if __name__ == "__main__":
    main()
