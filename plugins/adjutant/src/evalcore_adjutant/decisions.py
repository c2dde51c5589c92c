"""Corpus metrics over Adjutant session records: accuracy, rolling accuracy, shadow mode, trigger,
and the confidence gate (accuracy of the decision used, fallback rate, calibration)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import attrs
from evalcore.plugin import CorpusMetric, Record, Score

from .correctness import DEFAULT_COMPLEXITY_ITERATIONS, is_correct
from .sessions import SIGNATURES, read_session


@attrs.frozen
class Label:
    """One judged decision: its order, signature and whether DSPy (and legacy) were right."""

    order: tuple[str, str, int]
    signature: str
    correct: bool
    legacy_correct: bool | None
    timestamp: str | None
    stored_correct: bool | None = None
    confidence: float | None = None
    fallback_used: bool | None = None


@attrs.frozen
class Fallback:
    """Whether one decision (judged or not) fell back to the legacy rule, and why."""

    signature: str | None
    used: bool
    reason: str | None


@attrs.frozen
class Labels:
    """Mergeable state: the judged decisions, the count of decisions left unjudged, and every
    decision's fallback record."""

    labels: tuple[Label, ...] = ()
    unjudged: int = 0
    fallbacks: tuple[Fallback, ...] = ()

    def ordered(self, signature: str | None = None) -> list[Label]:
        """The labels in time order (timestamp, session, index), optionally of one signature."""
        chosen = [lb for lb in self.labels if signature is None or lb.signature == signature]
        return sorted(chosen, key=lambda lb: lb.order)


def _accuracy(labels: Sequence[Label]) -> dict[str, Any]:
    correct = sum(lb.correct for lb in labels)
    return {"n": len(labels), "correct": correct, "accuracy": correct / len(labels) if labels else None}


class _DecisionMetric(CorpusMetric[Labels]):
    """Labels each session's decisions by Adjutant's rules; subclasses compute from the labels."""

    def setup(self) -> None:
        levels = self.params["complexity_iterations"] or DEFAULT_COMPLEXITY_ITERATIONS
        bad = {k: v for k, v in levels.items()
               if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0)}
        if bad:
            raise self.parameter_error("complexity_iterations",
                                       f"iteration limits must be whole numbers >= 0 (or null); got {bad!r:.200}")
        self._rules = {
            "complexity_iterations": {str(k).lower().replace("_", ""): v for k, v in levels.items()},
            "large_context_tokens": self.params["rlm_large_context_tokens"],
        }

    def sample_state(self, example: Record, prediction: Record) -> Labels:
        session = read_session(prediction)
        labels, unjudged = [], 0
        fallbacks = tuple(Fallback(d.signature, d.fallback_used, d.fallback_reason)
                          for d in session.decisions if d.fallback_used is not None)
        for index, decision in enumerate(session.decisions):
            if decision.signature is None:
                unjudged += 1
                continue
            correct = is_correct(decision.signature, decision.output, decision, session, **self._rules)
            if correct is None:
                unjudged += 1
                continue
            legacy = None if decision.legacy_output is None else is_correct(
                decision.signature, decision.legacy_output, decision, session, **self._rules)
            stamp = decision.timestamp or session.ended_at or session.started_at
            labels.append(Label((stamp, session.id, index), decision.signature, correct, legacy, stamp or None,
                                decision.was_correct, decision.confidence, decision.fallback_used))
        return Labels(tuple(labels), unjudged, fallbacks)

    def merge(self, states: Sequence[Labels | None]) -> Labels:
        """Concatenate the labels (``None``, the state of a failed sample, is left out)."""
        present = [s for s in states if s is not None]
        return Labels(tuple(lb for s in present for lb in s.labels), sum(s.unjudged for s in present),
                      tuple(f for s in present for f in s.fallbacks))

    def sample_value(self, state: Labels) -> float | None:
        return _accuracy(state.labels)["accuracy"]

    def selected(self, state: Labels) -> list[Label]:
        return state.ordered(self.params.get("signature"))

    def empty(self, state: Labels, what: str) -> Score:
        return Score.skipped(f"no judged {what}", num_samples=0, unjudged=state.unjudged)


