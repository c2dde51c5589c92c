"""Bootstrap intervals of means: several metrics' intervals drawn together equal one at a time."""

import numpy as np
import pytest
from evalcore._engine.stats import _BOOTSTRAP_BLOCK, bootstrap_interval, bootstrap_intervals
from hypothesis import given, settings
from hypothesis import strategies as st


def by_index_draws(values: np.ndarray, seed: int, n_boot: int, confidence: float,
                   block_size: int = _BOOTSTRAP_BLOCK) -> tuple[float, float]:
    """The percentile bootstrap by definition: resamples of indices, blocks as the library draws them."""
    rng = np.random.default_rng(seed)
    block = max(1, block_size // values.size)
    means = np.concatenate([
        values[rng.integers(0, values.size, size=(min(block, n_boot - start), values.size))].mean(axis=1)
        for start in range(0, n_boot, block)
    ])
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([300, 300, 300, 1000]), st.booleans()), min_size=1, max_size=9),
       st.integers(0, 2**31), st.sampled_from([0.9, 0.95]))
def test_intervals_drawn_together_equal_one_at_a_time(shapes, seed, confidence):
    rng = np.random.default_rng(seed)
    # continuous values need index draws; pass/fail values take the multinomial way
    samples = [rng.random(size) if continuous else rng.integers(0, 2, size).astype(float)
               for size, continuous in shapes]
    together = bootstrap_intervals(samples, seed=7, n_boot=200, confidence=confidence)
    alone = [bootstrap_interval(values, seed=7, n_boot=200, confidence=confidence) for values in samples]
    for interval, expected in zip(together, alone):  # many of one size: a matrix product's rounding
        assert interval == pytest.approx(expected, rel=1e-12, abs=1e-15)
    for values, interval, (_, continuous) in zip(samples, alone, shapes):
        if continuous:
            assert interval == by_index_draws(values, 7, 200, confidence)


def test_an_interval_covers_the_mean_and_nothing_scored_has_none():
    values = np.random.default_rng(3).normal(0.5, 0.1, 5000)
    low, high = bootstrap_interval(values, seed=0)
    assert low < values.mean() < high
    assert high - low == pytest.approx(2 * 1.96 * values.std() / np.sqrt(values.size), rel=0.15)
    assert bootstrap_intervals([np.array([]), values], seed=0)[0] is None


@pytest.mark.parametrize("levels", [2, 11, 150])
def test_few_distinct_values_resampled_by_counts_match_index_draws(levels):
    """The multinomial over distinct values draws the same distribution of means as indices do."""
    values = np.random.default_rng(levels).integers(0, levels, 20_000) / levels
    by_counts = bootstrap_interval(values, seed=1, n_boot=4000)
    by_indices = by_index_draws(values, 2, 4000, 0.95)
    assert by_counts != by_indices  # two ways, two sets of draws
    assert by_counts == pytest.approx(by_indices, abs=0.1 * (by_indices[1] - by_indices[0]))


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("n_arrays", [1, 2, 5])
def test_many_blocks_of_resamples_are_the_draws_in_turn(monkeypatch, n_arrays, threads):
    """Resamples drawn in many blocks: the same intervals as resampling by definition, block after
    block from one stream, by indexing or through draw counts, however many blocks are resampled
    at once (bit for bit)."""
    monkeypatch.setattr("evalcore._engine.stats._BOOTSTRAP_BLOCK", 7 * 2000)
    samples = [np.random.default_rng(k).random(2000) for k in range(n_arrays)]
    monkeypatch.setattr("evalcore._engine.stats._RESAMPLING_THREADS", 1)
    one_at_a_time = bootstrap_intervals(samples, seed=11, n_boot=52, confidence=0.9)
    monkeypatch.setattr("evalcore._engine.stats._RESAMPLING_THREADS", threads)
    together = bootstrap_intervals(samples, seed=11, n_boot=52, confidence=0.9)
    assert together == one_at_a_time
    for values, interval in zip(samples, together):
        expected = by_index_draws(values, 11, 52, 0.9, block_size=7 * 2000)
        if n_arrays > 3:
            assert interval == pytest.approx(expected, rel=1e-12, abs=1e-15)
        else:
            assert interval == expected


def test_counted_draws_with_index_draws_are_each_arrays_own_draws(monkeypatch):
    """Arrays of few distinct values beside arrays whose index draws run block after block: each
    interval bit for bit as when its array is alone, and as one multinomial draw of the counts per
    resample from the seed."""
    monkeypatch.setattr("evalcore._engine.stats._BOOTSTRAP_BLOCK", 7 * 2000)
    rng = np.random.default_rng(5)
    samples = [rng.random(2000), rng.integers(0, 3, 2000) / 2, rng.random(2000), rng.integers(0, 11, 2000) / 10]
    together = bootstrap_intervals(samples, seed=4, n_boot=60)
    assert together == [bootstrap_interval(values, seed=4, n_boot=60) for values in samples]
    for k in (1, 3):
        distinct, counts = np.unique(samples[k], return_counts=True)
        means = np.random.default_rng(4).multinomial(2000, counts / 2000, size=60) @ distinct / 2000
        assert together[k] == tuple(np.quantile(means, [0.025, 0.975]))
    for k in (0, 2):
        assert together[k] == by_index_draws(samples[k], 4, 60, 0.95, block_size=7 * 2000)
