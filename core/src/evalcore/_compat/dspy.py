"""A drop-in for ``dspy.Evaluate`` on top of :func:`evalcore.evaluate`.

Change ``from dspy import Evaluate`` to ``from evalcore.dspy import Evaluate``: the
constructor takes the same arguments with the same defaults, programs are called as
``program(**example.inputs())``, metrics as ``metric(example, prediction)``, and the
result is DSPy's own ``EvaluationResult`` (``score`` in percent, ``results`` as
``(example, prediction, score)`` triples, a failed example scored ``failure_score``).
The run goes through evalcore's evaluator, so the evaluator's options (``budget_msats``,
``output``, ``samples``, ``csv``, ``seed``, ``n_boot``, ``confidence``,
``timeout_s``, ``cache_mode``, ``cache_dir``) may be passed too,
and the evalcore report of the last call (aggregates with intervals, usage, provenance)
is kept in :attr:`Evaluate.report`.

:func:`as_program` turns a ``dspy.Module`` into a program for :func:`evalcore.evaluate`,
called with the record fields the module takes as inputs.
"""

from __future__ import annotations

import contextvars
import csv
import importlib.util
import json
import logging
import threading
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalcore._contract.errors import EvalcoreError, ParameterError
from evalcore._engine.programs import as_program, is_dspy_module
from evalcore._lazy import publish

__all__ = ["Evaluate", "as_program", "is_dspy_module"]

logger = logging.getLogger(__name__)

RETURN_OUTPUTS_ERROR = (
    "`return_outputs` is no longer supported. Results are always returned inside the `results` field "
    "of the `EvaluationResult` object."
)
# evalcore.evaluate options that Evaluate passes on; DSPy ignores other keyword arguments.
EVALCORE_OPTIONS = ("budget_msats", "output", "samples", "csv", "seed", "n_boot", "confidence", "timeout_s",
                    "cache_mode", "cache_dir")
_INDEX = "dspy_index"


class Evaluate:
    """``dspy.Evaluate`` with evalcore's evaluator underneath (see the module docstring)."""

    def __init__(
        self, *, devset: Sequence[Any], metric: Callable[..., Any] | None = None, num_threads: int | None = None,
        display_progress: bool = False, display_table: bool | int = False, max_errors: int | None = None,
        provide_traceback: bool | None = None, failure_score: float = 0.0, save_as_csv: str | None = None,
        save_as_json: str | None = None, **kwargs: Any,
    ) -> None:
        if "return_outputs" in kwargs:
            raise ParameterError(RETURN_OUTPUTS_ERROR)  # DSPy's words; a ValueError as in DSPy
        self.devset = devset
        self.metric = metric
        self.num_threads = num_threads
        self.display_progress = display_progress
        self.display_table = display_table
        self.max_errors = max_errors
        self.provide_traceback = provide_traceback
        self.failure_score = failure_score
        self.save_as_csv = save_as_csv
        self.save_as_json = save_as_json
        self.options = {k: v for k, v in kwargs.items() if k in EVALCORE_OPTIONS}
        self.report: Any = None

    def __call__(
        self, program: Any, metric: Callable[..., Any] | None = None, devset: Sequence[Any] | None = None,
        num_threads: int | None = None, display_progress: bool | None = None,
        display_table: bool | int | None = None, callback_metadata: Mapping[str, Any] | None = None,
        save_as_csv: str | None = None, save_as_json: str | None = None,
    ) -> Any:
        """Evaluate ``program`` on ``devset`` with ``metric``; arguments default to the constructor's."""
        import dspy
        from dspy.evaluate.evaluate import EvaluationResult

        from evalcore._engine.entry import evaluate

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
        max_errors = self.max_errors if self.max_errors is not None else dspy.settings.max_errors
        run = _Run(program, metric, devset, bool(self.provide_traceback))
        self.report = evaluate(
            examples=[{_INDEX: i} for i in range(len(devset))], metrics=[run.score], program=run.predict,
            concurrency=num_threads or dspy.settings.num_threads, failure_score=self.failure_score,
            max_errors=max_errors, progress=bool(display_progress), **self.options,
        )
        if run.errors >= max_errors:
            logger.warning("Execution cancelled due to errors or interruption.")
            raise Exception("Execution cancelled due to errors or interruption.")  # as DSPy raises it
        results = [
            (example, *run.outcomes.get(i, (dspy.Prediction(), self.failure_score)))
            for i, example in enumerate(devset)
        ]
        total = sum(score for *_, score in results)
        logger.info("Average Metric: %s / %s (%s%%)", total, len(devset), round(100 * total / len(devset), 1))
        _write_outputs(results, metric, devset, display_table, save_as_csv, save_as_json)
        return EvaluationResult(score=round(100 * total / len(devset), 2), results=results)


class _Run:
    """One call's program and metric, keyed by the example's position in the devset."""

    def __init__(self, program: Any, metric: Callable[..., Any], devset: Sequence[Any], traceback: bool) -> None:
        # The caller's context (dspy.context(lm=...) among it), entered afresh for every call
        # whatever thread the evaluator runs it on.
        self.context = contextvars.copy_context()
        self.program = program
        self.metric = metric
        self.devset = devset
        self.traceback = traceback
        self.predictions: dict[int, Any] = {}
        self.outcomes: dict[int, tuple[Any, Any]] = {}
        self.errors = 0
        self._lock = threading.Lock()

    def _failed(self, index: int, exc: Exception) -> None:
        with self._lock:
            self.errors += 1
        logger.error("Error for %s: %s", self.devset[index], exc, exc_info=self.traceback)

    def predict(self, record: Mapping[str, Any]) -> dict[str, int]:
        index = record[_INDEX]
        example = self.devset[index]
        try:
            self.predictions[index] = self.context.copy().run(lambda: self.program(**example.inputs()))
        except Exception as exc:
            self._failed(index, exc)
            raise
        return {_INDEX: index}

    def score(self, gold: Mapping[str, Any], pred: Mapping[str, Any]) -> Any:
        index = gold[_INDEX]
        prediction = self.predictions[index]
        try:
            score = self.context.copy().run(self.metric, self.devset[index], prediction)
        except Exception as exc:
            self._failed(index, exc)
            raise
        self.outcomes[index] = (prediction, score)
        return score


def _metric_name(metric: Any) -> str:
    return metric.__name__ if isinstance(metric, types.FunctionType) else metric.__class__.__name__


def _write_outputs(
    results: list[tuple[Any, Any, Any]], metric: Any, devset: Sequence[Any], display_table: bool | int,
    save_as_csv: str | None, save_as_json: str | None,
) -> None:
    """The table and files ``dspy.Evaluate`` writes, in its own format."""
    if not (display_table or save_as_csv or save_as_json):
        return
    from dspy.evaluate.evaluate import Evaluate as DSPyEvaluate

    name = _metric_name(metric)
    if display_table:
        if importlib.util.find_spec("pandas") is not None:
            table = DSPyEvaluate(devset=devset)
            table._display_result_table(table._construct_result_table(results, name), display_table, name)
        else:
            logger.warning("Skipping table display since `pandas` is not installed.")
    rows = DSPyEvaluate._prepare_results_output(results, name)
    if save_as_csv:
        with open(save_as_csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=rows[0].keys())
            writer.writeheader()
            writer.writerows(rows)
    if save_as_json:
        with open(save_as_json, "w") as handle:
            json.dump(rows, handle)


publish(globals())