class DecisionAccuracy(_DecisionMetric):
    """Share of judged decisions that were correct (micro-average over sessions)."""

    def compute(self, state: Labels) -> Score:
        labels = self.selected(state)
        if not labels:
            return self.empty(state, f"{self.params['signature'] or ''} decisions".strip())
        summary = _accuracy(labels)
        return Score(summary["accuracy"], details={
            **summary, "unjudged": state.unjudged,
            "per_signature": {s: _accuracy(state.ordered(s)) for s in SIGNATURES},
        })


class RollingAccuracy(_DecisionMetric):
    """Accuracy over the last ``window`` judged decisions, in time order."""

    def compute(self, state: Labels) -> Score:
        window = self.params["window"]
        labels = self.selected(state)
        if not labels:
            return self.empty(state, "decisions")
        recent = _accuracy(labels[-window:])
        return Score(recent["accuracy"], details={
            "window": window, "in_window": recent["n"], "total_decisions": len(labels),
            "total_correct": sum(lb.correct for lb in labels),
            "per_signature": {s: _accuracy(state.ordered(s)[-window:]) for s in SIGNATURES},
        })


class ShadowComparison(_DecisionMetric):
    """(DSPy wins − legacy wins) / decisions with a legacy counterfactual."""

    def compute(self, state: Labels) -> Score:
        pairs = [lb for lb in self.selected(state) if lb.legacy_correct is not None]
        if not pairs:
            return self.empty(state, "decisions with a legacy counterfactual")
        # the stored was_correct, when the decision has one, as the Adjutant shadow analysis reads it
        dspy = [lb.correct if lb.stored_correct is None else lb.stored_correct for lb in pairs]
        legacy = [lb.legacy_correct for lb in pairs]
        counts = {
            "dspy_wins": sum(d and not g for d, g in zip(dspy, legacy)),
            "legacy_wins": sum(g and not d for d, g in zip(dspy, legacy)),
            "both_correct": sum(d and g for d, g in zip(dspy, legacy)),
            "both_wrong": sum(not d and not g for d, g in zip(dspy, legacy)),
        }
        value = (counts["dspy_wins"] - counts["legacy_wins"]) / len(pairs)
        return Score(value, feedback=f"DSPy won {counts['dspy_wins']}, legacy won {counts['legacy_wins']}",
                     details={**counts, "compared": len(pairs),
                              "stored_was_correct": sum(lb.stored_correct is not None for lb in pairs)})


