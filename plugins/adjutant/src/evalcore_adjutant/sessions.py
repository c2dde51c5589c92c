"""Adjutant session records: reading them and listing session files.

A session is the JSON Adjutant's ``SessionStore`` writes to
``sessions/<year>/<month>/<session-id>.json``: ``id``, ``task_title``, ``started_at``,
``ended_at``, ``decisions``, ``outcome``, ``iterations_used``, ``verification_history``.
A decision is either the original record (``decision_type``, ``input_summary``,
``output``, ``predicted_confidence``, ``timestamp``, ``was_correct``) or the
counterfactual one (``signature``, ``inputs_hash``, ``dspy_output``, ``dspy_confidence``,
``legacy_output``, ``fallback_used``, ...). The outcome is internally tagged:
``{"type": "Success" | "Failed" | "MaxIterationsReached" | "UserInterrupted" | "Error", ...}``
(``MaxIterations``, as the Adjutant document writes it, is read as ``MaxIterationsReached``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from evalcore.plugin import InputError, Record

SIGNATURES = ("complexity", "delegation", "rlm_trigger")
_OUTCOMES = {
    "success": "success", "failed": "failed", "maxiterationsreached": "max_iterations",
    "maxiterations": "max_iterations",
    "userinterrupted": "interrupted", "error": "error",
}
_TOKENS_IN_SUMMARY = re.compile(r"estimated_tokens\D{0,20}?(\d+)")


@attrs.frozen
class Decision:
    """One decision of a session, normalised across the two record layouts."""

    signature: str | None
    output: Mapping[str, Any]
    legacy_output: Mapping[str, Any] | None
    estimated_tokens: int
    timestamp: str | None
    was_correct: bool | None = None
    confidence: float | None = None
    fallback_used: bool | None = None
    fallback_reason: str | None = None


@attrs.frozen
class Session:
    """A session's id, outcome kind, iteration count and decisions."""

    id: str
    started_at: str
    ended_at: str | None
    outcome: str | None
    iterations_used: int
    decisions: tuple[Decision, ...]


def signature_of(name: Any) -> str | None:
    """``complexity``, ``delegation`` or ``rlm_trigger`` for a decision type or signature name."""
    key = re.sub(r"[^a-z]", "", str(name).lower())
    for prefix, signature in (("complexity", "complexity"), ("delegat", "delegation"), ("rlm", "rlm_trigger")):
        if key.startswith(prefix):
            return signature
    return None


def outcome_kind(outcome: Any, source: str) -> str | None:
    """``success``, ``failed``, ``max_iterations``, ``interrupted``, ``error`` or ``None`` (none yet)."""
    if outcome is None:
        return None
    if isinstance(outcome, str):
        tag = outcome
    elif isinstance(outcome, Mapping) and isinstance(outcome.get("type"), str):
        tag = outcome["type"]
    elif isinstance(outcome, Mapping) and len(outcome) == 1:
        tag = next(iter(outcome))  # externally tagged, e.g. {"Error": "message"}
    else:
        raise InputError(f"cannot read the outcome {outcome!r:.80}", source=source, field="outcome")
    kind = _OUTCOMES.get(re.sub(r"[^a-z]", "", tag.lower()))
    if kind is None:
        raise InputError(f"unknown outcome type {tag!r}", source=source, field="outcome.type")
    return kind


def _mapping(value: Any, source: str, field: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"expected an object, got {value!r:.60}", source=source, field=field)
    return value


def _decision(raw: Any, index: int, source: str) -> Decision:
    field = f"decisions[{index}]"
    if not isinstance(raw, Mapping):
        raise InputError(f"expected a decision object, got {raw!r:.60}", source=source, field=field)
    name = raw.get("decision_type", raw.get("signature"))
    output = raw.get("output", raw.get("dspy_output"))
    tokens = raw.get("estimated_tokens")
    if tokens is None:
        match = _TOKENS_IN_SUMMARY.search(str(raw.get("input_summary", "")))
        tokens = int(match.group(1)) if match else 0
    return Decision(
        signature=signature_of(name) if name is not None else None,
        output=_mapping(output, source, f"{field}.output"),
        legacy_output=_mapping(raw["legacy_output"], source, f"{field}.legacy_output")
        if raw.get("legacy_output") is not None else None,
        estimated_tokens=tokens if isinstance(tokens, int) else 0,
        timestamp=raw.get("timestamp") if isinstance(raw.get("timestamp"), str) else None,
        was_correct=raw.get("was_correct") if isinstance(raw.get("was_correct"), bool) else None,
        confidence=_confidence(raw.get("dspy_confidence", raw.get("predicted_confidence")), source,
                               f"{field}.dspy_confidence"),
        fallback_used=raw.get("fallback_used") if isinstance(raw.get("fallback_used"), bool) else None,
        fallback_reason=_fallback_reason(raw.get("fallback_reason")),
    )


def _confidence(value: Any, source: str, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise InputError(f"expected a confidence in 0..1, got {value!r:.40}", source=source, field=field)
    return float(value)


def _fallback_reason(value: Any) -> str | None:
    """The FallbackReason variant: ``"Timeout"``, or the tag of ``{"LowConfidence": 0.5}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        return str(next(iter(value)))
    if isinstance(value, Mapping) and isinstance(value.get("type"), str):
        return value["type"]
    return None


def parse_session(data: Any, source: str) -> Session:
    """A :class:`Session` from decoded JSON; :class:`InputError` names the bad field."""
    if not isinstance(data, Mapping):
        raise InputError(f"expected a session object, got {type(data).__name__}", source=source)
    decisions = data.get("decisions", [])
    if not isinstance(decisions, list):
        raise InputError(f"expected a list, got {type(decisions).__name__}", source=source, field="decisions")
    iterations = data.get("iterations_used", 0)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise InputError(f"expected a count, got {iterations!r}", source=source, field="iterations_used")
    return Session(
        id=str(data.get("id", source)), started_at=str(data.get("started_at", "")),
        ended_at=data.get("ended_at") if isinstance(data.get("ended_at"), str) else None,
        outcome=outcome_kind(data.get("outcome"), source), iterations_used=iterations,
        decisions=tuple(_decision(d, i, source) for i, d in enumerate(decisions)),
    )


def read_session(prediction: Record) -> Session:
    """The session of a record: ``prediction.session`` (an object or a JSON file path), or the prediction."""
    value = prediction.get("session", prediction)
    if isinstance(value, (str, os.PathLike)):
        source = os.fspath(value)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"cannot read the session file: {exc.strerror}", source=source) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"the session file does not parse: {exc}", source=source) from None
        return parse_session(data, source)
    return parse_session(value, "prediction.session")


def session_records(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Evaluator records for every session file under ``root`` (``<year>/<month>/<id>.json``).

    Files are read when scored, so a file that does not parse is that record's error.
    """
    paths = sorted(p for p in Path(root).rglob("*.json") if p.name != "index.json")
    return [{"id": p.stem, "example": {}, "prediction": {"session": str(p)}} for p in paths]
