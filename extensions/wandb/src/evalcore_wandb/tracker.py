"""The ``wandb`` tracker: an evaluation logged as a Weights & Biases run, offline unless asked otherwise.

Offline, W&B writes the run into ``<dir>/wandb/offline-run-<time>-<id>/`` and sends nothing;
``wandb sync`` on that folder uploads it later. What is logged is described in evalcore's
``docs/tracking.md``. Only evalcore's public namespaces are used.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore import write_report
from evalcore.plugin import TrackingError, check_answers, run_parameters

if TYPE_CHECKING:
    from evalcore import EvaluationResult

INSTALL = "pip install evalcore-wandb"
MODES = ("offline", "online")
CHECK_TIMEOUT_S = 5.0
"""Online, how long W&B's server has to answer the check made before a run is scored."""
_SUMMARY_FIELDS = ("stderr", "n", "n_skipped", "n_errors", "cost_msats")
_RUN_FIELDS = ("n_records", "n_finished", "duration_s")


class WandbTracker:
    """Logs to W&B; made once per command, after checking that wandb is installed, the run's
    folder can be written and, online, that W&B's server answers within :data:`CHECK_TIMEOUT_S`
    seconds (so a wrong ``--wandb-dir`` or an unreachable server is reported before an evaluation)."""

    def __init__(self, project: str | None = None, dir: str | None = None, mode: str | None = None) -> None:
        try:
            import pandas  # noqa: F401 - the rows table is built from a DataFrame
            import wandb
        except ImportError as exc:
            raise TrackingError(f"logging to W&B needs {exc.name or 'wandb'}: {INSTALL}") from None
        self._wandb = wandb
        self.project = project or "evalcore"
        self.mode = mode or "offline"
        if self.mode not in MODES:
            raise TrackingError(f"--wandb-mode: {' or '.join(MODES)}; got {self.mode!r}")
        self.dir = os.path.abspath(dir) if dir is not None else None
        if self.dir is not None:
            try:
                os.makedirs(self.dir, exist_ok=True)
            except OSError as exc:
                raise TrackingError(f"W&B folder {self.dir}: {exc.strerror or exc}") from None
            if not os.access(self.dir, os.W_OK):
                raise TrackingError(f"W&B folder {self.dir}: not writable")
        if self.mode == "online":
            base_url = str(wandb.setup().settings.base_url)  # W&B's choice: $WANDB_BASE_URL, else its own
            check_answers(base_url, f"W&B at {base_url}", timeout_s=CHECK_TIMEOUT_S,
                          hint="(is the server reachable, and $WANDB_BASE_URL right?)")

    @contextmanager
    def _run(self, **init: Any) -> Iterator[Any]:
        """A new W&B run for the ``with`` block, finished as failed when the block raises; W&B's
        errors as one-line :class:`TrackingError`."""
        wandb = self._wandb
        settings = wandb.Settings(console="off", silent=True, x_disable_stats=True)
        try:
            run = wandb.init(project=self.project, dir=self.dir, mode=self.mode, reinit="create_new",
                             settings=settings, **init)
        except (wandb.Error, OSError) as exc:
            where = self.dir or os.getcwd()
            raise TrackingError(f"W&B ({self.mode}) in {where}: {exc or type(exc).__name__}") from None
        try:
            yield run
        except BaseException:
            run.finish(exit_code=1)
            raise
        run.finish()

    def log_evaluation(self, result: EvaluationResult) -> str:
        """Log an :class:`~evalcore.EvaluationResult` as one run; returns ``W&B run <id> (<mode>) in <folder>``.

        Config: :func:`evalcore.plugin.run_parameters` (evalcore's version, the input and its
        fingerprint, the program, the options, and per metric its version, distribution and
        parameters). Summary: per metric id its ``value``, ``ci_low``, ``ci_high``, standard error,
        counts, cost and ``usage`` (calls, cached calls, tokens, cost), the run's record counts,
        duration and ``usage``, and ``verdict``: per stopping rule its ``outcome`` and ``text``. The
        table ``rows`` holds the per-record values, statuses and messages; the artifact
        ``evalcore-report-<id>`` the HTML report.
        """
        wandb = self._wandb
        provenance = result.provenance
        name = os.path.basename(str(provenance.get("input") or "evaluate")) or "evaluate"
        summary: dict[str, Any] = {field: provenance.get(field) for field in _RUN_FIELDS}
        summary |= {"n_rejected": len(result.rejected), "stopped": result.stopped, "usage": result.usage,
                    "verdict": {v["rule"]: {"outcome": v["outcome"], "text": v["text"]} for v in result.verdict or ()}}
        for metric_id, metric in result.metrics.items():
            summary[metric_id] = _summary(metric.to_dict())
        with self._run(name=name, job_type="evaluate", config=run_parameters(result), notes=result.table(),
                       tags=["evalcore"]) as run:
            run.summary.update(summary)
            run.log({"rows": wandb.Table(dataframe=result.to_pandas())})
            with tempfile.TemporaryDirectory(prefix="evalcore-wandb-") as folder:
                report = write_report(result, Path(folder) / "report.html")
                artifact = wandb.Artifact(f"evalcore-report-{run.id}", type="evalcore-report")
                artifact.add_file(report, name="report.html")  # copied: the folder may go
                run.log_artifact(artifact)
            where = f"W&B run {run.id} ({self.mode}) in {Path(run.dir).parent}"
        return where


def _summary(metric: dict[str, Any]) -> dict[str, Any]:
    """A metric's aggregate: the value, ``ci_low``, ``ci_high``, standard error, counts, cost and usage."""
    low, high = metric.get("ci") or (None, None)
    return {"value": metric.get("value"), "ci_low": low, "ci_high": high,
            **{field: metric.get(field) for field in _SUMMARY_FIELDS}, "usage": metric.get("usage")}
