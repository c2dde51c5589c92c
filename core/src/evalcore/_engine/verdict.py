"""The verdict of each stopping rule a run was given: ``target_ci_width`` reached or not,
``until_decided`` decided or undecided (with the intervals), the budget within or exhausted, the
error limit within or met. A run given a rule always ends with its verdict, however it ended."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalcore._contract.display import dollars
from evalcore._lazy import publish

from .stopping import StoppingRule


def verdicts(*, rule: StoppingRule | None, error_limit: int | None, n_errors: int, error_stop: str | None,
             budget_limit_msats: int | None, spent_msats: int, budget_skipped: int) -> list[dict[str, str]] | None:
    """One verdict (``rule``, ``outcome``, ``text``) per rule the run was given; ``None`` without any."""
    found = []
    if rule is not None:
        found.append(_sequence_verdict(rule))
    if budget_limit_msats is not None:
        spent = f"spent {dollars(spent_msats)} of {dollars(budget_limit_msats)}"
        if budget_skipped:
            found.append(_verdict("budget", "exhausted", f"budget exhausted: {spent}; {budget_skipped} "
                                  f"sample{'' if budget_skipped == 1 else 's'} skipped for the budget"))
        else:
            found.append(_verdict("budget", "within", f"budget not exhausted: {spent}"))
    if error_limit is not None:
        if error_stop is not None:
            found.append(_verdict("max_errors", "stopped", error_stop))
        else:
            found.append(_verdict("max_errors", "within",
                                  f"error limit not reached: {n_errors} error{'' if n_errors == 1 else 's'} "
                                  f"(max_errors={error_limit})"))
    return found or None


def _sequence_verdict(rule: StoppingRule) -> dict[str, str]:
    """``target_ci_width`` reached / not reached, ``until_decided`` decided / undecided, with each metric's
    last interval and, against a baseline, how many records had a baseline value to pair with."""
    summary = rule.summary()
    paired = _paired_notes(rule)
    if summary["rule"] == "target_ci_width":
        if rule.reason is not None:
            return _verdict("target_ci_width", "reached", rule.reason)
        return _verdict("target_ci_width", "not_reached",
                        f"target CI width {rule.width:g} not reached after {summary['n_used']} of "
                        f"{summary['n_records']} records ({_intervals(summary['intervals'], rule.confidence)})")
    if rule.reason is not None:
        return _verdict("until_decided", "decided", rule.reason + paired)
    return _verdict("until_decided", "undecided",
                    f"undecided after {summary['n_used']} of {summary['n_records']} records: the difference from "
                    f"the baseline does not exclude 0 ({_intervals(summary['intervals'], rule.confidence, True)})"
                    + paired)


def _intervals(intervals: Mapping[str, Mapping[str, Any] | None], confidence: float, signed: bool = False) -> str:
    parts = []
    for metric_id, interval in intervals.items():
        if interval is None:
            parts.append(f"{metric_id}: no values")
            continue
        estimate = f"{interval['estimate']:+.4g}" if signed else f"{interval['estimate']:.4g}"
        parts.append(f"{metric_id} {estimate} [{interval['low']:.4g}, {interval['high']:.4g}] "
                     f"width {interval['high'] - interval['low']:.4g}")
    return f"{confidence:.0%} confidence sequence: " + "; ".join(parts)


def _paired_notes(rule: StoppingRule) -> str:
    """Against a baseline: the metrics some of whose records have no baseline value to pair with."""
    if rule.baseline is None or rule.population is None:
        return ""
    short = [f"{metric_id} {n} of {rule.population}" for metric_id, n in rule.eligible.items()
             if n < rule.population]
    return f"; paired with the baseline on {', '.join(short)} records (the rest have no baseline value)" \
        if short else ""


def _verdict(rule: str, outcome: str, text: str) -> dict[str, str]:
    return {"rule": rule, "outcome": outcome, "text": text}


publish(globals())
