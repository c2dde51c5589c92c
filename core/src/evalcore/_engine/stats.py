"""Aggregation and uncertainty: means, spreads, standard errors and bootstrap intervals."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from evalcore._contract.errors import InputError, ParameterError
from evalcore._lazy import publish

if TYPE_CHECKING:
    from evalcore._contract.array_state import ArrayStates

AggregateMethod = Literal["mean", "median", "min", "max", "trimmed_mean"]
_BOOTSTRAP_BLOCK = 1 << 18  # indices drawn at a time (2 MiB: reused memory, not fresh pages, at each block)
_INDEXED_ARRAYS = 3  # more arrays of one size are resampled through draw counts and a matrix product
_RESAMPLING_THREADS = 2  # blocks resampled at once while the next is drawn (each block's work is unchanged)


def aggregate(values: Sequence[float], method: AggregateMethod = "mean", *, trim: float = 0.1) -> float:
    """Combine values (e.g. rollouts of one example) into one.

    ``trimmed_mean`` cuts ``int(trim * n)`` values from each end after sorting, as
    ``scipy.stats.trim_mean`` does.
    """
    if not values:
        raise InputError("cannot aggregate an empty list of values", field="values")
    array = np.asarray(values, dtype=float)
    if method == "mean":
        return float(array.mean())
    if method == "median":
        return float(np.median(array))
    if method == "min":
        return float(array.min())
    if method == "max":
        return float(array.max())
    if method == "trimmed_mean":
        if not 0 <= trim < 0.5:
            raise ParameterError(f"trim must be in [0, 0.5); got {trim}")
        cut = int(trim * array.size)
        return float(np.sort(array)[cut:array.size - cut].mean())
    raise ParameterError(f"unknown aggregation {method!r}; use mean, median, min, max or trimmed_mean")


def describe_values(values: Iterable[float]) -> dict[str, float | int | None]:
    """``mean``, ``median``, ``min``, ``max``, ``std`` (sample) and ``count`` of numbers."""
    array = np.asarray([v for v in values if v is not None], dtype=float)
    if array.size == 0:
        return {"mean": None, "median": None, "min": None, "max": None, "std": None, "count": 0}
    return {
        "mean": float(array.mean()), "median": float(np.median(array)),
        "min": float(array.min()), "max": float(array.max()),
        "std": float(array.std(ddof=1)) if array.size > 1 else 0.0, "count": int(array.size),
    }


def standard_error(values: np.ndarray) -> float | None:
    """Standard error of the mean (sample standard deviation / sqrt(n))."""
    if values.size < 2:
        return None
    return float(values.std(ddof=1) / math.sqrt(values.size))


def bootstrap_interval(
    values: np.ndarray, *, seed: int, n_boot: int = 1000, confidence: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean, reproducible for a given ``seed``.

    A resample's mean depends only on how often each distinct value is drawn, so when the
    values take few distinct values (pass/fail, grades) each resample is drawn as one
    multinomial over them — the same distribution as drawing indices, at a cost that does
    not grow with the number of values. Otherwise indices are drawn in blocks of bounded
    memory.
    """
    return bootstrap_intervals([values], seed=seed, n_boot=n_boot, confidence=confidence)[0]


