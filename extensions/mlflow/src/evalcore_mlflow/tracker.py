"""The ``mlflow`` tracker: runs and comparisons logged to MLflow's active tracking server.

The tracking URI, the experiment and a surrounding run are MLflow's own: ``$MLFLOW_TRACKING_URI``
or :func:`mlflow.set_tracking_uri`, ``$MLFLOW_EXPERIMENT_NAME`` or :func:`mlflow.set_experiment`,
and a run already active in the caller's thread, under which evalcore's run is nested. What is
logged is described in evalcore's ``docs/tracking.md``; metric ids become MLflow keys as
:mod:`.keys` says. Only evalcore's public namespaces are used.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from numbers import Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore import write_report
from evalcore.plugin import TrackingError, check_answers, run_parameters

from .keys import flat_params, mlflow_keys, param_value

if TYPE_CHECKING:
    from evalcore import Comparison, EvaluationResult

INSTALL = "pip install evalcore-mlflow"
CHECK_TIMEOUT_S = 5.0
"""How long the tracking server has to answer the check made before a run is scored."""
HTTP_LIMITS = {"MLFLOW_HTTP_REQUEST_TIMEOUT": 30, "MLFLOW_HTTP_REQUEST_MAX_RETRIES": 2,
               "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": 1}
"""MLflow's HTTP settings while evalcore logs, where they are not set: MLflow's defaults (120 s
per request, 7 retries with doubling waits) keep a silent server waited for many minutes."""
_SUMMARY_FIELDS = ("stderr", "n", "n_skipped", "n_errors", "cost_msats")
_DATABASES = {"sqlite", "postgresql", "mysql", "mssql"}


class MlflowTracker:
    """Logs to MLflow; made once per command, after checking that MLflow is installed and its
    tracking store opens (so a wrong URI is reported before an evaluation, not after it): a
    tracking server (``http://``, ``https://``) must answer within :data:`CHECK_TIMEOUT_S`
    seconds, and every later call is bounded by :data:`HTTP_LIMITS`."""

    def __init__(self) -> None:
        try:
            import mlflow
            import pandas  # noqa: F401 - mlflow.log_table needs it
        except ImportError as exc:
            raise TrackingError(f"logging to MLflow needs {exc.name or 'mlflow'}: {INSTALL}") from None
        self._mlflow = mlflow
        self.uri = mlflow.get_tracking_uri()
        if self.uri.startswith(("http://", "https://")):  # a tracking server; MLflow checks other stores itself
            check_answers(self.uri, f"MLflow at {self.uri}", timeout_s=CHECK_TIMEOUT_S,
                          hint="(is the tracking server running, and $MLFLOW_TRACKING_URI right?)")
        with self._calls():
            self.client = mlflow.MlflowClient(self.uri)
            self.client.search_experiments(max_results=1)

    @contextmanager
    def _calls(self) -> Iterator[None]:
        """MLflow's and the file system's errors as one-line :class:`TrackingError`."""
        from mlflow.exceptions import MlflowException

        unset = [(setting, value) for setting, value in _http_settings() if not setting.defined]
        for setting, value in unset:
            setting.set(value)
        try:
            yield
        except (MlflowException, OSError) as exc:
            text = " ".join(str(exc).split()) or type(exc).__name__
            raise TrackingError(f"MLflow at {self.uri}: {text}{_hint(self.uri)}") from None
        finally:
            for setting, _ in unset:
                setting.unset()

    @contextmanager
    def _run(self, name: str, tags: Mapping[str, str]) -> Iterator[str]:
        """A new MLflow run (nested under the active one, if any) for the ``with`` block; ended
        ``FAILED`` when the block raises."""
        mlflow = self._mlflow
        with self._calls():
            run = mlflow.start_run(run_name=name, nested=mlflow.active_run() is not None, tags=dict(tags))
        try:
            with self._calls():
                yield run.info.run_id
        except BaseException as exc:
            mlflow.end_run("KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
            raise
        with self._calls():
            mlflow.end_run()

    def _log(self, run_id: str, params: Mapping[str, str], metrics: Mapping[str, Any]) -> None:
        """Parameters and the metrics that are finite numbers (a metric with nothing scored has none)."""
        from mlflow.entities import Metric, Param

        now = int(time.time() * 1000)
        numbers = [Metric(k, float(v), now, 0) for k, v in metrics.items() if _is_number(v)]
        self.client.log_batch(run_id, metrics=numbers, params=[Param(k, v) for k, v in params.items()])

    # -- an evaluation ---------------------------------------------------------------

    def log_evaluation(self, result: EvaluationResult) -> str:
        """Log an :class:`~evalcore.EvaluationResult` as one run; returns ``MLflow run <id> at <uri>``.

        Parameters: evalcore's version, the input and its fingerprint, the program, the options,
        and per metric its id, version, distribution and parameters. Metrics: per metric its
        value, interval bounds (``.ci_low``, ``.ci_high``), standard error, counts, cost and usage
        (``.usage.calls``, ``.usage.cached_calls``, tokens, ``.usage.cost_msats``), and the run's usage
        (``usage.*``). Tags: each stopping rule's outcome (``evalcore.verdict.<rule>``) and its text
        (``evalcore.verdict.<rule>.text``).
        Artifacts: ``rows.json`` (the per-record table), ``report.html``, ``result.json`` and the
        rows journal ``rows.jsonl`` it names.
        """
        provenance = dict(result.provenance)
        run = run_parameters(result)
        keys = mlflow_keys(result.metrics)
        params = {k: param_value(run[k]) for k in ("evalcore_version", "input", "program", "executor")}
        params |= flat_params("input", run["input_fingerprint"])
        params |= flat_params("options", run["options"])
        params |= _metric_params(keys, run["metrics"])
        metrics: dict[str, Any] = {"n_records": provenance.get("n_records"),
                                   "n_finished": provenance.get("n_finished"),
                                   "n_rejected": len(result.rejected), "duration_s": provenance.get("duration_s")}
        metrics |= {f"usage.{field}": value for field, value in result.usage.items()}
        for metric_id, summary in result.metrics.items():
            metrics |= _summary_metrics(keys[metric_id], summary.to_dict())
        tags = {"evalcore.command": "evaluate", "mlflow.note.content": _note(result.table())}
        if result.stopped:
            tags["evalcore.stopped"] = result.stopped
        tags |= _verdict_tags(result.verdict or ())
        name = os.path.basename(str(provenance.get("input") or "evaluate")) or "evaluate"
        with self._run(name, tags) as run_id:
            self._log(run_id, params, metrics)
            self.client.log_table(run_id, result.to_pandas(), "rows.json")
            with tempfile.TemporaryDirectory(prefix="evalcore-mlflow-") as folder:
                write_report(result, Path(folder) / "report.html")
                report = {**result.to_dict(), "samples_file": None}
                if result.samples_path is not None:
                    shutil.copyfile(result.samples_path, Path(folder) / "rows.jsonl")
                    report["samples_file"] = "rows.jsonl"
                _write_json(Path(folder) / "result.json", report)
                self.client.log_artifacts(run_id, folder)
        return f"MLflow run {run_id} at {self.uri}"

    # -- a comparison ----------------------------------------------------------------

    def log_comparison(self, comparison: Comparison, runs: Sequence[Any]) -> str:
        """Log a finished :class:`~evalcore.Comparison` of ``runs`` (the baseline first): a parent
        run with the options, ``comparison.json`` and ``report.html``, and per system a nested run
        with, per metric, the baseline's and the system's values, the difference with its interval,
        the effect size, each test's p-value (raw and corrected) and whether the difference is
        significant. Returns ``MLflow run <parent id> at <uri>``."""
        keys = mlflow_keys(comparison.metrics)
        metric_params = {f"metric.{key}.id": metric_id for metric_id, key in keys.items()}
        tags = {"evalcore.command": "compare", "mlflow.note.content": _note(comparison.table())}
        with self._run(f"{comparison.baseline} vs {', '.join(comparison.systems)}", tags) as parent:
            params = {"baseline": comparison.baseline, "systems": param_value(comparison.systems),
                      "baseline_source": runs[0].source, **flat_params("options", comparison.options),
                      **metric_params}
            self._log(parent, params, {"n_baseline_records": comparison.records.get("baseline")})
            with tempfile.TemporaryDirectory(prefix="evalcore-mlflow-") as folder:
                write_report(runs[0], Path(folder) / "report.html", compare_with=runs[1:], comparison=comparison)
                _write_json(Path(folder) / "comparison.json", comparison.to_dict())
                self.client.log_artifacts(parent, folder)
            for run in runs[1:]:
                self._log_system(comparison, run, keys, metric_params)
        return f"MLflow run {parent} at {self.uri}"

    def _log_system(self, comparison: Comparison, run: Any, keys: Mapping[str, str],
                    metric_params: Mapping[str, str]) -> None:
        """One system's nested run under the comparison's."""
        metrics: dict[str, Any] = {}
        tags = {"evalcore.command": "compare", "evalcore.baseline": comparison.baseline}
        for entry in (e for e in comparison.entries if e.system == run.name):
            key = keys[entry.metric]
            low, high = entry.ci or (None, None)
            metrics |= {key: entry.system_value, f"{key}.baseline": entry.baseline_value,
                        f"{key}.delta": entry.difference, f"{key}.delta_ci_low": low, f"{key}.delta_ci_high": high,
                        f"{key}.effect_size": entry.effect_size, f"{key}.n": entry.n,
                        f"{key}.significant": int(entry.significant)}
            if entry.decided_by:
                metrics[f"{key}.p_value"] = entry.tests[entry.decided_by].p_adjusted
                tags[f"evalcore.decided_by.{key}"] = entry.decided_by
            for test, outcome in entry.tests.items():
                metrics |= {f"{key}.{test}.p_value": outcome.p_value, f"{key}.{test}.p_adjusted": outcome.p_adjusted}
            tags[f"evalcore.winner.{key}"] = entry.winner or "none"
        params = {"baseline": comparison.baseline, "system": run.name, "source": run.source, **metric_params}
        with self._run(run.name, tags) as child:
            self._log(child, params, metrics)


def _note(table: str) -> str:
    """A run's description (MLflow shows it as Markdown): the results table, within a tag's 8000 characters."""
    if len(table) > 7900:
        table = table[:7900].rpartition("\n")[0] + "\n…"
    return f"```\n{table}\n```"


def _http_settings() -> list[tuple[Any, int]]:
    """MLflow's setting objects of :data:`HTTP_LIMITS`, with the value each takes while evalcore logs."""
    from mlflow import environment_variables

    return [(getattr(environment_variables, name), value) for name, value in HTTP_LIMITS.items()]


def _hint(uri: str) -> str:
    """What to do when a database URI meets mlflow-skinny, which has no database store."""
    import importlib.util

    scheme = uri.partition(":")[0].partition("+")[0]
    if scheme in _DATABASES and importlib.util.find_spec("sqlalchemy") is None:
        return (" (a database tracking URI needs the full mlflow package, pip install mlflow; "
                "mlflow-skinny logs to an MLflow server, http://..., or a file: store)")
    return ""


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _metric_params(keys: Mapping[str, str], info: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Per metric: its id, and its version, distribution and parameters (``run_parameters``'s)."""
    params: dict[str, str] = {}
    for metric_id, key in keys.items():
        params[f"metric.{key}.id"] = metric_id
        params |= {f"metric.{key}.{field}": param_value(value) for field, value in info[metric_id].items()}
    return params


def _summary_metrics(key: str, summary: Mapping[str, Any]) -> dict[str, Any]:
    """A metric's aggregate as MLflow metrics: the value, ``.ci_low``, ``.ci_high``, the counts and,
    for a metric that called a model, its usage (``.usage.calls`` ...)."""
    low, high = summary.get("ci") or (None, None)
    usage = summary.get("usage") or {}
    return {key: summary.get("value"), f"{key}.ci_low": low, f"{key}.ci_high": high,
            **{f"{key}.{field}": summary.get(field) for field in _SUMMARY_FIELDS},
            **{f"{key}.usage.{field}": value for field, value in usage.items()}}


def _verdict_tags(verdict: Sequence[Mapping[str, str]]) -> dict[str, str]:
    """Each stopping rule's outcome (``evalcore.verdict.<rule>``: reached, decided, within ...) and its text."""
    tags: dict[str, str] = {}
    for entry in verdict:
        tag = f"evalcore.verdict.{entry['rule']}"
        tags |= {tag: entry["outcome"], f"{tag}.text": param_value(entry["text"])}
    return tags


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")

