"""Latency: ``mean_latency``, ``quantile_latency`` (the Auepora RAG metric spec),
``technical_performance`` (the benchmark engine's registry)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from fractions import Fraction

from evalcore.plugin import CorpusMetric, Record, SampleMetric, Score

from ._timing import latency

MeanState = tuple[int, Fraction]
SortedValues = tuple[float, ...]


def quantile_index(q: float, n: int) -> int:
    """0-based index ``ceil(q * n) - 1`` of the ``q`` quantile among ``n`` sorted values.

    ``q`` is read as the decimal it is written as (``0.07 * 100`` is 7, not 7.000000000000001),
    and the index is clamped to ``[0, n - 1]`` so that ``q = 0`` gives the minimum.
    """
    if n < 1:
        raise ValueError("no values")
    return min(max(math.ceil(Fraction(repr(q)) * n) - 1, 0), n - 1)


class _LatencyMixin:
    params: dict

    def value_of(self, prediction: Record) -> float:
        return latency(prediction, timing_field=self.params["timing_field"], source=self.params["source"])


def _no_values(convention: str) -> Score:
    """The result without any latency: skipped, or the Auepora RAG metric spec's 0.0 (``convention='rag'``)."""
    if convention == "rag":
        return Score(0.0, details={"num_samples": 0})
    return Score.skipped("no latency values: every sample was skipped or the corpus is empty",
                         num_samples=0)


class MeanLatency(_LatencyMixin, CorpusMetric[MeanState]):
    """Mean latency; the state is (count, exact sum) so shards merge exactly."""

    def sample_state(self, example: Record, prediction: Record) -> MeanState:
        return 1, Fraction(self.value_of(prediction))

    def sample_value(self, state: MeanState) -> float:
        return float(state[1] / state[0])

    def merge(self, states: Sequence[MeanState | None]) -> MeanState:
        present = [s for s in states if s is not None]
        return sum(s[0] for s in present), sum((s[1] for s in present), Fraction(0))

    def compute(self, state: MeanState) -> Score:
        count, total = state
        if count == 0:
            return _no_values(self.params["convention"])
        return Score(float(total / count), details={"num_samples": count})


class QuantileLatency(_LatencyMixin, CorpusMetric[SortedValues]):
    """The ``quantile`` latency: value at index ``ceil(q * n) - 1`` of the sorted latencies."""

    def sample_state(self, example: Record, prediction: Record) -> SortedValues:
        return (self.value_of(prediction),)

    def sample_value(self, state: SortedValues) -> float:
        return state[0]

    def merge(self, states: Sequence[SortedValues | None]) -> SortedValues:
        return tuple(heapq.merge(*(s for s in states if s is not None)))

    def compute(self, state: SortedValues) -> Score:
        if not state:
            return _no_values(self.params["convention"])
        q = self.params["quantile"]
        index = quantile_index(q, len(state))
        return Score(state[index], details={"num_samples": len(state), "quantile": q, "index": index})


class TechnicalPerformance(_LatencyMixin, SampleMetric):
    """1.0 when the run succeeded and its latency is at most the threshold, else 0.0."""

    def score(self, example: Record, prediction: Record) -> Score:
        value = self.value_of(prediction)
        threshold = self.params["latency_threshold_ms"]
        fast_enough = value <= threshold
        status = prediction.get("status")
        status_ok = status is None or str(status).lower() in {s.lower() for s in self.params["ok_statuses"]}
        details = {"latency_ms": value, "fast_enough": fast_enough, "status": status, "status_ok": status_ok}
        problems = []
        if not fast_enough:
            problems.append(f"latency {value:g} > {threshold:g}")
        if not status_ok:
            problems.append(f"status {status!r}")
        feedback = "; ".join(problems) or f"latency {value:g} <= {threshold:g}"
        return Score(float(fast_enough and status_ok), feedback=feedback, details=details)
