"""The paired confidence sequence of two systems' per-record values (``compare --sequential``):
it covers the true mean difference at the nominal rate, and decides only real differences."""

from __future__ import annotations

import math

import evalcore.plugin
import numpy as np
from evalcore_stats.sequential import paired_difference_interval, paired_sequence

RUNS = 1000
RECORDS = 1000
NOMINAL = 0.95
# three binomial standard errors below the nominal level over RUNS simulated runs
MARGIN = 3 * math.sqrt(NOMINAL * (1 - NOMINAL) / RUNS)


def test_paired_sequence_decides_only_real_differences() -> None:
    rng = np.random.default_rng(8)
    a = (rng.random((RUNS, RECORDS)) < 0.6).astype(float)
    same = np.where(rng.random((RUNS, RECORDS)) < 0.8, a, (rng.random((RUNS, RECORDS)) < 0.6).astype(float))
    _, low, high = paired_sequence(a, same, 0.0, 1.0, population=RECORDS)
    truth = (a - same).mean(axis=1)[:, None]
    assert ((low <= truth) & (truth <= high)).all(axis=1).mean() >= NOMINAL - MARGIN
    better = np.where(rng.random((RUNS, RECORDS)) < 0.8, a, 0.0)  # b loses 20 % of a's wins
    _, low, _ = paired_sequence(a, better, 0.0, 1.0, population=RECORDS)
    assert (low[:, -1] > 0).mean() > 0.99  # decided: the sequence excludes 0


def test_the_interval_is_the_last_of_the_difference_sequence_in_the_seeded_order() -> None:
    rng = np.random.default_rng(3)
    baseline, system = rng.random(50), rng.random(50)
    order = np.argsort(evalcore.plugin.draw_keys(range(50), 4), kind="stable")
    # the definition: the sequence of the mean of system - baseline, in [-1, 1], over the drawn order
    centre, low, high = evalcore.plugin.mean_sequence(system[order] - baseline[order], -1.0, 1.0)
    interval = paired_difference_interval(baseline, system, 0.0, 1.0, seed=4)
    assert (interval.estimate, interval.low, interval.high, interval.n) == (centre[-1], low[-1], high[-1], 50)
    assert paired_difference_interval([], [], 0.0, 1.0) is None
    assert evalcore.plugin.paired_difference_interval is paired_difference_interval
