"""Runs that stop when the answer is known: records in a seeded random order, scoring stopped
once every metric's confidence sequence (:mod:`.sequential`) is narrower than ``target_ci_width``,
or (``until_decided``) once its sequence for the difference from a finished baseline run, on the
same records, excludes 0.

The order is a seeded hash of each record's place in the input, so a resumed run (same seed,
same input) replays what its journal holds in the same order. Drawing at random from a
streamed input means reading it whole first: every record is held in memory (as the reader
parses it) for the run. The rule is checked after each chunk, whose size is capped at
:data:`CHECK_EVERY` records; the sequence takes the records in the order they were handed out,
up to the first one still being scored.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from evalcore._contract.chunk import Chunk, Source
from evalcore._contract.spec import Granularity

from .accumulate import ERROR, OK
from .baseline import BaselineValues, baseline_digest
from .options import OptionError
from .plan import Plan
from .score import ChunkResult
from .sequential import SequenceInterval, draw_keys, final_interval, mean_sequence

CHECK_EVERY = 100
"""At most this many records per chunk while a stopping rule is on (how often it is checked)."""

class ShuffledSource:
    """Another source's records, read whole, handed out in the seeded order in chunks of at most
    :data:`CHECK_EVERY`; everything else (name, fingerprint, inputs) is the wrapped source's."""

    def __init__(self, source: Source, rule: StoppingRule) -> None:
        self.source = source
        self.rule = rule
        self.name = source.name

    def __getattr__(self, name: str) -> Any:  # seen_fields, bytes_read, size ...
        return getattr(self.source, name)

    def inputs(self) -> list[Path]:
        return self.source.inputs()

    def fingerprint(self) -> dict[str, Any]:
        return self.source.fingerprint()

    def total(self) -> int | None:
        return self.source.total()

    def chunks(self, size: int) -> Iterator[Chunk]:
        records, positions, errors = [], [], []
        for chunk in self.source.chunks(size):
            got = chunk.columns.records() if chunk.columns is not None and hasattr(chunk.columns, "records") \
                else chunk.records
            records.extend(got)
            positions.extend(chunk.positions)
            errors.extend(chunk.errors)
        self.rule.start({str(record.id) for record in records})
        if errors:
            yield Chunk(0, [], [], errors)
        order = np.argsort(draw_keys(positions, self.rule.seed), kind="stable")
        step = min(size, CHECK_EVERY)
        for index, start in enumerate(range(0, len(order), step)):
            if self.rule.reason is not None:
                return
            part = sorted(order[start:start + step].tolist(), key=positions.__getitem__)
            yield Chunk(index + 1, [records[i] for i in part], [positions[i] for i in part])


