"""Saved runs, read back for comparisons and reports: an EvaluationResult, a JSON report or a samples journal.

A journal's first line may be a header (``{"evalcore_journal": 1, "metrics": {...}}``);
each record line has an ``"id"`` and ``"scores"``; checkpoint lines (no ``"id"``) are
skipped, and when a record appears twice (a resumed run) the later line wins. Journals
written before the header existed are read too: a metric's granularity then follows from
whether its rows carry a corpus ``"state"``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from evalcore._contract.errors import EvalcoreError, InputError
from evalcore._lazy import publish

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


def metric_of(run: Run, metric_id: str) -> Any:
    """The metric object that computed ``metric_id`` in ``run``, with the parameters it ran with.

    Needed for corpus metrics, whose values are computed again from per-record states.
    """
    from evalcore._contract.identity import params_from_json
    from evalcore._registry.api import get_metric

    params = params_from_json(run.metrics.get(metric_id, {}).get("params") or {})
    try:
        return get_metric(metric_id, **params)
    except EvalcoreError as exc:
        raise InputError(f"a corpus metric is computed from its states and needs its plugin: {exc}",
                         field=metric_id) from None


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


def _refuse_special(path: str) -> None:
    """Refuse a FIFO, device or socket (links followed) before opening it: reading one would wait forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # reading it says what is wrong
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError("is not a regular file (a FIFO, device or socket); a run is a JSON report or journal file",
                         source=path)


def _load_result(result: Any, name: str) -> Run:
    summary = {k: (v.to_dict() if hasattr(v, "to_dict") else dict(v)) for k, v in result.metrics.items()}
    path = getattr(result, "samples_path", None)
    source = os.fspath(path) if path else name
    rows = _rows(result.samples, source)
    first = _first_value(source) if path and os.path.isfile(source) else None
    header = first if isinstance(first, Mapping) and "evalcore_journal" in first else {}
    provenance = dict(getattr(result, "provenance", {}) or {})
    return Run(name=name, source=source, metrics=_metric_info(header.get("metrics"), summary, rows, provenance),
               rows=rows, summary=summary, provenance=provenance,
               rejected=list(getattr(result, "rejected", []) or []), stopped=getattr(result, "stopped", None),
               files=(source,) if path else (), verdict=getattr(result, "verdict", None))


def _load_path(path: str, name: str | None) -> Run:
    label = name or _stem(path)
    _refuse_special(path)
    first = _first_value(path)
    if isinstance(first, Mapping) and ("evalcore_journal" in first or "id" in first or "chunk" in first):
        header, rows = read_journal(path)
        return Run(name=label, source=path, metrics=_metric_info(header.get("metrics"), {}, rows), rows=rows,
                   provenance={"fingerprint": header["fingerprint"]} if "fingerprint" in header else {},
                   files=(path,))
    report = _read_report(path)
    summary = dict(report.get("metrics") or {})
    header: dict[str, Any] = {}
    samples_file = report.get("samples_file")
    files = (path,)
    if samples_file:
        journal = _samples_path(path, samples_file)
        _refuse_special(journal)
        header, rows = read_journal(journal)
        files += (journal,)
    elif isinstance(report.get("samples"), list):
        rows = _rows(report["samples"], path)
    else:
        raise InputError("the report names no samples file and holds no per-record rows; the rows are in the "
                         "journal beside the report of a run (evaluate -o result.json keeps result.rows.jsonl)",
                         source=path)
    provenance = dict(report.get("provenance") or {})
    return Run(name=label, source=path, metrics=_metric_info(header.get("metrics"), summary, rows, provenance),
               rows=rows, summary=summary, provenance=provenance,
               rejected=list(report.get("rejected") or []), stopped=report.get("stopped"), files=files,
               verdict=report.get("verdict"))


def _samples_path(report: str, samples_file: str) -> str:
    """The journal a report names: absolute, relative to the report's folder, or else relative
    to the working folder (where a run given relative paths was started)."""
    if os.path.isabs(samples_file):
        return samples_file
    beside = os.path.join(os.path.dirname(report), samples_file)
    return beside if os.path.isfile(beside) or not os.path.isfile(samples_file) else samples_file


def read_journal(path: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The header (``{}`` if none) and the committed rows by record id, in input order.

    Rows are read as the engine reads them when it resumes: where checkpoint lines exist,
    rows after the last one belong to an unfinished chunk and are left out. A damaged line or a
    checksum that does not match is an error naming the line; a journal without checksums is
    read with a warning.
    """
    from evalcore._engine.journal import iter_rows

    if not os.path.isfile(path):
        raise InputError("samples journal not found", source=path)
    first = _first_value(path)
    header = dict(first) if isinstance(first, Mapping) and "evalcore_journal" in first else {}
    rows = [row for row in iter_rows(Path(path)) if isinstance(row, Mapping) and "id" in row]
    if not rows:
        raise InputError("no record rows in the samples journal", source=path)
    return header, _rows(rows, path)


def _rows(rows: Sequence[Mapping[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """Rows by record id; a later row replaces an earlier one; ordered by ``"i"`` when given."""
    by_id: dict[str, dict[str, Any]] = {}
    for n, row in enumerate(rows):
        if "id" not in row or not isinstance(row.get("scores"), Mapping):
            raise InputError("a row needs an 'id' and a 'scores' object", source=f"{source} row {n + 1}")
        record_id = str(row["id"])
        by_id.pop(record_id, None)
        by_id[record_id] = dict(row)
    ordered = sorted(by_id.items(), key=lambda item: item[1].get("i", 0))
    return dict(ordered)


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


def _first_value(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            line = handle.readline()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=path) from None
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise InputError("line 1 is nested too deeply to read", source=path) from None


def _read_report(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise InputError(f"neither a JSON report nor a samples journal: {exc.msg} (line {exc.lineno})",
                         source=path) from None
    except RecursionError:
        raise InputError("nested too deeply to read as a JSON report", source=path) from None
    if not isinstance(data, dict) or "metrics" not in data:
        raise InputError("not an evalcore report (no 'metrics')", source=path)
    return data


def _stem(path: str) -> str:
    base = os.path.basename(path)
    for suffix in (".jsonl", ".json"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


publish(globals())
