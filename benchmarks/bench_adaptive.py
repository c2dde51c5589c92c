"""Judge calls saved by stopping a paired comparison once its confidence sequence excludes 0.

A synthetic judged run of 10,000 records scored pass/fail by a judge for two systems whose true
pass rates differ by 0.03 (0.73 against 0.70). ``--agreement`` is the share of records where
both systems' verdicts come from one shared draw (a record both find easy or hard), so they
differ only where the rates do; on the others the verdicts are independent. Per seed, the
records are taken in a random order and checked every ``--check-every`` records (as
``evaluate --target-ci-width`` does); the run stops once the paired PrPl-EB confidence
sequence (``evalcore_stats.sequential.paired_sequence``, 95 %) excludes 0, or at the end.
Scoring everything decides with a paired z-test on all records (two-sided, 5 %).

Reported over ``--seeds`` seeds: the median judge calls used (two per record) against all,
how often the sequence decided, and how often its decision (the sign) matches scoring everything.

    python benchmarks/bench_adaptive.py
    python benchmarks/bench_adaptive.py --agreement 0 --seeds 50
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from evalcore_stats.sequential import paired_sequence


def simulate(seed: int, n: int, agreement: float, rate_a: float, rate_b: float) -> tuple[np.ndarray, np.ndarray]:
    """Two systems' pass/fail verdicts on ``n`` records, in a random order."""
    rng = np.random.default_rng(seed)
    shared = rng.random(n) < agreement
    u, v, w = rng.random(n), rng.random(n), rng.random(n)
    a = np.where(shared, u < rate_a, v < rate_a).astype(float)
    b = np.where(shared, u < rate_b, w < rate_b).astype(float)
    return a, b


def full_decision(a: np.ndarray, b: np.ndarray) -> int:
    """+1 / -1 when the paired z-test over every record rejects "no difference" at 5 %, else 0."""
    d = a - b
    z = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    return int(np.sign(z)) if abs(z) > 1.959964 else 0


def sequential_decision(a: np.ndarray, b: np.ndarray, check_every: int) -> tuple[int, int]:
    """The decision (+1 / -1 / 0) and the records used when checking every ``check_every`` records."""
    _, low, high = paired_sequence(a, b, 0.0, 1.0, confidence=0.95, population=len(a))
    checks = np.minimum(np.arange(check_every, len(a) + check_every, check_every), len(a)) - 1
    decided = (low[checks] > 0) | (high[checks] < 0)
    if not decided.any():
        return 0, len(a)
    at = checks[decided.argmax()]
    return (1 if low[at] > 0 else -1), int(at) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--agreement", type=float, default=0.7)
    parser.add_argument("--check-every", type=int, default=100)
    args = parser.parse_args()
    used, same, decided, full_decided = [], 0, 0, 0
    for seed in range(args.seeds):
        a, b = simulate(seed, args.records, args.agreement, 0.73, 0.70)
        full = full_decision(a, b)
        sign, n = sequential_decision(a, b, args.check_every)
        used.append(2 * n)
        same += sign == full
        decided += sign != 0
        full_decided += full != 0
    total = 2 * args.records
    median = float(np.median(used))
    print(f"{args.records} records, true difference 0.03, agreement {args.agreement:g}, {args.seeds} seeds")
    print(f"judge calls, median: {median:.0f} of {total} ({median / total:.1%}); "
          f"min {min(used)}, max {max(used)}")
    print(f"decided by the sequence: {decided}/{args.seeds}; by scoring everything: {full_decided}/{args.seeds}")
    print(f"same decision as scoring everything: {same}/{args.seeds}")


if __name__ == "__main__":
    main()
