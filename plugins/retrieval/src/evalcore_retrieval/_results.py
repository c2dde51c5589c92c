"""Per-query results held as columns, read as ``{qid: {metric id: value}}``."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property

import numpy as np


class QueryScores(Mapping[str, Mapping[str, float]]):
    """``{qid: {metric id: value}}`` over a (queries x metrics) matrix, NaN where a metric skipped.

    A query every metric skipped is not a key; a metric that skipped a query is not in
    that query's mapping. Without metrics, the queries ``scored`` marks are the keys, each
    with an empty mapping. Rows are built when asked for; :meth:`column` gives a metric's
    values as an array and :meth:`mean` trec_eval's ``all`` value without building them.
    """

    def __init__(self, qids: Sequence[str], metric_ids: Sequence[str], matrix: np.ndarray,
                 scored: np.ndarray | None = None) -> None:
        self._qids = qids
        self.metric_ids = list(metric_ids)
        self._matrix = matrix
        self._scored = scored

    @cached_property
    def _kept(self) -> np.ndarray:
        if not self.metric_ids:
            if self._scored is None:
                return np.zeros(0, dtype=np.int64)
            return np.flatnonzero(self._scored)
        return np.flatnonzero(~np.isnan(self._matrix).all(axis=1))

    @cached_property
    def _row(self) -> dict[str, int]:
        kept = self._kept.tolist()
        return dict(zip([self._qids[i] for i in kept], kept))

    def __getitem__(self, qid: str) -> dict[str, float]:
        row = self._matrix[self._row[qid]].tolist()
        return {m: v for m, v in zip(self.metric_ids, row) if not math.isnan(v)}

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, qid: object) -> bool:
        return qid in self._row

    def __repr__(self) -> str:
        return f"QueryScores({len(self)} queries x {self.metric_ids})"

    def column(self, metric_id: str) -> tuple[list[str], np.ndarray]:
        """The queries a metric scored and its values for them, in query order."""
        values = self._matrix[:, self.metric_ids.index(metric_id)]
        scored = np.flatnonzero(~np.isnan(values))
        return [self._qids[i] for i in scored.tolist()], values[scored]

    def values(self, metric_id: str) -> np.ndarray:
        """A metric's values for the queries it scored, in query order (:meth:`column` without the queries)."""
        values = self._matrix[:, self.metric_ids.index(metric_id)]
        return values[~np.isnan(values)]

    def mean(self) -> dict[str, float]:
        """The mean of each metric over the queries it scored (absent when it scored none)."""
        means = {}
        for metric_id in self.metric_ids:
            values = self.values(metric_id)
            if len(values):
                means[metric_id] = sum(values.tolist()) / len(values)
        return means
