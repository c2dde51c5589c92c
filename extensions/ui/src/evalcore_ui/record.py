"""One record's full view, as data for the page: its fields, each metric's score with the judge's
calls where the row holds them, and the installed plugins' views of it (``evalcore_record_views``).

Strings longer than :data:`LONG_TEXT` are cut (the input keeps them whole); the page shows all
of it as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from evalcore import Record
from evalcore.plugin import RecordView, get_path, record_views

LONG_TEXT = 20_000
"""Characters of one string the view holds at most."""

_JUDGE_KEYS = ("backend", "model", "prompt", "prompts", "messages", "raw_answers", "answers", "explanation",
               "usage", "cost_msats", "decoding", "template_hash")


def record_detail(rid: str, row: Mapping[str, Any], item: Mapping[str, Any] | None) -> dict[str, Any]:
    """The view of record ``rid``: ``row`` from the journal, ``item`` the input's line (or ``None``)."""
    example = item.get("example") if isinstance(item, Mapping) else None
    prediction = item.get("prediction") if isinstance(item, Mapping) else None
    record = None
    if isinstance(example, Mapping) and isinstance(prediction, Mapping):
        record = Record(id=rid, example=example, prediction=prediction, source="input")
    scores = row.get("scores") if isinstance(row.get("scores"), Mapping) else {}
    return cut({
        "id": rid,
        "example": dict(example) if isinstance(example, Mapping) else None,
        "prediction": dict(prediction) if isinstance(prediction, Mapping) else None,
        "note": None if record is not None else "the run's input is gone or has changed, so only scores are shown",
        "scores": [_score(metric, score) for metric, score in scores.items()],
        "views": _views(record) if record is not None else [],
    })


def _score(metric: str, score: Any) -> dict[str, Any]:
    score = score if isinstance(score, Mapping) else {"value": score}
    details = score.get("details") if isinstance(score.get("details"), Mapping) else {}
    judged = "answers" in details or "raw_answers" in details
    return {
        "metric": metric, "value": score.get("value"), "status": score.get("status", "ok"),
        "reason": score.get("reason"), "feedback": score.get("feedback"), "error": score.get("error"),
        "cost_msats": score.get("cost_msats"),
        "judge": {k: details[k] for k in _JUDGE_KEYS if k in details} if judged else None,
        "details": dict(details),
    }


def _views(record: Record) -> list[dict[str, Any]]:
    shown = []
    data = {"example": record.example, "prediction": record.prediction}
    for spec in record_views():
        if spec.applies_to and get_path(data, spec.applies_to, None) is None:
            continue
        try:
            view = RecordView.of(spec.load()(record))
        except Exception as exc:  # noqa: BLE001 - a plugin's failure is shown, not raised
            shown.append({"title": f"{spec.namespace}: {spec.name}", "error": f"{type(exc).__name__}: {exc}"})
            continue
        if view is not None:
            shown.append(attrs.asdict(view))
    return shown


def cut(value: Any) -> Any:
    """``value`` with every string longer than :data:`LONG_TEXT` cut, saying how much was left out."""
    if isinstance(value, str):
        return value if len(value) <= LONG_TEXT else (
            value[:LONG_TEXT] + f" … ({len(value) - LONG_TEXT} more characters in the input)")
    if isinstance(value, Mapping):
        return {str(k): cut(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [cut(v) for v in value]
    return value
