"""Writing results: streamed JSONL rows, the JSON report, CSV, and a readable table."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore._contract.display import table_lines
from evalcore._lazy import publish

from .diagnose import why_lines
from .files import replacing
from .run_hooks import hook_lines
from .usage import cost_lines

SURROGATES = "backslashreplace"
"""How text files are written where a string holds a lone surrogate (read from JSON such as
``"\\ud800"``, which UTF-8 cannot encode): as its ``\\udXXX`` escape, which JSON reads back as the same string."""


def write_json(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """Write the full report through a temporary file renamed into place."""
    with replacing(path, "w", encoding="utf-8", errors=SURROGATES) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, default=_json_default)
        handle.write("\n")


def write_csv(path: str | os.PathLike[str], metric_ids: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """One line per record: its id, then value and status of each metric (written through a
    temporary file renamed into place)."""
    with replacing(path, "w", encoding="utf-8", errors=SURROGATES, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", *(f"{m}{suffix}" for m in metric_ids for suffix in ("", ":status"))])
        for row in rows:
            cells: list[Any] = [row["id"]]
            for metric_id in metric_ids:
                score = row["scores"].get(metric_id, {})
                value = score.get("value")
                cells += ["" if value is None else value, score.get("status", "not_run")]
            writer.writerow(cells)


def format_table(metrics: Mapping[str, Mapping[str, Any]]) -> str:
    """A plain-text table: metric, value, its scale, n, 95 % interval, skipped and errors; below it, why a metric
    scored nothing or fewer than half of the records, the rollout noise, and the calls, tokens and cost
    of the metrics that called a model (:func:`summary_notes`)."""
    header = ["metric", "value", "scale", "n", "95% CI", "skipped", "errors"]
    body, notes = [], []
    for metric_id, summary in metrics.items():
        ci = summary.get("ci")
        value = summary["value"]
        error = summary.get("details", {}).get("error")
        if value is None and error:
            notes.append(f"{metric_id}: {error['type']}: {error['message']}")
        body.append([
            metric_id, ("error" if error else "—") if value is None else f"{value:.4f}", summary.get("scale", ""),
            str(summary["n"]),
            f"[{ci[0]:.4f}, {ci[1]:.4f}]" if ci else "-",
            str(summary["n_skipped"]), str(summary["n_errors"]),
        ])
    right = [i for i in range(1, len(header)) if header[i] != "scale"]
    return "\n".join([*table_lines(header, body, right=right), *notes, *summary_notes(metrics)])


def summary_notes(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The lines under a run's table: why a metric scored nothing or fewer than half of the records,
    what the plugins add (the rollout noise of each metric scored over several rollouts), and the
    calls, tokens and cost of each metric that called a model and of the run (``metrics``: a run's
    summary by metric id)."""
    return [*why_lines(metrics), *hook_lines(metrics), *cost_lines(metrics)]


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


publish(globals())
