"""evalcore-runs: finished runs read back (an EvaluationResult, a JSON report or a rows journal) as
:class:`Run` objects, for the extensions that compare and show them, and what identifies a finished
run for the trackers that log it (:func:`run_parameters`, :func:`check_answers`)."""

from __future__ import annotations

from .destinations import check_answers
from .parameters import run_parameters
from .saved import Run, RunLike, load_run, load_runs, metric_of

__all__ = ["Run", "RunLike", "check_answers", "load_run", "load_runs", "metric_of", "run_parameters"]
