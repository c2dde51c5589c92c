"""Complete traces into claimed batches, and batches into runs (the engine, as ``evalcore evaluate``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import evalcore

from .assembly import Trace
from .sampling import Budget, Rule
from .store import Store

__all__ = ["Scorer"]

log = logging.getLogger("evalcore.watch")


class Scorer:
    """Claims batches of traces in ``store`` (which rule takes which trace, within ``budget``) and
    scores them with the trace reader a plugin provides (``readers`` component ``otel``)."""

    def __init__(self, store: Store, rules: Sequence[Rule], budget: Budget, *,
                 options: Mapping[str, Any] | None = None, reader: str = "otel") -> None:
        self.store, self.rules, self.budget = store, list(rules), budget
        self.options = dict(options or {})
        self.registry = evalcore.Registry()
        self.reader = self.registry.component("readers", reader)
        self.claimed: set[str] = set()
        self.seq = store.next_seq()
        for manifest in store.manifests():  # what earlier runs claimed and spent
            self.claimed.update(manifest["traces"])
            when = datetime.fromisoformat(manifest["when"])
            for part in manifest["scorers"].values():
                self.budget.charge(part["cost_msats"], when)

    def claim(self, traces: Sequence[Trace], now: datetime | None = None) -> dict[str, Any]:
        """Decides each rule's traces (sampling, then the budget) and writes the batch; its manifest."""
        now = now or datetime.now(UTC)
        scorers: dict[str, Any] = {}
        lines: dict[str, tuple[list[str], list[str]]] = {}
        for rule in self.rules:
            taken, examples, traces_out, cost, over, chances = [], [], [], 0, 0, {}
            for trace in traces:
                p = rule.probability(trace)
                if p == 0.0:
                    continue
                if not self.budget.admit(rule.cost_msats, now):
                    over += 1
                    continue
                cost += rule.cost_msats
                taken.append(trace.trace_id)
                chances[trace.trace_id] = p
                traces_out.append(json.dumps(trace.to_otlp(), separators=(",", ":")))
                examples.append(json.dumps({"trace_id": trace.trace_id, "labels": {
                    "watch_rule": rule.name, "sampling_probability": p}}))
            if over:
                log.warning("rule %s: %d traces not scored, the budget is spent", rule.name, over)
            if taken:
                scorers[rule.name] = {"ids": taken, "probability": chances, "cost_msats": cost, "over_budget": over}
                lines[rule.name] = (traces_out, examples)
        manifest = {"seq": self.seq, "when": now.isoformat(), "hour": now.strftime("%Y-%m-%dT%H"),
                    "traces": [t.trace_id for t in traces], "scorers": scorers}
        self.store.claim(manifest, lines)
        self.seq += 1
        self.claimed.update(manifest["traces"])
        return manifest

    def pending(self) -> list[dict[str, Any]]:
        """Claimed batches some of whose runs have not finished (an earlier process stopped)."""
        return [m for m in self.store.manifests()
                if any(not self.store.report_path(m, name).exists() for name in m["scorers"])]

    def score(self, manifest: dict[str, Any]) -> dict[str, evalcore.EvaluationResult]:
        """Runs each scorer of a batch (resuming a run an earlier process left unfinished)."""
        results = {}
        for rule in self.rules:
            part = manifest["scorers"].get(rule.name)
            report = self.store.report_path(manifest, rule.name)
            if part is None or report.exists():
                continue
            rows = report.with_suffix(".rows.jsonl")
            source = self.reader.open(traces=str(self.store.batch_file(manifest["seq"], rule.name, "traces")),
                                      trace_examples=str(self.store.batch_file(manifest["seq"], rule.name, "examples")))
            limited = self.budget.per_hour_msats is not None or self.budget.per_day_msats is not None
            results[rule.name] = evalcore.evaluate(
                source, list(rule.metrics), output=str(report), samples=str(rows), resume=rows.exists(),
                budget_msats=part["cost_msats"] if limited else None, registry=self.registry, progress=False,
                **self.options)
        return results
