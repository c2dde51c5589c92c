"""Per-sample results: a value with status, feedback, details and cost."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from enum import Enum
from typing import Any

import attrs

from evalcore._lazy import publish

from .errors import SkipSample


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
        return cls(None, Status.SKIPPED, reason=cap_text(reason), details=cap_details(details))

    @classmethod
    def error(cls, exc: BaseException | str, message: str | None = None, **details: Any) -> Score:
        """An error; pass an exception, or an error type name and a message (both capped)."""
        if isinstance(exc, BaseException):
            exc, message = type(exc).__name__, _message(exc)
        return cls(None, Status.ERROR, error_type=exc, error_message=cap_text(message),
                   details=cap_details(details))

    @classmethod
    def from_exception(cls, exc: BaseException) -> Score:
        """What one sample's exception means: ``skipped`` for :class:`SkipSample`, else an ``error``
        (``SystemExit`` too). Interruptions (``KeyboardInterrupt``, a cancelled task) are raised again.

        The one guard around a sample: ``except BaseException as exc: return Score.from_exception(exc)``.
        """
        if isinstance(exc, SkipSample):
            return cls.skipped(exc.reason)
        if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
            raise exc
        return cls.error(exc)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; empty optional fields are left out."""
        data: dict[str, Any] = {"value": self.value, "status": self.status._value_}  # not the slow enum property
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
    (DSPy's ``Prediction(score=..., feedback=...)``). ``None``, NaN and infinities are errors.
    """
    kind = type(raw)
    if kind is float and raw - raw == 0.0:  # a plain finite number (not NaN, not an infinity)
        return Score(raw)
    if kind is bool or kind is int:
        return Score(float(raw))
    if isinstance(raw, Score):
        capped = _capped(raw)
        if raw.status is Status.OK:
            value = raw.value
            if type(value) is float and value - value == 0.0:  # a finite number
                return capped
            return attrs.evolve(capped, value=_check_number(value))
        return capped
    feedback = None
    if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[1], (str, type(None))):
        raw, feedback = raw
    elif isinstance(raw, Mapping) and "score" in raw:
        feedback = raw.get("feedback")
        raw = raw["score"]
    elif hasattr(raw, "score") and not isinstance(raw, (int, float)):
        feedback = getattr(raw, "feedback", None)
        raw = raw.score
    return Score(_check_number(raw), feedback=cap_text(feedback))


#: Longest message, feedback or string in the details a result keeps (characters).
MAX_TEXT_CHARS = 4000
#: Most entries kept of one list or mapping in a result's details, of all of them together,
#: and the deepest nesting kept.
MAX_DETAIL_ITEMS = 1000
MAX_DETAIL_TOTAL = 10_000
MAX_DETAIL_DEPTH = 32


def within_caps(score: Score) -> bool:
    """Whether an ``ok`` score needs no capping: no text over the limit, details within every cap
    (the common case, decided without building anything)."""
    feedback, details = score.feedback, score.details
    return ((feedback is None or (type(feedback) is str and len(feedback) <= MAX_TEXT_CHARS))
            and score.reason is None and score.error_message is None
            and (not details or _fits(details, [MAX_DETAIL_TOTAL], 0)))


def _capped(score: Score) -> Score:
    """``score`` with its texts and details capped (the same object when nothing is too big)."""
    if within_caps(score):
        return score
    changed = {}
    for name in ("feedback", "reason", "error_message"):
        text = getattr(score, name)
        if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
            changed[name] = cap_text(text)
    details = cap_details(score.details)
    if details is not score.details:
        changed["details"] = details
    return attrs.evolve(score, **changed) if changed else score


def cap_text(text: Any) -> Any:
    """``text`` cut to :data:`MAX_TEXT_CHARS`, saying how much was cut (non-strings unchanged)."""
    if not isinstance(text, str) or len(text) <= MAX_TEXT_CHARS:
        return text
    return f"{text[:MAX_TEXT_CHARS]}… [{len(text) - MAX_TEXT_CHARS} more characters cut]"


def cap_details(details: Mapping[str, Any]) -> Mapping[str, Any]:
    """``details`` with long strings cut, and entries beyond the item and depth limits left out."""
    if not details or _fits(details, [MAX_DETAIL_TOTAL], 0):
        return details
    return _bounded(details, [MAX_DETAIL_TOTAL], 0)


_SCALARS = frozenset({int, float, bool, type(None)})


def _fits(value: Any, budget: list[int], depth: int) -> bool:
    """Whether :func:`_bounded` would keep ``value`` as it is, decided without building anything
    (a judge's details: its prompts and answers, nested a few levels). Plain dicts, lists, tuples,
    strings and scalars only; anything else is left to :func:`_bounded`."""
    kind = type(value)
    if kind is dict:
        items: Any = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return False
    if depth >= MAX_DETAIL_DEPTH or len(value) > MAX_DETAIL_ITEMS:
        return False
    budget[0] -= len(value)  # entries count in the same total as _bounded's, which cuts past it
    if budget[0] < 0:
        return False
    for item in items:
        kind = type(item)
        if kind is str:
            if len(item) > MAX_TEXT_CHARS:
                return False
        elif kind not in _SCALARS and not _fits(item, budget, depth + 1):
            return False
    return True


def _bounded(value: Any, budget: list[int], depth: int) -> Any:
    kind = type(value)
    if kind in _SCALARS:  # exact types first: judges' details hold many small values
        return value
    if kind is str or isinstance(value, str):
        return cap_text(value)
    mapping = kind is dict or isinstance(value, Mapping)
    if not mapping and not isinstance(value, (list, tuple)):
        return value
    if depth >= MAX_DETAIL_DEPTH:
        return f"<{type(value).__name__} nested deeper than {MAX_DETAIL_DEPTH} levels, left out>"
    items = value.items() if mapping else enumerate(value)
    kept: list[tuple[Any, Any]] = []
    changed = False
    for key, item in items:
        if budget[0] <= 0 or len(kept) >= MAX_DETAIL_ITEMS:
            kept.append(("…", f"{len(value) - len(kept)} more entries left out"))
            changed = True
            break
        budget[0] -= 1
        bounded = _bounded(item, budget, depth + 1)
        changed = changed or bounded is not item
        kept.append((key, bounded))
    if not changed:
        return value
    if mapping:
        return dict(kept)
    values = [item for _, item in kept]
    return tuple(values) if type(value) is tuple else values


def _message(exc: BaseException) -> str:
    """``str(exc)``, or what can be said when even that fails (a too deeply nested value)."""
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - RecursionError, a broken __str__
        return f"(the message could not be shown: {type(inner).__name__})"


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
    if math.isinf(value):  # JSON, and so the journal, has no infinity: the value would not come back
        raise ValueError(f"metric returned {value}, not a finite number")
    return value


@attrs.frozen
class ColumnScores:
    """A metric's results over a whole columnar chunk, without a :class:`Score` per sample.

    ``values`` holds the value of each sample (anything where it was not scored);
    ``skipped`` maps the position of each skipped sample to its reason. For metrics that
    score a reader's columns directly (see ``BatchMetric.score_columns``).
    """

    values: Any
    skipped: Mapping[int, str] = attrs.field(factory=dict)

    def scores(self) -> list[Score]:
        """One :class:`Score` per sample (the slow, general form)."""
        return [Score.skipped(self.skipped[i]) if i in self.skipped else Score(float(v))
                for i, v in enumerate(self.values.tolist() if hasattr(self.values, "tolist") else self.values)]


publish(globals())
