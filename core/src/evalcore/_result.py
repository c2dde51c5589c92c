"""Per-sample results: a value with status, feedback, details and cost."""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum
from typing import Any

import attrs


class Status(str, Enum):
    """Outcome of scoring one sample with one metric."""

    OK = "ok"
    SKIPPED = "skipped"
    ERROR = "error"


@attrs.frozen
class Score:
    """The result of one metric on one sample.

    ``value`` is ``None`` unless ``status`` is ``ok``; ``confidence`` (0–1) is how much the
    metric trusts its own value, where it knows (the dsrs MetricScore). ``reason`` says
    why a sample was skipped; ``error_type`` and ``error_message`` say what went wrong.
    """

    value: float | None
    status: Status = Status.OK
    feedback: str | None = None
    confidence: float | None = None
    details: Mapping[str, Any] = attrs.field(factory=dict)
    cost_msats: int = 0
    reason: str | None = None
    error_type: str | None = None
    error_message: str | None = None

    @classmethod
    def skipped(cls, reason: str, **details: Any) -> Score:
        """A skipped sample; it does not count towards the aggregate value."""
        return cls(None, Status.SKIPPED, reason=reason, details=details)

    @classmethod
    def error(cls, exc: BaseException | str, message: str | None = None, **details: Any) -> Score:
        """An error; pass an exception, or an error type name and a message."""
        if isinstance(exc, BaseException):
            return cls(
                None, Status.ERROR, error_type=type(exc).__name__,
                error_message=str(exc), details=details,
            )
        return cls(None, Status.ERROR, error_type=exc, error_message=message, details=details)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; empty optional fields are left out."""
        data: dict[str, Any] = {"value": self.value, "status": self.status.value}
        if self.feedback is not None:
            data["feedback"] = self.feedback
        if self.confidence is not None:
            data["confidence"] = self.confidence
        if self.details:
            data["details"] = dict(self.details)
        if self.cost_msats:
            data["cost_msats"] = self.cost_msats
        if self.reason is not None:
            data["reason"] = self.reason
        if self.error_type is not None:
            data["error"] = {"type": self.error_type, "message": self.error_message}
        return data


def coerce_score(raw: Any) -> Score:
    """Turn what a metric returned into a :class:`Score`.

    Accepts a :class:`Score`, a number or bool, ``(score, feedback)``, a mapping with a
    ``score`` (and optional ``feedback``) key, or an object with a ``score`` attribute
    (DSPy's ``Prediction(score=..., feedback=...)``). ``None`` and NaN are errors.
    """
    if isinstance(raw, Score):
        if raw.status is Status.OK:
            return attrs.evolve(raw, value=_check_number(raw.value))
        return raw
    feedback = None
    if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[1], (str, type(None))):
        raw, feedback = raw
    elif isinstance(raw, Mapping) and "score" in raw:
        feedback = raw.get("feedback")
        raw = raw["score"]
    elif hasattr(raw, "score") and not isinstance(raw, (int, float)):
        feedback = getattr(raw, "feedback", None)
        raw = raw.score
    return Score(_check_number(raw), feedback=feedback)


def _check_number(raw: Any) -> float:
    if raw is None:
        raise TypeError("metric returned no score (None)")
    if isinstance(raw, bool):
        return 1.0 if raw else 0.0
    if isinstance(raw, (str, bytes)):
        raise TypeError(f"metric returned text {raw!r:.40}, not a number")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise TypeError(f"metric returned {type(raw).__name__} {raw!r}, not a number") from None
    if math.isnan(value):
        raise ValueError("metric returned NaN")
    return value
