"""Saved runs, read back for comparisons and reports: an EvaluationResult, a JSON report or a samples journal.

The files are read by the core (:func:`evalcore.plugin.read_saved`); a run's per-metric information
comes from the journal header, else the report, else what the rows show: journals written before
the header existed are read too, a metric's granularity then following from whether its rows
carry a corpus ``"state"``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from evalcore import EvalcoreError, get_metric
from evalcore.plugin import InputError, journal_header, params_from_json, read_saved, saved_rows

RunLike = Any
"""An :class:`~evalcore.EvaluationResult`, or the path of a JSON report or samples journal."""


@attrs.frozen
class Run:
    """One saved run: per-metric information, per-record scores and what the report said."""

    name: str
    source: str
    metrics: dict[str, dict[str, Any]]
    rows: dict[str, dict[str, Any]]
    summary: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    provenance: dict[str, Any] = attrs.field(factory=dict)
    rejected: list[Any] = attrs.field(factory=list)
    stopped: str | None = None
    files: tuple[str, ...] = ()
    """The files it was read from: the report and the journal it names, or the journal."""
    verdict: list[dict[str, Any]] | None = None
    """Each stopping rule's outcome (``rule``, ``outcome``, ``text``), for a run given any."""

    def granularity(self, metric_id: str) -> str:
        return str(self.metrics[metric_id].get("granularity", "sample"))

    def direction(self, metric_id: str) -> str:
        return str(self.metrics[metric_id].get("direction", "higher"))


def load_runs(runs: Sequence[RunLike], names: Sequence[str] | None = None) -> list[Run]:
    """Load each run; names default to the file names (``baseline``/``system N`` in memory)."""
    if names is not None and len(names) != len(runs):
        raise InputError(f"{len(names)} names given for {len(runs)} runs", field="names")
    loaded = [load_run(run, None if names is None else names[i], index=i) for i, run in enumerate(runs)]
    seen: dict[str, int] = {}
    unique = []
    for run in loaded:
        count = seen.get(run.name, 0)
        seen[run.name] = count + 1
        unique.append(run if count == 0 else attrs.evolve(run, name=f"{run.name} ({count + 1})"))
    return unique


def load_run(run: RunLike, name: str | None = None, *, index: int = 0) -> Run:
    """One run from an EvaluationResult-like object or a path."""
    if isinstance(run, Run):
        return run if name is None else attrs.evolve(run, name=name)
    if isinstance(run, (str, os.PathLike)):
        return _load_path(os.fspath(run), name)
    if hasattr(run, "metrics") and hasattr(run, "samples"):
        return _load_result(run, name or ("baseline" if index == 0 else f"system {index}"))
    raise InputError(f"cannot compare a {type(run).__name__}: give an EvaluationResult or a file path",
                     field=f"run {index}")


def _load_result(result: Any, name: str) -> Run:
    summary = {k: (v.to_dict() if hasattr(v, "to_dict") else dict(v)) for k, v in result.metrics.items()}
    path = getattr(result, "samples_path", None)
    source = os.fspath(path) if path else name
    rows = saved_rows(result.samples, source)
    header = journal_header(source) if path and os.path.isfile(source) else {}
    provenance = dict(getattr(result, "provenance", {}) or {})
    return Run(name=name, source=source, metrics=_metric_info(header.get("metrics"), summary, rows, provenance),
               rows=rows, summary=summary, provenance=provenance,
               rejected=list(getattr(result, "rejected", []) or []), stopped=getattr(result, "stopped", None),
               files=(source,) if path else (), verdict=getattr(result, "verdict", None))


def _load_path(path: str, name: str | None) -> Run:
    label = name or _stem(path)
    saved = read_saved(path)
    if saved.report is None:
        header = saved.header
        return Run(name=label, source=path, metrics=_metric_info(header.get("metrics"), {}, saved.rows),
                   rows=saved.rows,
                   provenance={"fingerprint": header["fingerprint"]} if "fingerprint" in header else {},
                   files=saved.files)
    report = saved.report
    summary = dict(report.get("metrics") or {})
    provenance = dict(report.get("provenance") or {})
    return Run(name=label, source=path,
               metrics=_metric_info(saved.header.get("metrics"), summary, saved.rows, provenance),
               rows=saved.rows, summary=summary, provenance=provenance,
               rejected=list(report.get("rejected") or []), stopped=report.get("stopped"), files=saved.files,
               verdict=report.get("verdict"))


def _metric_info(
    header: Mapping[str, Any] | None, summary: Mapping[str, Mapping[str, Any]], rows: Mapping[str, Mapping[str, Any]],
    provenance: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per-metric information: the journal header, else the report, else what the rows show;
    the parameters from the report's provenance where the header does not hold them (settings a
    metric knows only once it has scored, such as how a judge's answers were asked for)."""
    recorded = (provenance or {}).get("metrics") or {}
    ids: dict[str, None] = dict.fromkeys(header or {})
    ids.update(dict.fromkeys(summary))
    for row in rows.values():
        ids.update(dict.fromkeys(row["scores"]))
    info: dict[str, dict[str, Any]] = {}
    for metric_id in ids:
        entry = dict((header or {}).get(metric_id) or summary.get(metric_id) or {})
        if "granularity" not in entry:
            has_state = any("state" in (row["scores"].get(metric_id) or {}) for row in rows.values())
            entry["granularity"] = "corpus" if has_state else "sample"
        entry.setdefault("direction", "higher")
        finished = (recorded.get(metric_id) or {}).get("params")
        if isinstance(finished, Mapping):  # what the run knew once it finished (the judge's response format)
            entry["params"] = {**finished, **(entry.get("params") or {})}
        info[metric_id] = entry
    return info



def metric_of(run: Run, metric_id: str) -> Any:
    """The metric object that computed ``metric_id`` in ``run`` (whose ``metrics`` record each
    metric's parameters), with the parameters it ran with.

    Needed for corpus metrics, whose values are computed again from per-record states.
    """
    params = params_from_json(run.metrics.get(metric_id, {}).get("params") or {})
    try:
        return get_metric(metric_id, **params)
    except EvalcoreError as exc:
        raise InputError(f"a corpus metric is computed from its states and needs its plugin: {exc}",
                         field=metric_id) from None

def _stem(path: str) -> str:
    base = os.path.basename(path)
    for suffix in (".jsonl", ".json"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base