class StoppingRule:
    """Stop once every metric's confidence sequence is narrower than ``width`` or, with a
    ``baseline`` (``{metric id: {record id: value}}``), once every metric's sequence for the mean
    difference from the baseline on the same records excludes 0."""

    def __init__(self, ranges: dict[str, tuple[float, float]], *, width: float | None = None,
                 baseline: BaselineValues | None = None, confidence: float, seed: int,
                 failure_score: float | None) -> None:
        self.width = width
        self.baseline = baseline
        span = {m: high - low for m, (low, high) in ranges.items()}
        self.ranges = ranges if baseline is None else {m: (-span[m], span[m]) for m in ranges}
        self.confidence = confidence
        self.seed = seed
        self.failure_score = failure_score
        self.population: int | None = None
        self.eligible: dict[str, int] = {}  # per metric: the records a sequence may take (paired: in the baseline)
        self.reason: str | None = None
        self.order: list[int] = []  # positions in the order they were handed out
        self.ids: dict[int, str] = {}
        self.cursor = 0
        self.received: dict[int, list[float | None]] = {}
        self.series: dict[str, list[float]] = {metric_id: [] for metric_id in ranges}
        self.seen: dict[str, int] = dict.fromkeys(ranges, 0)

    def describe(self) -> dict[str, Any]:
        """The rule as the journal header and the report record it."""
        common = {"confidence": self.confidence, "order_seed": self.seed,
                  "sequence": "PrPl-EB (Waudby-Smith & Ramdas 2023)"}
        if self.baseline is None:
            return {"rule": "target_ci_width", "width": self.width, **common}
        return {"rule": "until_decided", "baseline_sha256": baseline_digest(self.baseline), **common}

    def replay(self, rows: list[dict[str, Any]]) -> None:
        """Take the rows a resumed run's journal holds, in the seeded order."""
        if not rows:
            return
        keys = draw_keys((row["i"] for row in rows), self.seed)
        for k in np.argsort(keys, kind="stable"):
            row = rows[int(k)]
            self.order.append(row["i"])
            self.ids[row["i"]] = str(row["id"])
            self.received[row["i"]] = [self._value(row["scores"].get(m)) for m in self.ranges]
        self._take()

    def start(self, ids: set[str]) -> None:
        """The input is read (the ids of its records); a resumed run's rows may already meet the rule."""
        self.population = len(ids)
        self.eligible = {m: len(ids) if self.baseline is None else len(ids & self.baseline[m].keys())
                         for m in self.ranges}
        unpaired = [m for m, n in self.eligible.items() if not n]
        if self.baseline is not None and ids and unpaired:
            example = sorted(self.baseline[unpaired[0]])[:3]
            raise OptionError(f"until_decided: the baseline shares no record id with this run for "
                              f"{', '.join(unpaired)} (the baseline has ids such as {', '.join(map(repr, example))}; "
                              f"this run {', '.join(map(repr, sorted(ids)[:3]))})")
        self._check()

    def expect(self, chunk: Chunk) -> None:
        """A chunk handed to the executor: its records come next in the sequence, in the seeded order
        (as :meth:`replay` takes them, so a resumed run's sequence is the same)."""
        keys = draw_keys(chunk.positions, self.seed)
        self.order.extend(chunk.positions[int(k)] for k in np.argsort(keys, kind="stable"))
        self.ids.update(zip(chunk.positions, (str(record.id) for record in chunk.records)))

    def add(self, result: ChunkResult) -> str | None:
        """Take a scored chunk; the reason to stop, once the rule is met."""
        columns = [result.columns[m] for m in self.ranges]
        for j, position in enumerate(result.positions):
            self.received[position] = [_column_value(c, j, self.failure_score) for c in columns]
        if self._take():
            self._check()
        return self.reason

    def intervals(self) -> dict[str, SequenceInterval | None]:
        """Each metric's interval over the records taken so far (of the difference, with a baseline)."""
        return {metric_id: final_interval(mean_sequence(
                    np.asarray(values), low, high, confidence=self.confidence,
                    population=self.eligible.get(metric_id) if len(values) == self.seen[metric_id] else None))
                for (metric_id, values), (low, high) in zip(self.series.items(), self.ranges.values())}

    def summary(self) -> dict[str, Any]:
        """The rule, why it stopped, the records the sequence took, and each metric's last interval."""
        return {**self.describe(), "reason": self.reason, "n_used": self.cursor, "n_records": self.population,
                "intervals": {m: i.to_dict() if i else None for m, i in self.intervals().items()}}

    def _take(self) -> bool:
        """Move the records received, up to the first still being scored, into the series."""
        start = self.cursor
        while self.cursor < len(self.order) and self.order[self.cursor] in self.received:
            position = self.order[self.cursor]
            for metric_id, value in zip(self.series, self.received.pop(position)):
                paired = None if self.baseline is None else self.baseline[metric_id].get(self.ids[position])
                if self.baseline is not None and paired is None:
                    continue  # not in the baseline: not part of the paired sequence
                self.seen[metric_id] += 1
                if value is not None:
                    self.series[metric_id].append(value if paired is None else value - paired)
            self.cursor += 1
        return self.cursor > start

    def _check(self) -> None:
        if self.reason is not None or not self.cursor:
            return
        intervals = self.intervals()
        after = f"after {self.cursor} of {self.population} records"
        if self.baseline is None:
            widths = [i.width if i else math.inf for i in intervals.values()]
            if max(widths) < self.width:  # type: ignore[operator]
                self.reason = (f"target CI width {self.width:g} reached {after} "
                               f"(widest {max(widths):.4g}, {self.confidence:.0%} confidence sequence)")
        elif all(i is not None and i.excludes(0.0) for i in intervals.values()):
            differences = "; ".join(f"{m} {i.estimate:+.4g} [{i.low:.4g}, {i.high:.4g}]"
                                    for m, i in intervals.items() if i is not None)
            self.reason = (f"decided {after}: the difference from the baseline excludes 0 "
                           f"({self.confidence:.0%} confidence sequence): {differences}")

    def _value(self, score: dict[str, Any] | None) -> float | None:
        if score is None:
            return None
        if score.get("status") == "ok" and score.get("value") is not None:
            return float(score["value"])
        return self.failure_score if score.get("status") == "error" else None


def _column_value(column: Any, j: int, failure_score: float | None) -> float | None:
    status = column.status[j]
    if status == OK:
        value = column.values[j]
        return None if math.isnan(value) else float(value)
    return failure_score if status == ERROR else None


def prepare(plan: Plan, source: Source) -> tuple[StoppingRule | None, Source]:
    """The run's stopping rule (``None`` without ``target_ci_width`` or ``until_decided``) and the
    source it reads."""
    options = plan.options
    if options.target_ci_width is None and not options.until_decided:
        return None, source
    flag = "target_ci_width" if options.target_ci_width is not None else "until_decided"
    ranges = {}
    for metric in plan.metrics:
        low, high = metric.spec.value_range
        if metric.spec.granularity is not Granularity.SAMPLE or low is None or high is None \
                or not (math.isfinite(low) and math.isfinite(high)):
            raise OptionError(f"{flag} needs per-record metrics with a bounded value range; "
                              f"{metric.id} has {metric.spec.granularity.value} granularity and range "
                              f"[{low}, {high}]")
        if options.baseline is not None and metric.id not in options.baseline:
            raise OptionError(f"until_decided: the baseline run has no values of {metric.id} (it has "
                              f"{', '.join(sorted(options.baseline)) or 'none'})")
        if options.failure_score is not None and not low <= options.failure_score <= high:
            raise OptionError(f"{flag}: failure_score {options.failure_score:g} is outside the value range "
                              f"[{low}, {high}] of {metric.id}")
        ranges[metric.id] = (float(low), float(high))
    rule = StoppingRule(ranges, width=options.target_ci_width, baseline=options.baseline,
                        confidence=options.confidence, seed=options.seed, failure_score=options.failure_score)
    return rule, ShuffledSource(source, rule)