def bootstrap_intervals(
    samples: Sequence[np.ndarray], *, seed: int, n_boot: int = 1000, confidence: float = 0.95,
) -> list[tuple[float, float] | None]:
    """:func:`bootstrap_interval` of each array: the same numbers as one call per array
    (up to rounding in the last bits when more than three arrays share a size).

    Each array's resamples start from ``seed``, so arrays of one size that need index draws
    (many distinct values: the metrics of one run, scored on the same records) are resampled
    with the same indices: they are drawn once per block for all of them.
    """
    bounds = [(1.0 - confidence) / 2.0, 1.0 - (1.0 - confidence) / 2.0]
    means: list[np.ndarray | None] = [None] * len(samples)
    by_size: dict[int, list[int]] = {}
    for k, values in enumerate(samples):
        if values.size == 0 or n_boot == 0:
            continue
        distinct, counts = np.unique(values, return_counts=True)
        if distinct.size <= max(64, values.size // 64):  # cheaper than index draws, even shared ones
            draws = np.random.default_rng(seed).multinomial(values.size, counts / values.size, size=n_boot)
            means[k] = draws @ distinct / values.size
        else:
            by_size.setdefault(values.size, []).append(k)
    for members in by_size.values():
        group = _resampled_means([samples[k] for k in members], seed, n_boot)
        for column, k in enumerate(members):
            means[k] = group[:, column]
    return [None if m is None else _interval(np.quantile(m, bounds)) for m in means]


def _resampled_means(arrays: Sequence[np.ndarray], seed: int, n_boot: int) -> np.ndarray:
    """Each array's mean in ``n_boot`` resamples of its positions (the same positions for all).

    A few arrays are resampled by indexing; for more, a block of resamples becomes a matrix of
    how often each position is drawn, and all arrays' resampled sums are one matrix product
    (equal to indexing up to rounding in the last bits). Blocks are drawn in order on the
    calling thread while another thread resamples the block before (numpy releases the GIL in
    both), so the draws are the same as on one thread.
    """
    size = arrays[0].size
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, len(arrays)))
    stacked = np.column_stack(arrays) if len(arrays) > _INDEXED_ARRAYS else None
    block = max(1, _BOOTSTRAP_BLOCK // size)

    def resample(start: int, idx: np.ndarray) -> None:
        stop = start + len(idx)
        if stacked is None:
            for column, values in enumerate(arrays):
                out[start:stop, column] = values[idx].mean(axis=1)
            return
        counts = np.empty(idx.shape)  # float: the product runs in BLAS (counts are exact in a double)
        for row, positions in zip(counts, idx):  # one resample's counts stay in cache
            row[:] = np.bincount(positions, minlength=size)
        out[start:stop] = counts @ stacked / size

    draws = ((start, rng.integers(0, size, size=(min(start + block, n_boot) - start, size)))
             for start in range(0, n_boot, block))
    if n_boot <= block:
        for start, idx in draws:
            resample(start, idx)
        return out
    with ThreadPoolExecutor(max_workers=_RESAMPLING_THREADS) as pool:
        pending: deque[Future[None]] = deque()
        for start, idx in draws:  # the next block is drawn while the ones before are resampled
            if len(pending) == _RESAMPLING_THREADS:
                pending.popleft().result()
            pending.append(pool.submit(resample, start, idx))
        for resampling in pending:
            resampling.result()
    return out


def _interval(quantiles: np.ndarray) -> tuple[float, float]:
    low, high = quantiles
    return float(low), float(high)


def corpus_bootstrap(
    states: Sequence[Any], value_of: Callable[[Sequence[Any]], float], *, seed: int,
    n_boot: int = 200, confidence: float = 0.95,
) -> tuple[float | None, tuple[float, float] | None]:
    """Bootstrap a corpus statistic by resampling per-sample states.

    Returns the standard deviation of the replicates (the standard error) and the
    percentile interval; ``(None, None)`` with fewer than two states or when a replicate
    cannot be computed.
    """
    if len(states) < 2:
        return None, None
    rng = np.random.default_rng(seed)
    replicates = np.empty(n_boot)
    for i in range(n_boot):
        idx = rng.integers(0, len(states), size=len(states))
        replicates[i] = value_of([states[j] for j in idx])
    return _percentiles(replicates, confidence)


def declared_bootstrap(
    stacked: ArrayStates, values: Callable[[np.ndarray], np.ndarray], *, seed: int,
    n_boot: int = 200, confidence: float = 0.95,
) -> tuple[float | None, tuple[float, float] | None]:
    """:func:`corpus_bootstrap` for declared (integer array) states, with the same draws: each
    replicate's merged state comes from the counts of its draws times the statistics, and
    ``values`` gives the corpus value of many merged states at once."""
    n = len(stacked)
    if n < 2:
        return None, None
    rng = np.random.default_rng(seed)
    replicates = np.empty(n_boot)
    block = max(1, _DRAW_CELLS // n)  # replicates drawn at a time, so memory stays bounded
    for lo in range(0, n_boot, block):
        # one draw per replicate, as corpus_bootstrap makes them, so the intervals are the same
        draws = np.stack([rng.integers(0, n, size=n) for _ in range(lo, min(lo + block, n_boot))])
        replicates[lo:lo + len(draws)] = values(stacked.resampled(draws))
    return _percentiles(replicates, confidence)


_DRAW_CELLS = 4_000_000


def _percentiles(replicates: np.ndarray, confidence: float) -> tuple[float | None, tuple[float, float] | None]:
    """The replicates' standard deviation and percentile interval (``None`` if any is not finite)."""
    if not np.isfinite(replicates).all():
        return None, None
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(replicates, [alpha, 1.0 - alpha])
    return float(replicates.std(ddof=1)), (float(low), float(high))


publish(globals())
