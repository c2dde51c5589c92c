"""evalcore-runs: finished runs read back (an EvaluationResult, a JSON report or a rows journal) as
:class:`Run` objects, for the extensions that compare and show them."""

from __future__ import annotations

from .saved import Run, RunLike, load_run, load_runs

__all__ = ["Run", "RunLike", "load_run", "load_runs"]
