"""Corpus metrics over Adjutant session records: accuracy, rolling accuracy, shadow mode, trigger."""

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


@attrs.frozen
class Labels:
    """Mergeable state: the judged decisions and the count of decisions left unjudged."""

    labels: tuple[Label, ...] = ()
    unjudged: int = 0

    def ordered(self, signature: str | None = None) -> list[Label]:
        """The labels in time order (timestamp, session, index), optionally of one signature."""
        chosen = [lb for lb in self.labels if signature is None or lb.signature == signature]
        return sorted(chosen, key=lambda lb: lb.order)


def _accuracy(labels: Sequence[Label]) -> dict[str, Any]:
    correct = sum(lb.correct for lb in labels)
    return {"n": len(labels), "correct": correct, "accuracy": correct / len(labels) if labels else None}


class _DecisionMetric(CorpusMetric[Labels]):
    """Labels each session's decisions by seed 003's rules; subclasses compute from the labels."""

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
            labels.append(Label((stamp, session.id, index), decision.signature, correct, legacy, stamp or None))
        return Labels(tuple(labels), unjudged)

    def merge(self, states: Sequence[Labels | None]) -> Labels:
        """Concatenate the labels (``None``, the state of a failed sample, is left out)."""
        present = [s for s in states if s is not None]
        return Labels(tuple(lb for s in present for lb in s.labels), sum(s.unjudged for s in present))

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
        counts = {
            "dspy_wins": sum(lb.correct and not lb.legacy_correct for lb in pairs),
            "legacy_wins": sum(lb.legacy_correct and not lb.correct for lb in pairs),
            "both_correct": sum(lb.correct and lb.legacy_correct for lb in pairs),
            "both_wrong": sum(not lb.correct and not lb.legacy_correct for lb in pairs),
        }
        value = (counts["dspy_wins"] - counts["legacy_wins"]) / len(pairs)
        return Score(value, feedback=f"DSPy won {counts['dspy_wins']}, legacy won {counts['legacy_wins']}",
                     details={**counts, "compared": len(pairs)})


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

    def _signature_to_optimize(self, state: Labels, rolling: dict[str, dict[str, Any]]) -> str | None:
        """Lowest accuracy below the threshold among signatures with enough examples, else the most examples."""
        minimum = self.params["min_labeled_examples"]
        enough = [s for s in SIGNATURES if rolling[s]["n"] and len(state.ordered(s)) >= minimum]
        below = [s for s in enough if rolling[s]["accuracy"] < self.params["accuracy_threshold"]]
        if below:
            return min(below, key=lambda s: rolling[s]["accuracy"])
        return max(enough, key=lambda s: len(state.ordered(s)), default=None)

    @staticmethod
    def _result(fire: bool, reason: str, details: dict[str, Any], trigger: str | None = None) -> Score:
        return Score(float(fire), feedback=reason, details={**details, "trigger": trigger, "reason": reason})
