"""What the summary needs of each record, and nothing more: a few numbers per record and metric.

Rows go to the journal; here each metric keeps its per-record value and status (for the
mean, the standard error and the bootstrap), its cost, and for corpus metrics the
per-record states (to merge, and to resample for the interval). Everything is keyed by
the record's input position, so the order chunks finish in changes nothing.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from evalcore._contract.metric import CorpusMetric, Metric
from evalcore._contract.records import Record
from evalcore._contract.scores import Score, Status

from .runners import BUDGET_SKIP

OK, SKIPPED, ERROR, BUDGET = 0, 1, 2, 3
_STATUS = {"ok": OK, "skipped": SKIPPED, "error": ERROR}
_NAN = float("nan")
_MAX_REASONS = 32  # distinct reasons counted per metric; the rest are counted as "other reasons"

Reason = tuple[str, str]
"""``("skipped", reason)`` or ``("error", "Type: message")``."""


def _reason(score: Score) -> Reason:
    if score.status is Status.ERROR:
        return "error", f"{score.error_type}: {score.error_message}"
    return "skipped", score.reason or "no reason given"


class Column:
    """One metric's values, status codes and cost over one chunk (filled as rows are built)."""

    __slots__ = ("values", "status", "cost_msats", "reasons")

    def __init__(self) -> None:
        self.values = array("d")
        self.status = array("b")
        self.cost_msats = 0
        self.reasons: Counter[Reason] = Counter()

    @classmethod
    def from_values(cls, values: Any, skipped: dict[int, str]) -> Column:
        """A column from a metric's values over a chunk and the positions it skipped."""
        column = cls()
        array_values = np.asarray(values, dtype=float).copy()
        status = np.zeros(len(array_values), dtype=np.int8)
        if skipped:
            where = np.fromiter(skipped, dtype=np.int64, count=len(skipped))
            array_values[where] = np.nan
            status[where] = SKIPPED
            column.reasons.update(("skipped", reason) for reason in skipped.values())
        column.values.frombytes(array_values.tobytes())
        column.status.frombytes(status.tobytes())
        return column

    def extend(self, scores: Iterable[Score]) -> int:
        """Add the records' scores, in order; the number of errors among them."""
        values, codes = self.values, self.status
        ok, error = Status.OK, Status.ERROR
        errors = cost = 0
        for score in scores:
            status = score.status
            if status is ok:
                value = score.value
                values.append(value if value is not None else _NAN)
                codes.append(OK)
            else:
                values.append(_NAN)
                self.reasons[_reason(score)] += 1
                if status is error:
                    errors += 1
                    codes.append(ERROR)
                else:
                    codes.append(BUDGET if score.reason == BUDGET_SKIP else SKIPPED)
            cost += score.cost_msats
        self.cost_msats += cost
        return errors


class MetricTally:
    """One metric's per-record numbers."""

    def __init__(self, metric: Metric) -> None:
        self.metric = metric
        self.corpus = isinstance(metric, CorpusMetric)
        self.positions = array("q")
        self.values = array("d")
        self.status = array("b")
        self.cost_msats = 0
        self.states: dict[int, Any] = {}
        self.reasons: Counter[Reason] = Counter()

    def count_reasons(self, reasons: Iterable[tuple[Reason, int]]) -> None:
        """Count why records were not scored (distinct reasons bounded, the rest as "other reasons")."""
        counts = self.reasons
        for key, n in reasons:
            if key not in counts and len(counts) >= _MAX_REASONS:
                key = (key[0], "other reasons")
            counts[key] += n

    def top_reasons(self, limit: int = 3) -> list[dict[str, Any]]:
        """The most common reasons records were not scored: ``status``, ``reason``, ``count``."""
        return [{"status": status, "reason": reason, "count": n}
                for (status, reason), n in self.reasons.most_common(limit)]

    def add(self, position: int, score: dict[str, Any], state: Any = None) -> None:
        status = _STATUS[score["status"]]
        if status != OK:
            error = score.get("error") or {}
            self.count_reasons([(("error", f"{error.get('type')}: {error.get('message')}") if status == ERROR
                                 else ("skipped", score.get("reason") or "no reason given"), 1)])
        if status == SKIPPED and score.get("reason") == BUDGET_SKIP:
            status = BUDGET
        value = score.get("value")
        self.positions.append(position)
        self.values.append(value if status == OK and value is not None else np.nan)
        self.status.append(status)
        self.cost_msats += score.get("cost_msats", 0)
        if self.corpus and state is not None:
            self.states[position] = state

    def add_column(self, positions: Sequence[int], column: Column, states: Sequence[dict[str, Any]]) -> None:
        self.positions.extend(positions)
        self.values.extend(column.values)
        self.status.extend(column.status)
        self.cost_msats += column.cost_msats
        if column.reasons:
            self.count_reasons(column.reasons.items())
        if self.corpus:
            for position, record_states in zip(positions, states):
                state = record_states.get(self.metric.id)
                if state is not None:
                    self.states[position] = state

    def ordered(self) -> tuple[np.ndarray, np.ndarray]:
        """Values and statuses in input order."""
        order = np.argsort(np.frombuffer(self.positions, dtype=np.int64), kind="stable")
        return np.frombuffer(self.values)[order], np.frombuffer(self.status, dtype=np.int8)[order]

    def ordered_states(self) -> list[Any]:
        return [self.states[p] for p in sorted(self.states)]


class Tally:
    """Every metric's :class:`MetricTally`, fed from scored chunks or resumed journal rows."""

    def __init__(self, metrics: Iterable[Metric]) -> None:
        self.metrics = {m.id: MetricTally(m) for m in metrics}
        self.n_records = 0
        self.n_errors = 0

    def add_chunk(self, positions: Sequence[int], columns: dict[str, Column], states: Sequence[dict[str, Any]],
                  n_errors: int) -> None:
        """Add a scored chunk's columns (``positions`` in the rows' order)."""
        self.n_records += len(positions)
        self.n_errors += n_errors
        for metric_id, tally in self.metrics.items():
            tally.add_column(positions, columns[metric_id], states)

    def add_rows(self, rows: Iterable[dict[str, Any]], states: Iterable[dict[str, Any]] | None = None) -> None:
        """Add rows; ``states`` gives the raw corpus states (else they are decoded from the rows)."""
        states_iter = iter(states) if states is not None else None
        for row in rows:
            raw_states = next(states_iter) if states_iter is not None else {}
            position = row.get("i", self.n_records)
            self.n_records += 1
            for metric_id, tally in self.metrics.items():
                score = row["scores"].get(metric_id)
                if score is None:
                    continue
                state = raw_states.get(metric_id)
                if state is None and tally.corpus and "state" in score:
                    state = tally.metric.decode_state(score["state"])
                tally.add(position, score, state)
                self.n_errors += score["status"] == "error"


class SameAnswers:
    """How many records hold both a response and a reference answer, and on how many the two are
    equal (the response, or the only reference answer): a field map that reads both from one field."""

    def __init__(self) -> None:
        self.n_same = 0
        self.n_both = 0

    def add(self, records: Iterable[Record]) -> None:
        same = both = 0
        for record in records:
            response = record.prediction.get("response")
            reference = record.example.get("reference_answer")
            if response is not None and reference is not None:
                both += 1
                same += reference == response or reference == [response]
        self.n_same += same
        self.n_both += both
