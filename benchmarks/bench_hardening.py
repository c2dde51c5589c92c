"""What the safety measures cost, as ratios against the unguarded way, measured in one run.

Standalone: ``python benchmarks/bench_hardening.py [--repeats 7]``. Each pair is timed in
interleaved repeats (wall time for commands, which spend it in other processes; CPU time
otherwise); the minimum and the median of the repeats are printed with their ratio.

* a command under the sandbox's supervisor (new session, subreaper, allow-listed
  environment) against ``subprocess.run`` of the same command;
* a JSON Schema ``pattern`` on RE2 (:func:`evalcore.plugin.schema_validator`) against
  jsonschema's own validator on Python's ``re``;
* the caps every metric result passes through against building the result without them.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from evalcore._contract.scores import Score, Status, coerce_score
from evalcore.plugin import schema_validator
from evalcore_outcome.process import run_command
from jsonschema import Draft202012Validator

Timer = Callable[[], float]


def interleaved(pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]], repeats: int,
                clock: Timer) -> dict[str, tuple[list[float], list[float]]]:
    """Seconds per repeat of each (guarded, reference) pair, the two alternating."""
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in pairs}
    for _ in range(repeats):
        for name, (guarded, reference) in pairs.items():
            for run, into in ((guarded, times[name][0]), (reference, times[name][1])):
                started = clock()
                run()
                into.append(clock() - started)
    return times


def report(title: str, times: dict[str, tuple[list[float], list[float]]], unit: str) -> None:
    print(f"\n{title}")
    print(f"{'case':<34}{'guarded min/median':>26}{'reference min/median':>26}{'ratio (min)':>13}")
    scale = {"ms": 1e3, "us": 1e6}[unit]
    for name, (guarded, reference) in times.items():
        g = f"{min(guarded) * scale:.2f} / {statistics.median(guarded) * scale:.2f} {unit}"
        r = f"{min(reference) * scale:.2f} / {statistics.median(reference) * scale:.2f} {unit}"
        print(f"{name:<34}{g:>26}{r:>26}{min(guarded) / min(reference):>12.2f}x")


def commands(repeats: int) -> None:
    true = ["true"]
    script = [sys.executable, "-c", "print('x' * 10000)"]
    pairs = {
        "`true`": (lambda: run_command(true, timeout_s=30, env={}),
                   lambda: subprocess.run(true, capture_output=True, check=False)),
        "python printing 10 kB": (lambda: run_command(script, timeout_s=30),
                                  lambda: subprocess.run(script, capture_output=True, check=False)),
    }
    report("commands (wall time per run)", interleaved(pairs, repeats, time.perf_counter), "ms")


def patterns(repeats: int, instances: int = 2000) -> None:
    schema = {"type": "object", "properties": {
        "id": {"type": "string", "pattern": "^[a-z]{2}-[0-9]{4}$"},
        "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$"}}}
    data = [{"id": f"ab-{i:04d}", "email": f"user{i}@example.org"} for i in range(instances)]
    linear, plain = schema_validator(schema), Draft202012Validator(schema)
    assert [linear.is_valid(d) for d in data] == [plain.is_valid(d) for d in data]
    pairs = {f"{instances} instances, 2 patterns": (lambda: [linear.is_valid(d) for d in data],
                                                   lambda: [plain.is_valid(d) for d in data])}
    report("JSON Schema patterns (CPU time per batch)", interleaved(pairs, repeats, time.process_time), "ms")


def caps(repeats: int, results: int = 20000) -> None:
    score = Score(0.5, feedback="fine", details={"n_relevant": 3, "k": 10})
    # the reference is coercion's own fast path for a finished Score: the status and value checks
    pairs = {f"{results} small results": (lambda: [coerce_score(score) for _ in range(results)],
                                          lambda: [score if score.status is Status.OK and type(score.value) is float
                                                   else None for _ in range(results)])}
    report("result caps (CPU time per batch)", interleaved(pairs, repeats, time.process_time), "ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    commands(args.repeats)
    patterns(args.repeats)
    caps(args.repeats)


if __name__ == "__main__":
    main()