def _time(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{what} is not an ISO 8601 time: {text!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class OptimizationTrigger(_DecisionMetric):
    """1.0 when the auto-optimiser would run now, else 0.0; the reason is in the feedback."""

    def compute(self, state: Labels) -> Score:
        p = self.params
        now = _time(p["now"], "now") or datetime.now(UTC)
        last = _time(p["last_optimization"], "last_optimization")
        labels = state.ordered()
        rolling = {s: _accuracy(state.ordered(s)[-p["window"]:]) for s in SIGNATURES}
        details: dict[str, Any] = {
            "labeled_examples": len(labels), "rolling_accuracy": rolling,
            "signature_to_optimize": self._signature_to_optimize(state, rolling),
        }
        if last is not None:
            hours = (now - last).total_seconds() / 3600
            details["hours_since_last"] = hours
            if hours < p["min_hours_between_optimizations"]:
                return self._result(False, f"only {hours:.1f} h since the last optimisation "
                                           f"(minimum {p['min_hours_between_optimizations']} h)", details)
        new = [lb for lb in labels if last is None or (_time(lb.timestamp, "a decision time") or now) > last]
        details["new_examples"] = len(new)
        if len(new) >= p["min_labeled_examples"]:
            return self._result(True, f"{len(new)} new labelled examples "
                                      f"(threshold {p['min_labeled_examples']})", details, "example_threshold")
        low = {s: r["accuracy"] for s, r in rolling.items()
               if r["accuracy"] is not None and r["accuracy"] < p["accuracy_threshold"]}
        if low:
            worst = min(low, key=low.get)
            return self._result(True, f"rolling accuracy of {worst} is {low[worst]:.2f} "
                                      f"(threshold {p['accuracy_threshold']:.2f})", details, "accuracy_drop")
        return self._result(False, f"{len(new)} new labelled examples (< {p['min_labeled_examples']}) and "
                                   "no rolling accuracy below the threshold", details)

    @staticmethod
    def _signature_to_optimize(state: Labels, rolling: dict[str, dict[str, Any]]) -> str | None:
        """The signature with the lowest rolling accuracy (ties: more labelled examples), as the
        Adjutant optimiser prioritises it; ``None`` without judged decisions."""
        judged = [s for s in SIGNATURES if rolling[s]["n"]]
        return min(judged, key=lambda s: (rolling[s]["accuracy"], -len(state.ordered(s))), default=None)

    @staticmethod
    def _result(fire: bool, reason: str, details: dict[str, Any], trigger: str | None = None) -> Score:
        return Score(float(fire), feedback=reason, details={**details, "trigger": trigger, "reason": reason})


def _used(label: Label, threshold: float) -> str | None:
    """Which decision the confidence gate used: DSPy above ``threshold`` unless it fell back."""
    if label.fallback_used is True:
        return "legacy"
    if label.confidence is None:
        return "dspy" if label.fallback_used is False else None
    return "dspy" if label.confidence > threshold else "legacy"


class GateAccuracy(_DecisionMetric):
    """Accuracy of the decision actually used: DSPy's above the confidence threshold, else the legacy rule's."""

    def compute(self, state: Labels) -> Score:
        threshold = self.params["confidence_threshold"]
        used, outcomes = {"dspy": 0, "legacy": 0}, []
        dspy_only, legacy_only = [], []
        for label in self.selected(state):
            side = _used(label, threshold)
            if side is None or (side == "legacy" and label.legacy_correct is None):
                continue
            used[side] += 1
            outcomes.append(label.correct if side == "dspy" else label.legacy_correct)
            dspy_only.append(label.correct)
            if label.legacy_correct is not None:
                legacy_only.append(label.legacy_correct)
        if not outcomes:
            return self.empty(state, "decisions with a confidence or fallback record")
        return Score(sum(outcomes) / len(outcomes), details={
            "n": len(outcomes), "used": used, "confidence_threshold": threshold,
            "dspy_always": sum(dspy_only) / len(dspy_only),
            "legacy_always": sum(legacy_only) / len(legacy_only) if legacy_only else None,
        })


class FallbackRate(_DecisionMetric):
    """Share of decisions that fell back to the legacy rule, with counts by reason."""

    def compute(self, state: Labels) -> Score:
        signature = self.params["signature"]
        records = [f for f in state.fallbacks if signature is None or f.signature == signature]
        if not records:
            return Score.skipped("no decision records fallback_used", num_samples=0)
        used = [f for f in records if f.used]
        by_reason: dict[str, int] = {}
        for record in used:
            key = record.reason or "unrecorded"
            by_reason[key] = by_reason.get(key, 0) + 1
        return Score(len(used) / len(records), details={
            "decisions": len(records), "fallbacks": len(used), "by_reason": dict(sorted(by_reason.items())),
            "rate_by_reason": {k: v / len(records) for k, v in sorted(by_reason.items())},
        })


def reliability_table(confidences: Sequence[float], correct: Sequence[bool], n_bins: int) -> list[dict[str, Any]]:
    """Equal-width bins over 0..1 (the last one closed): count, mean confidence and accuracy of each non-empty bin."""
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for confidence, ok in zip(confidences, correct):
        bins[min(int(confidence * n_bins), n_bins - 1)].append((confidence, ok))
    return [
        {"bin": [i / n_bins, (i + 1) / n_bins], "n": len(items),
         "mean_confidence": sum(c for c, _ in items) / len(items), "accuracy": sum(o for _, o in items) / len(items)}
        for i, items in enumerate(bins) if items
    ]


def expected_calibration_error(table: Sequence[dict[str, Any]]) -> float:
    """ECE: the count-weighted mean of |accuracy - mean confidence| over the bins."""
    total = sum(row["n"] for row in table)
    return sum(row["n"] * abs(row["accuracy"] - row["mean_confidence"]) for row in table) / total


class ConfidenceCalibration(_DecisionMetric):
    """Expected calibration error of ``dspy_confidence`` against the judged correctness, with the reliability table."""

    def compute(self, state: Labels) -> Score:
        labels = [lb for lb in self.selected(state) if lb.confidence is not None]
        if not labels:
            return self.empty(state, "decisions with a dspy_confidence")
        table = reliability_table([lb.confidence for lb in labels], [lb.correct for lb in labels],
                                  self.params["n_bins"])
        ece = expected_calibration_error(table)
        return Score(ece, feedback=f"expected calibration error {ece:.3f} over {len(labels)} decisions",
                     details={"n": len(labels), "n_bins": self.params["n_bins"], "reliability": table})
