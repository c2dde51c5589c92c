"""A drop-in for ``dspy.Evaluate`` that also keeps evalcore's report of the run.

Change ``from dspy import Evaluate`` to ``from evalcore.dspy import Evaluate``. It *is* a
``dspy.Evaluate`` (a subclass), and runs as DSPy's does, on DSPy's own ``ParallelExecutor``:
the same constructor arguments and defaults, programs called as ``program(**example.inputs())``
and metrics as ``metric(example, prediction)``, ``num_threads=1`` on the calling thread,
``max_errors`` (default ``dspy.settings.max_errors``) cancelling outstanding work once reached
and then raising DSPy's ``Exception("Execution cancelled due to errors or interruption.")``,
Ctrl-C raising ``KeyboardInterrupt``, ``provide_traceback=None`` following
``dspy.settings.provide_traceback``, the caller's ``dspy.context`` and callback lineage reaching
every worker, and DSPy's ``on_evaluate_start`` / ``on_evaluate_end`` callbacks firing around the
call. The result is DSPy's own ``EvaluationResult`` (``score`` in percent, ``results`` as
``(example, prediction, score)`` triples, a failed example scored ``failure_score``).

The finished scores then go through :func:`evalcore.evaluate`: the report of the last call
(the mean with its bootstrap interval, errors by type, provenance) is kept in
:attr:`Evaluate.report`, and the report options ``output``, ``samples``, ``csv``, ``seed``,
``n_boot`` and ``confidence`` may be passed to the constructor.

:func:`evalcore.dspy.as_program` (:mod:`evalcore_dropins.programs`) turns a ``dspy.Module`` into a
program for :func:`evalcore.evaluate`, called with the record fields the module takes as inputs.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import logging
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dspy
from dspy.evaluate.evaluate import EvaluationResult
from dspy.utils.callback import with_callbacks
from dspy.utils.parallelizer import ParallelExecutor
from evalcore import EvalcoreError, ParameterError, evaluate
from evalcore.plugin import check_options

__all__ = ["Evaluate"]

logger = logging.getLogger("dspy.evaluate.evaluate")  # DSPy's: its messages show and filter as dspy.Evaluate's

RETURN_OUTPUTS_ERROR = (
    "`return_outputs` is no longer supported. Results are always returned inside the `results` field "
    "of the `EvaluationResult` object."
)
# evalcore.evaluate options about the report, which Evaluate passes on; DSPy ignores other keyword arguments.
REPORT_OPTIONS = ("output", "samples", "csv", "seed", "n_boot", "confidence")
# evalcore.evaluate options about running programs and metrics: those run on DSPy's executor instead.
RUN_OPTIONS = ("budget_msats", "timeout_s", "cache_mode", "cache_dir")
_INDEX = "dspy_index"


class Evaluate(dspy.Evaluate):
    """``dspy.Evaluate`` that also keeps evalcore's report of each call (see the module docstring)."""

    def __init__(
        self, *, devset: Sequence[Any], metric: Callable[..., Any] | None = None, num_threads: int | None = None,
        display_progress: bool = False, display_table: bool | int = False, max_errors: int | None = None,
        provide_traceback: bool | None = None, failure_score: float = 0.0, save_as_csv: str | None = None,
        save_as_json: str | None = None, **kwargs: Any,
    ) -> None:
        if "return_outputs" in kwargs:
            raise ParameterError(RETURN_OUTPUTS_ERROR)  # DSPy's words; a ValueError as in DSPy
        for name in RUN_OPTIONS:
            if name in kwargs:
                raise ParameterError(f"evalcore.dspy.Evaluate: parameter {name!r}: programs and metrics run on "
                                     "DSPy's executor, which has no such setting (evalcore.evaluate has it)")
        super().__init__(
            devset=devset, metric=metric, num_threads=num_threads, display_progress=display_progress,
            display_table=display_table, max_errors=max_errors, provide_traceback=provide_traceback,
            failure_score=failure_score, save_as_csv=save_as_csv, save_as_json=save_as_json,
        )
        self.options = {k: v for k, v in kwargs.items() if k in REPORT_OPTIONS}
        check_options(**self.options)  # a bad option fails here, before any program runs
        self.report: Any = None
        """evalcore's report of the last call (an :class:`evalcore.EvaluationResult`)."""

    @with_callbacks
    def __call__(
        self, program: Any, metric: Callable[..., Any] | None = None, devset: Sequence[Any] | None = None,
        num_threads: int | None = None, display_progress: bool | None = None,
        display_table: bool | int | None = None, callback_metadata: Mapping[str, Any] | None = None,
        save_as_csv: str | None = None, save_as_json: str | None = None,
    ) -> EvaluationResult:
        """Evaluate ``program`` on ``devset`` with ``metric``; arguments default to the constructor's."""
        metric = metric if metric is not None else self.metric
        devset = devset if devset is not None else self.devset
        num_threads = num_threads if num_threads is not None else self.num_threads
        display_progress = display_progress if display_progress is not None else self.display_progress
        display_table = display_table if display_table is not None else self.display_table
        save_as_csv = save_as_csv if save_as_csv is not None else self.save_as_csv
        save_as_json = save_as_json if save_as_json is not None else self.save_as_json
        if not devset:
            raise ParameterError("devset must contain at least one example, got an empty devset.")
        if metric is None:
            raise EvalcoreError("evalcore.dspy.Evaluate: parameter 'metric': no metric given")
        if callback_metadata:
            logger.debug("Evaluate is called with callback metadata: %s", callback_metadata)

        executor = ParallelExecutor(
            num_threads=num_threads, disable_progress_bar=not display_progress,
            max_errors=self.max_errors if self.max_errors is not None else dspy.settings.max_errors,
            provide_traceback=self.provide_traceback, compare_results=True,
        )

        def process_item(example: Any) -> tuple[Any, Any]:
            prediction = program(**example.inputs())
            return prediction, metric(example, prediction)

        outcomes = executor.execute(process_item, devset)  # raises as DSPy's Evaluate does
        results = [(example, *((dspy.Prediction(), self.failure_score) if outcome is None else outcome))
                   for example, outcome in zip(devset, outcomes, strict=True)]
        total = sum(score for *_, score in results)
        logger.info("Average Metric: %s / %s (%s%%)", total, len(devset), round(100 * total / len(devset), 1))
        self.report = self._report(results, executor.exceptions_map)
        self._write_outputs(results, metric, display_table, save_as_csv, save_as_json)
        return EvaluationResult(score=round(100 * total / len(devset), 2), results=results)

    def _report(self, results: list[tuple[Any, Any, Any]], failures: Mapping[int, Exception]) -> Any:
        """evalcore's report of the scores: a failed example is an error, counted as ``failure_score``."""
        records = [{_INDEX: i} for i in range(len(results))]
        scores = _Scores([score for *_, score in results], failures)
        return evaluate(examples=records, predictions=records, metrics=[scores.score],
                        failure_score=self.failure_score, progress=False, **self.options)

    def _write_outputs(self, results: list[tuple[Any, Any, Any]], metric: Any, display_table: bool | int,
                       save_as_csv: str | None, save_as_json: str | None) -> None:
        """The table and files ``dspy.Evaluate`` writes, in its own format."""
        name = metric.__name__ if isinstance(metric, types.FunctionType) else metric.__class__.__name__
        if display_table:
            if importlib.util.find_spec("pandas") is not None:
                self._display_result_table(self._construct_result_table(results, name), display_table, name)
            else:
                logger.warning("Skipping table display since `pandas` is not installed.")
        if save_as_csv:
            rows = self._prepare_results_output(results, name)
            with open(save_as_csv, "w", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=rows[0].keys())
                writer.writeheader()
                writer.writerows(rows)
        if save_as_json:
            with open(save_as_json, "w") as handle:
                json.dump(self._prepare_results_output(results, name), handle)


class _Scores:
    """The finished scores, by the example's position in the devset, as an evalcore metric."""

    def __init__(self, scores: list[Any], failures: Mapping[int, Exception]) -> None:
        self.scores = scores
        self.failures = failures

    def score(self, gold: Mapping[str, Any], pred: Mapping[str, Any]) -> Any:
        index = gold[_INDEX]
        if index in self.failures:
            raise self.failures[index]  # the example's own error, kept in the report's row
        return self.scores[index]

