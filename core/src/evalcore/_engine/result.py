"""The result of an evaluation: aggregates and provenance in memory, rows on disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from evalcore._contract.errors import InputError
from evalcore._lazy import publish

from .output import format_table
from .summary import MetricSummary
from .usage import run_usage


@attrs.frozen
class EvaluationResult:
    """Aggregates per metric id, the per-record rows (read lazily from the samples journal),
    the rejected records and the provenance. ``stopped`` says why a run ended early; ``verdict``, for a
    run given stopping rules (a target CI width, until decided, a budget, an error limit), each rule's
    outcome (``rule``, ``outcome``, ``text``)."""

    metrics: dict[str, MetricSummary]
    samples: Sequence[dict[str, Any]]
    rejected: list[InputError]
    provenance: dict[str, Any]
    stopped: str | None = None
    samples_path: Path | None = None
    verdict: list[dict[str, str]] | None = None
    ppi: Any = None
    """The prediction-powered estimates of the judged metrics (``evaluate(..., labels=...)``), or ``None``."""
    logged_to: str | None = None
    """Where the run was logged (``evaluate(..., log_to=...)``), in the tracker's words, or ``None``."""

    @property
    def usage(self) -> dict[str, int]:
        """The run's model calls (``cached_calls`` of them from the cache), tokens and ``cost_msats``:
        the sum of its metrics'."""
        return run_usage(summary.usage for summary in self.metrics.values())

    @property
    def score(self) -> float | None:
        """The first metric's value (DSPy's ``EvaluationResult.score`` as a fraction)."""
        return next(iter(self.metrics.values())).value if self.metrics else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: aggregates, rejected records, provenance, where the rows are and, with
        labels, the prediction-powered estimates."""
        report = {
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "rejected": [{"source": e.source, "field": e.field, "message": e.reason} for e in self.rejected],
            "stopped": self.stopped,
            "verdict": self.verdict,
            "usage": self.usage,
            "provenance": self.provenance,
            "samples_file": str(self.samples_path) if self.samples_path is not None else None,
        }
        if self.ppi is not None:
            report["ppi"] = self.ppi.to_dict()
        return report

    def to_pandas(self) -> Any:
        """One row per record: its id, and per metric the value, status and message columns."""
        import pandas as pd

        from .tables import flatten

        return pd.DataFrame(flatten(self.samples, list(self.metrics)))

    def summary_frame(self) -> Any:
        """One row per metric: value, n, skipped and error counts, standard error, interval."""
        import pandas as pd

        frame = pd.DataFrame([summary.to_dict() for summary in self.metrics.values()]).set_index("id")
        cis = frame.pop("ci")
        frame["ci_low"] = [ci[0] if ci else None for ci in cis]
        frame["ci_high"] = [ci[1] if ci else None for ci in cis]
        return frame

    def table(self) -> str:
        """The aggregates as a readable text table, with the calls and cost under it and a line per verdict."""
        return "\n".join([format_table({k: v.to_dict() for k, v in self.metrics.items()}),
                          *(f"verdict: {v['text']}" for v in self.verdict or ())])

    def __repr__(self) -> str:
        return f"EvaluationResult(metrics={list(self.metrics)}, samples={self.samples_path})"


publish(globals())
