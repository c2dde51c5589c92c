"""Start-up time of the ``evalcore`` command, against a bare Python interpreter, printed as ratios.

Standalone: ``python benchmarks/bench_startup.py [--repeats 15]``. Each round starts, in turn, a
bare interpreter (``python -c pass``), ``evalcore --help`` and ``evalcore list`` as fresh processes
(interleaved, so other load on the machine hits every command alike); the table shows the least and
the median wall time of each and its ratio to the bare interpreter. The targets are 80 ms for
``--help`` and 150 ms for ``list``. ``python -X importtime -m evalcore list`` shows where the time goes.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "evalcore --help": [sys.executable, "-m", "evalcore", "--help"],
    "evalcore list": [sys.executable, "-m", "evalcore", "list"],
}
TARGET_MS = {"evalcore --help": 80.0, "evalcore list": 150.0}


def wall_ms(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def measure(repeats: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for command in COMMANDS.values():  # one unmeasured round fills the file-system cache
        wall_ms(command)
    for _ in range(repeats):
        for name, command in COMMANDS.items():
            times[name].append(wall_ms(command))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    times = measure(args.repeats)
    base = min(times["python -c pass"])
    print(f"{'command':<18}{'min ms':>9}{'median ms':>11}{'min / python':>14}{'target ms':>11}")
    for name, values in times.items():
        target = TARGET_MS.get(name)
        print(f"{name:<18}{min(values):>9.1f}{statistics.median(values):>11.1f}{min(values) / base:>14.2f}"
              f"{(f'{target:.0f}' if target else '-'):>11}")


if __name__ == "__main__":
    main()
