"""A progress display (rich) on standard error over reading, scoring and summarising; silent when
standard error is not a terminal, so standard output stays the report (``--json``).

Reading a file shows its bytes against its size, so the share done and the time left are known
before the number of records is; the rate is the records scored since the run started divided by
the time since, so it does not jump with the chunks; summarising advances metric by metric.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


class RunProgress:
    """Records read and scored, with the true rate and the time left; then the summary, metric by metric.

    ``source`` may tell ``size()`` (bytes to read) and ``bytes_read``; ``total`` is the number of
    records when known up front.
    """

    def __init__(self, enabled: bool | None, *, total: int | None, source: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.clock = clock
        self.total = total
        self.source = source
        self.size = source.size() if self.enabled and hasattr(source, "size") else None
        self._bar: Any = None
        self._read_records = 0
        self._scored = 0
        self._scored_here = 0

    def start(self, already: int = 0) -> None:
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

        self._started = self.clock()
        self._scored = self._read_records = already
        self._bar = Progress(TextColumn("{task.description:<12}"), BarColumn(), TaskProgressColumn(),
                             TextColumn("{task.fields[count]}"), TextColumn("{task.fields[rate]}"),
                             TextColumn("{task.fields[eta]}"), console=Console(stderr=True),
                             transient=False, redirect_stdout=False, redirect_stderr=False)
        self._bar.start()
        self._read = self._bar.add_task("reading", total=self.size or self.total,
                                        completed=0 if self.size else already, count="", rate="", eta="")
        self._scoring = self._bar.add_task("scoring", total=self.total, completed=already, count="", rate="", eta="")
        self._summary = None

    def read(self, count: int) -> None:
        if self._bar is None:
            return
        self._read_records += count
        if self.size:
            done = getattr(self.source, "bytes_read", 0)
            self._bar.update(self._read, completed=done, count=f"{done / 1e6:,.1f} of {self.size / 1e6:,.1f} MB")
            if self.total is None and done:  # records to come, estimated from the bytes read so far
                expected = max(self._read_records, round(self._read_records * self.size / done))
                self._bar.update(self._scoring, total=expected)
        else:
            self._bar.advance(self._read, count)
            if self.total is None:
                self._bar.update(self._scoring, total=self._read_records)

    def scored(self, count: int, errors: int) -> None:
        if self._bar is None:
            return
        self._scored += count
        self._scored_here += count
        elapsed = max(self.clock() - self._started, 1e-9)
        rate = self._scored_here / elapsed
        total = self._bar.tasks[self._scoring].total
        eta = f"eta {_duration((total - self._scored) / rate)}" if total and rate and self._scored < total else ""
        self._bar.update(self._scoring, completed=self._scored, count=f"{self._scored:,} records",
                         rate=f"{rate:,.0f}/s", eta=eta + (f"  errors: {errors:,}" if errors else ""))

    def summarising(self, metrics: int) -> None:
        """Reading and scoring are done; ``metrics`` aggregates follow."""
        if self._bar is not None and self._summary is None:
            self._bar.update(self._read, total=self._bar.tasks[self._read].completed)
            self._bar.update(self._scoring, total=self._scored, eta="")
            self._summary = self._bar.add_task("summarising", total=metrics, count="", rate="", eta="")

    def summarised(self, metric_id: str) -> None:
        """One more metric is summarised."""
        if self._bar is not None and self._summary is not None:
            self._bar.update(self._summary, advance=1, count=metric_id)

    def interrupted(self) -> None:
        """The run was stopped (Ctrl-C): the bars stay where they were."""
        if self._bar is not None:
            self._bar.update(self._scoring, description="interrupted", eta="")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
