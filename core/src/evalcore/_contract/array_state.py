"""Corpus states declared as numeric arrays: merging and resampling without a loop per record.

A corpus metric that declares its ``state_fields`` (column name -> reduction, as torchmetrics'
``add_state(..., dist_reduce_fx=...)``) gives each record's sufficient statistics as a 1-D integer
array in that column order. Then:

* merging is a column-wise reduction (``sum``, ``min`` or ``max``) of the stacked rows;
* a bootstrap resample is a vector of how often each record was drawn, so the summed columns of
  many resamples are one matrix product (resample counts x per-record statistics), and the
  ``min`` / ``max`` columns are reductions over the drawn rows;
* approximate randomisation swaps records between two systems by a boolean mask, so the summed
  columns of every trial are ``mask @ (base - system) + sum(system)``.

Integer statistics stay exact: a product runs in float64 (BLAS) only when every partial sum is
an integer below 2**53, where floating-point addition is exact in any order; otherwise it runs
on int64 (or Python integers), never rounding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

Reduction = Literal["sum", "min", "max"]

_EXACT_FLOAT = 2 ** 53
_EXACT_INT64 = 2 ** 62
_CELLS_PER_BLOCK = 4_000_000
"""Resample rows are processed in blocks of at most this many (resample x record) cells."""


class ArrayStates:
    """Per-record states of one corpus metric stacked into a matrix (records x columns)."""

    def __init__(self, fields: Mapping[str, Reduction], rows: Sequence[np.ndarray] | np.ndarray) -> None:
        self.reductions = tuple(fields.values())
        width = len(self.reductions)
        matrix = np.asarray(rows) if len(rows) else np.zeros((0, width), dtype=np.int64)
        if matrix.ndim != 2 or matrix.shape[1] != width:
            raise ValueError(f"expected per-record states of {width} columns, got shape {matrix.shape}")
        if matrix.dtype.kind not in "iu":
            raise ValueError(f"declared corpus states must be integers, got {matrix.dtype}")
        self.matrix = matrix.astype(np.int64, copy=False)
        self._sum = np.array([r == "sum" for r in self.reductions])

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def merged(self) -> np.ndarray:
        """All records' states reduced into one."""
        return reduce_rows(self.matrix, self.reductions)

    def resampled(self, idxs: np.ndarray) -> np.ndarray:
        """The merged state of each resample (one row of record indices per resample)."""
        out = np.empty((idxs.shape[0], self.matrix.shape[1]), dtype=np.int64)
        n = len(self)
        block = max(1, _CELLS_PER_BLOCK // max(n, 1))
        for lo in range(0, idxs.shape[0], block):
            rows = idxs[lo:lo + block]
            if self._sum.any():
                flat = (rows + n * np.arange(rows.shape[0])[:, None]).ravel()
                counts = np.bincount(flat, minlength=rows.shape[0] * n).reshape(rows.shape[0], n)
                out[lo:lo + block, self._sum] = _exact_matmul(counts, self.matrix[:, self._sum], bound=n)
            for j in self._extreme_columns():
                out[lo:lo + block, j] = getattr(self.matrix[:, j][rows], self.reductions[j])(axis=1)
        for j, value in self._constant_columns().items():
            out[:, j] = value
        return out

    def _constant_columns(self, *others: ArrayStates) -> dict[int, int]:
        """The ``min`` / ``max`` columns holding one value in every row (of ``others`` too): any
        selection of rows reduces to that value (the common case: every sample has as many
        references)."""
        constant = {}
        for j, how in enumerate(self.reductions):
            if how != "sum" and len(self):
                column = np.concatenate([self.matrix[:, j], *(o.matrix[:, j] for o in others)])
                if column.min() == column.max():
                    constant[j] = int(column[0])
        return constant

    def _extreme_columns(self, *others: ArrayStates) -> list[int]:
        """The ``min`` / ``max`` columns that must be reduced row by row."""
        constant = self._constant_columns(*others)
        return [j for j, how in enumerate(self.reductions) if how != "sum" and j not in constant]

    def swapped(self, system: ArrayStates, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Approximate randomisation: per trial (a row of ``mask``), the merged state of the
        pseudo-system taking this run's record where the mask is true (else ``system``'s),
        and of its complement."""
        trials, width = mask.shape[0], self.matrix.shape[1]
        a = np.empty((trials, width), dtype=np.int64)
        b = np.empty((trials, width), dtype=np.int64)
        if self._sum.any():
            base_sums, system_sums = self.matrix[:, self._sum], system.matrix[:, self._sum]
            difference = base_sums - system_sums
            bound = int(np.abs(difference).sum(axis=0).max(initial=0))
            block = max(1, _CELLS_PER_BLOCK // max(len(self), 1))
            for lo in range(0, trials, block):
                shift = _exact_matmul(mask[lo:lo + block], difference, bound=1, magnitude=bound)
                a[lo:lo + block, self._sum] = system_sums.sum(axis=0) + shift
                b[lo:lo + block, self._sum] = base_sums.sum(axis=0) - shift
        for j in self._extreme_columns(system):
            pick = getattr(np, self.reductions[j])
            a[:, j] = pick(np.where(mask, self.matrix[:, j], system.matrix[:, j]), axis=1)
            b[:, j] = pick(np.where(mask, system.matrix[:, j], self.matrix[:, j]), axis=1)
        for j, value in self._constant_columns(system).items():
            a[:, j] = b[:, j] = value
        return a, b


_IDENTITY = {"sum": 0, "min": int(np.iinfo(np.int64).max), "max": int(np.iinfo(np.int64).min)}


def reduce_rows(matrix: np.ndarray, reductions: Sequence[Reduction]) -> np.ndarray:
    """Reduce stacked states column by column; with no rows, each reduction's identity (0 for a
    sum, the largest integer for a minimum, the smallest for a maximum), so an empty state merges
    away."""
    if matrix.shape[0] == 0:
        return np.array([_IDENTITY[how] for how in reductions], dtype=np.int64)
    return np.array([int(getattr(matrix[:, j], how)()) for j, how in enumerate(reductions)], dtype=np.int64)


def _exact_matmul(left: np.ndarray, right: np.ndarray, *, bound: int, magnitude: int | None = None) -> np.ndarray:
    """``left @ right`` for integer matrices, exactly.

    ``bound`` is the largest row sum of ``|left|``; ``magnitude`` the largest column sum of
    ``|right|`` when that is the tighter limit (else ``bound`` times the largest entry).
    """
    if magnitude is None:
        magnitude = bound * int(np.abs(right).max(initial=0))
    if magnitude < _EXACT_FLOAT:
        return np.rint(left.astype(np.float64) @ right.astype(np.float64)).astype(np.int64)
    if magnitude < _EXACT_INT64:
        return left.astype(np.int64) @ right.astype(np.int64)
    exact = left.astype(object) @ right.astype(object)
    if np.abs(exact).max(initial=0) >= 2 ** 63:
        raise OverflowError("a summed corpus statistic does not fit in 64 bits")
    return exact.astype(np.int64)
