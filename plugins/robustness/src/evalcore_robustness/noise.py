"""``noise_robustness``: a base metric on noisy variants relative to the clean base samples."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import evalcore
from evalcore.plugin import CorpusMetric, Record, Score

from .variants import Entry, check_links, concat, entry


class NoiseRobustness(CorpusMetric[tuple[Entry, ...]]):
    """noisy_score / base_score of a wrapped metric (0 when base_score is 0)."""

    def setup(self) -> None:
        base_id = self.params["metric"]
        if base_id.split("/")[-1].split("(")[0] == self.spec.name:
            raise self.parameter_error("metric", "the metric cannot wrap itself")
        try:
            self.base = evalcore.get_metric(base_id, **(self.params["metric_params"] or {}))
        except evalcore.EvalcoreError as exc:
            raise self.parameter_error("metric", str(exc)) from None
        self.scenarios = frozenset(self.params["noise_scenarios"])

    def sample_state(self, example: Record, prediction: Record) -> tuple[Entry, ...]:
        if isinstance(self.base, CorpusMetric):
            [(score, state)] = self.base.states([example], [prediction])
            payload = (score, state)
        else:
            payload = (self.base.score_one(example, prediction), None)
        return (entry(example, payload),)

    def merge(self, states: Sequence[tuple[Entry, ...]]) -> tuple[Entry, ...]:
        return concat(states)

    def sample_value(self, state: tuple[Entry, ...]) -> float | None:
        return state[0].payload[0].value

    def _subset_score(self, entries: list[Entry]) -> tuple[float | None, dict[str, Any]]:
        scores = [e.payload[0] for e in entries]
        counts = {"n": len(entries), "scored": sum(s.ok for s in scores),
                  "skipped": sum(s.status.value == "skipped" for s in scores),
                  "errors": sum(s.status.value == "error" for s in scores)}
        if isinstance(self.base, CorpusMetric):
            states = [e.payload[1] for e in entries if e.payload[1] is not None]
            result = self.base.corpus_score(states) if states else None
            value = result.value if result is not None and result.ok else None
        else:
            values = [s.value for s in scores if s.ok]
            value = math.fsum(values) / len(values) if values else None
        return value, counts

    def compute(self, state: tuple[Entry, ...]) -> Score:
        _, report = check_links(state)
        base = [e for e in state if e.variant_of is None]
        noisy = [e for e in state if e.variant_of is not None and e.scenario in self.scenarios]
        base_score, base_counts = self._subset_score(base)
        noisy_score, noisy_counts = self._subset_score(noisy)
        details = {"base_metric": self.base.id, "noise_scenarios": sorted(self.scenarios),
                   "base_score": base_score, "noisy_score": noisy_score,
                   "base": base_counts, "noisy": noisy_counts, **report.details()}
        if base_score is None or noisy_score is None:
            which = "base" if base_score is None else "noisy"
            reason = (f"no scored {which} samples (base: samples without labels.variant_of; noisy: "
                      f"variants with labels.scenario in {sorted(self.scenarios)})")
            return Score.skipped(reason, **details)
        value = noisy_score / base_score if base_score > 0 else 0.0
        return Score(value, feedback=report.feedback(), details=details)
