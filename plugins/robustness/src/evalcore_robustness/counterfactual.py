"""``counterfactual_consistency``: similarity of each counterfactual's answer to its base's."""

from __future__ import annotations

import math
from collections.abc import Sequence

import evalcore
from evalcore.plugin import CorpusMetric, Record, Score, response_text

from .variants import Entry, check_links, concat, entry


class CounterfactualConsistency(CorpusMetric[tuple[Entry, ...]]):
    """Mean similarity (a metric id, token F1 by default) between counterfactual and base answers."""

    def setup(self) -> None:
        try:
            self.similarity = evalcore.get_metric(self.params["similarity"], **(self.params["similarity_params"] or {}))
        except evalcore.EvalcoreError as exc:
            raise self.parameter_error("similarity", str(exc)) from None
        if isinstance(self.similarity, CorpusMetric):
            raise self.parameter_error("similarity", f"{self.similarity.id} must score single pairs, not a corpus")

    def sample_state(self, example: Record, prediction: Record) -> tuple[Entry, ...]:
        return (entry(example, response_text(prediction)),)

    def merge(self, states: Sequence[tuple[Entry, ...]]) -> tuple[Entry, ...]:
        return concat(states)

    def _is_counterfactual(self, e: Entry) -> bool:
        wanted = self.params["scenario"]
        return e.variant_of is not None and (wanted is None or e.scenario == wanted)

    def compute(self, state: tuple[Entry, ...]) -> Score:
        by_id, report = check_links(state)
        variants = [e for e in state if self._is_counterfactual(e)]
        pairs = [(by_id[e.variant_of], e) for e in variants if e.variant_of in by_id]
        scores = self.similarity.score_many(
            [{"reference_answer": base.payload} for base, _ in pairs],
            [{"response": cf.payload} for _, cf in pairs],
        )
        values = [s.value for s in scores if s.ok]
        failed = {cf.id: s.reason or s.error_message for (_, cf), s in zip(pairs, scores) if not s.ok}
        details = {"similarity_metric": self.similarity.id, "pairs": len(pairs), "scored_pairs": len(values),
                   **report.details(), **({"unscored_pairs": failed} if failed else {})}
        if not values:
            return Score.skipped(
                f"no scored counterfactual pairs ({len(variants)} variants with scenario "
                f"{self.params['scenario']!r}, {len(pairs)} with their base sample present)", **details)
        return Score(math.fsum(values) / len(values), feedback=report.feedback(), details=details)
