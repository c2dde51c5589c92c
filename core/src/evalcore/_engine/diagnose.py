"""Why records went unscored: the most common reasons per metric, a field-map hint when a field
seems misnamed, and the warning :func:`evalcore.evaluate` gives when a metric scored nothing."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from evalcore._contract.field_map import SYNONYMS, suggestion
from evalcore._lazy import publish

_MISSING_FIELD = re.compile(r"((?:example|prediction)\.[A-Za-z_][A-Za-z0-9_]*) is missing")
_REASON_CHARS = 120


class NothingScoredWarning(UserWarning):
    """A metric of an evaluation scored no record; the message gives the most common reasons and,
    where a field seems misnamed, the ``field_map`` that would fix it."""


def with_hints(reasons: Sequence[dict[str, Any]], seen_fields: Iterable[str]) -> list[dict[str, Any]]:
    """``reasons`` with ``hints`` (``NEW=OLD`` pairs) where a field is missing: the missing field's,
    then those of the format's other text fields (reference answer, response, query) that the
    records lack but hold under a known synonym (``seen_fields``: their field paths as read)."""
    seen = set(seen_fields)
    out = []
    for entry in reasons:
        match = _MISSING_FIELD.fullmatch(entry["reason"]) if entry["status"] == "skipped" else None
        hints = []
        if match:
            absent = [f for f in SYNONYMS if f != match.group(1) and not _present(f, seen)]
            hints = [h for f in (match.group(1), *absent) if (h := suggestion(f, seen))]
        out.append({**entry, "hints": hints} if hints else dict(entry))
    return out


def _present(field: str, seen: set[str]) -> bool:
    return field in seen or field.split(".", 1)[1] in seen


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
    reasons share a line)."""
    grouped: dict[str, list[str]] = {}
    for metric_id, summary in metrics.items():
        text = unscored(summary)
        if text is not None:
            grouped.setdefault(text, []).append(metric_id)
    return [f"{', '.join(ids)}: {text}" for text, ids in grouped.items()]


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
