"""A finished run corrected by labels on some of its records: ``evaluate(..., labels=...)`` and
``evalcore evaluate --labels``.

The estimates are evalcore-stats' (:func:`evalcore.read_labels`, :func:`evalcore.ppi`), reached
through their public names; without that distribution, labels fail before the run with one line
naming it. The estimates are added to the finished result and to the JSON report the run wrote.
"""

from __future__ import annotations

import json
import os
from typing import Any

import attrs

from evalcore._engine.files import OutputError
from evalcore._engine.output import write_json
from evalcore._engine.result import EvaluationResult
from evalcore._engine.saved import load_run


def check_labels(labels: Any) -> dict[str, float] | None:
    """The labels by record id, read before the run so that a bad file costs no evaluation."""
    import evalcore

    return None if labels is None else evalcore.read_labels(labels, "labels")


def with_ppi(result: EvaluationResult, labels: dict[str, float] | None, *,
             output: str | os.PathLike[str] | None = None) -> EvaluationResult:
    """``result`` with the prediction-powered estimate of every per-record metric (``result.ppi``),
    also written as the ``"ppi"`` section of the JSON report at ``output`` when the run wrote one."""
    import evalcore

    if labels is None:
        return result
    name = os.path.splitext(os.path.basename(output))[0] if output is not None else "this run"
    found = evalcore.ppi(load_run(result, name), labels)
    if output is not None and os.path.isfile(output):
        try:
            with open(output, encoding="utf-8") as handle:
                report = json.load(handle)
            write_json(output, {**report, "ppi": found.to_dict()})
        except (OSError, ValueError) as exc:
            raise OutputError(f"could not add the prediction-powered estimates to {os.fspath(output)}: {exc}; "
                              f"the run's rows are kept in {result.samples_path}") from None
    return attrs.evolve(result, ppi=found)
