"""Comparing saved runs: loading them, paired significance tests, correction and output."""

from .compare import RecordMismatchError, compare
from .load import Run, load_run, load_runs
from .result import Comparison, MetricComparison, TestOutcome

__all__ = [
    "Comparison", "MetricComparison", "RecordMismatchError", "Run", "TestOutcome", "compare", "load_run", "load_runs",
]
