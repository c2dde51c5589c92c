"""Why records went unscored: the most common reasons per metric, a field-map hint when a field
seems misnamed (offered only when it scores a sample of the records), the warning when the response
equals the reference answer on nearly every record, and the warning :func:`evalcore.evaluate` gives
when a metric scored nothing."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evalcore._contract.errors import EvalcoreError
from evalcore._contract.field_map import TEXT_FIELDS, FieldMap, canonical_target, place_columns, suggestions
from evalcore._contract.records import parse_record
from evalcore._lazy import publish

if TYPE_CHECKING:
    from evalcore._contract.metric import Metric

_MISSING_FIELD = re.compile(r"((?:example|prediction)\.[A-Za-z_][A-Za-z0-9_]*) is missing")
_REASON_CHARS = 120
SAME_SHARE, SAME_MIN = 0.95, 5
"""A response equal to the reference answer on this share of at least this many records is a warning."""


class NothingScoredWarning(UserWarning):
    """A metric of an evaluation scored no record; the message gives the most common reasons and,
    where a field seems misnamed, the ``field_map`` that would fix it."""


def with_hints(reasons: Sequence[dict[str, Any]], seen_fields: Iterable[str], accepts: Callable[[list[str]], bool],
               field_map: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """``reasons`` with ``hints`` (``NEW=OLD`` pairs) where a field is missing: the missing field's,
    then those of the format's other text fields (:data:`TEXT_FIELDS`) that the records lack but hold
    under a known synonym (``seen_fields``: their field paths as read), no field for two roles
    (:func:`suggestions`). ``field_map`` is the run's own (its targets are not missing, its fields are
    taken); the hints are offered only where ``accepts`` them (see :func:`scores_sample`)."""
    seen, field_map = set(seen_fields), dict(field_map or {})
    out = []
    for entry in reasons:
        match = _MISSING_FIELD.fullmatch(entry["reason"]) if entry["status"] == "skipped" else None
        hints = []
        if match:
            absent = [f for f in TEXT_FIELDS if f != match.group(1) and not _present(f, seen, field_map)]
            hints = suggestions([match.group(1), *absent], seen, taken=field_map.values())
            hints = hints if hints and accepts(hints) else []
        out.append({**entry, "hints": hints} if hints else dict(entry))
    return out


def scores_sample(metric: Metric, records: Sequence[Any], field_map: Mapping[str, str], pairs: Sequence[str]) -> bool:
    """Whether ``metric`` scores at least half of ``records`` (a sample of the records as read, none: no)
    once mapped by ``field_map`` and the ``NEW=OLD`` ``pairs``. A pair the metric estimates a model call
    for has passed the metric's own check of its inputs and counts without the call (a judge estimates
    none for a pair it would skip); any other pair is scored."""
    try:
        mapping = FieldMap({**field_map, **{canonical_target(new): old for new, _, old in
                                            (pair.partition("=") for pair in pairs)}})
    except EvalcoreError:
        return False
    n_scored = sum(_scores(metric, mapping, data, f"sample {k}") for k, data in enumerate(records))
    return bool(records) and 2 * n_scored >= len(records)


def _scores(metric: Metric, mapping: FieldMap, data: Any, source: str) -> bool:
    try:
        record = parse_record(place_columns(mapping.apply(data, source)), source, source)
        example, prediction = record.example, record.prediction
        return bool(metric.estimate(example, prediction).get("calls")) or metric.score_one(example, prediction).ok
    except Exception:  # noqa: BLE001 - a hint that fails on a record is not offered, and nothing more
        return False


def _present(field: str, seen: set[str], field_map: Mapping[str, str]) -> bool:
    return field in seen or field.split(".", 1)[1] in seen or field in field_map


def cli_hints(pairs: Sequence[str]) -> str:
    """``NEW=OLD`` hints as the command line takes them: ``--map NEW=OLD`` each."""
    return " ".join(f"--map {pair}" for pair in pairs)


def python_hints(pairs: Sequence[str]) -> str:
    """``NEW=OLD`` hints as :func:`evalcore.evaluate` takes them: ``field_map={...}``."""
    return f"field_map={dict(pair.partition('=')[::2] for pair in pairs)!r}"


def unscored(summary: Mapping[str, Any], hint: Callable[[Sequence[str]], str] = cli_hints) -> str | None:
    """Why a metric's records went unscored, when it scored none or fewer than half of them:
    ``12 skipped — example.reference_answer is missing (12); did you mean --map reference_answer=answer?``."""
    n_skipped, n_errors = summary.get("n_skipped", 0), summary.get("n_errors", 0)
    if not n_skipped + n_errors or (summary.get("value") is not None and n_skipped + n_errors <= summary["n"]):
        return None
    counts = ", ".join(f"{n} {what}" for n, what in ((n_skipped, "skipped"), (n_errors, "errors")) if n)
    reasons = summary.get("details", {}).get("reasons") or []
    text = counts + (" — " + ", ".join(f"{_short(r['reason'])} ({r['count']})" for r in reasons) if reasons else "")
    pairs = list(dict.fromkeys(pair for r in reasons for pair in r.get("hints", ())))
    if pairs:
        text += f"; did you mean {hint(pairs)}?"
    return text


def why_lines(metrics: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per explanation, naming the metrics it applies to (metrics skipped for the same
    reasons share a line), then one per warning of the metrics' ``details["warnings"]``."""
    grouped: dict[str, list[str]] = {}
    for metric_id, summary in metrics.items():
        text = unscored(summary)
        if text is not None:
            grouped.setdefault(text, []).append(metric_id)
    for metric_id, summary in metrics.items():
        for warning in summary.get("details", {}).get("warnings", ()):
            grouped.setdefault(f"warning: {warning}", []).append(metric_id)
    return [f"{', '.join(ids)}: {text}" for text, ids in grouped.items()]


def same_answer_warning(n_same: int, n_both: int) -> str | None:
    """The warning when the response equals the reference answer on (nearly) every record that has
    both (:data:`SAME_SHARE` of them, at least :data:`SAME_MIN` records): the same field read twice."""
    if n_both < SAME_MIN or n_same < SAME_SHARE * n_both:
        return None
    return f"response equals reference_answer on {n_same} of {n_both} records: check the field map"


def warn_if_unscored(metrics: Mapping[str, Any], stacklevel: int = 2) -> None:
    """Warn (:class:`NothingScoredWarning`) about each metric that scored no record, saying why;
    ``stacklevel`` counts from the caller, as :func:`warnings.warn`'s does."""
    parts = []
    for metric_id, summary in metrics.items():
        data = summary.to_dict()
        if data["value"] is None:
            parts.append(f"{metric_id} scored no record" + (f" ({why})" if (why := unscored(data, python_hints))
                                                             else ""))
    if parts:
        warnings.warn(NothingScoredWarning("; ".join(parts)), stacklevel=stacklevel + 1)


def _short(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


publish(globals())
