"""What identifies a finished run, as plain data for the trackers that log it (``run_parameters``).

It joins the result's provenance with the first line of its rows journal, which alone records
the input's fingerprint (its files, sizes and SHA-256), the program and every option that
changes the numbers.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalcore.plugin import journal_header

if TYPE_CHECKING:
    from evalcore import EvaluationResult


def run_parameters(result: EvaluationResult) -> dict[str, Any]:
    """What ``result``'s run was, for a tracker's parameters or config.

    Keys: ``evalcore_version``, ``input`` (what was read), ``program``, ``executor``;
    ``input_fingerprint`` (the input's files, sizes and SHA-256 as the rows journal records them;
    ``{}`` for records given in memory); ``options`` (those that change the numbers, and
    ``chunk_size``, ``concurrency``); ``metrics``: per metric id, its ``version``,
    ``distribution`` (``name==version``) and ``params`` (``{}`` where the run does not say).
    """
    provenance = dict(result.provenance)
    header = _journal_header(result.samples_path)
    fingerprint = header.get("fingerprint") or {}
    finished, started = provenance.get("metrics") or {}, header.get("metrics") or {}
    about = {metric_id: _joined(finished.get(metric_id) or {}, started.get(metric_id) or {})
             for metric_id in {**finished, **started}}
    return {
        "evalcore_version": provenance.get("evalcore_version"),
        "input": provenance.get("input"),
        "program": fingerprint.get("program"),
        "executor": provenance.get("executor"),
        "input_fingerprint": {k: v for k, v in (fingerprint.get("input") or {}).items() if k != "input"},
        "options": {**(provenance.get("options") or {}), **(fingerprint.get("options") or {})},
        "metrics": {metric_id: _metric(about.get(metric_id) or {}) for metric_id in result.metrics},
    }


def _joined(finished: dict[str, Any], started: dict[str, Any]) -> dict[str, Any]:
    """A metric's provenance from the journal's header, with the parameters it knew only once the run
    finished (how a judge's answers were asked for, the prompts it sent) from the result's."""
    params = {**(finished.get("params") or {}), **(started.get("params") or {})}
    return {**finished, **started, **({"params": params} if params else {})}


def _metric(about: dict[str, Any]) -> dict[str, Any]:
    if not about:
        return {}
    return {"version": about.get("metric_version"),
            "distribution": f"{about.get('distribution')}=={about.get('distribution_version')}",
            "params": about.get("params") or {}}


def _journal_header(path: Path | None) -> dict[str, Any]:
    """The first line of a rows journal: the run's fingerprint and metric provenance (``{}`` if none)."""
    if path is None or not os.path.isfile(path):
        return {}
    return journal_header(os.fspath(path))
