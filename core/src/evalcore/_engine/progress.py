"""A progress display on standard error over reading, scoring and summarising, one line each.

On a terminal the lines are redrawn in place (``\\r`` and cursor-up), at most ten times a second,
each cut to the terminal's width; when standard error is not a terminal the display is silent, so
standard output stays the report (``--json``), unless it is asked for: then the final lines are
written once, at the end.

Reading a file shows its bytes against its size, so the share done and the time left are known
before the number of records is; the rate is the records scored since the run started divided by
the time since, so it does not jump with the chunks; summarising advances metric by metric.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

_INTERVAL = 0.1  # the least time between two redraws, in seconds
_NAME = 12  # the width of the name column
_BAR = 40  # the widest bar
_UP, _CLEAR = "\x1b[{}A", "\x1b[K"


@dataclass
class _Line:
    """One line of the display: a name, how far along out of how much, and what follows the bar."""

    name: str
    done: float = 0
    total: float | None = None
    count: str = ""
    rate: str = ""
    eta: str = ""
    errors: str = ""

    @property
    def share(self) -> float | None:
        return min(self.done / self.total, 1.0) if self.total else None

    def tail(self) -> str:
        """What follows the bar: the share done, the count, the rate, the time left, the errors."""
        share = self.share
        parts = (f"{share:>4.0%}" if share is not None else " " * 4, self.count, self.rate, self.eta, self.errors)
        return "  ".join(part for part in parts if part)

    def render(self, width: int, bar: int) -> str:
        """The line cut to ``width`` characters, with a bar ``bar`` characters wide (none under 10);
        without a total, blank where the bar and the share would be."""
        share, drawn = self.share, ""
        if bar >= 10:
            drawn = " " * bar if share is None else "#" * round(bar * share) + "." * (bar - round(bar * share))
        return " ".join(part for part in (f"{self.name:<{_NAME}}", drawn, self.tail()) if part)[:width].rstrip()


class RunProgress:
    """Records read and scored, with the true rate and the time left; then the summary, metric by metric.

    ``source`` may tell ``size()`` (bytes to read) and ``bytes_read``; ``total`` is the number of
    records when known up front.
    """

    def __init__(self, enabled: bool | None, *, total: int | None, source: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream: TextIO = sys.stderr
        self.live = self.stream.isatty()
        self.enabled = self.live if enabled is None else enabled
        self.clock = clock
        self.total = total
        self.source = source
        self.size = source.size() if self.enabled and hasattr(source, "size") else None
        self._lines: list[_Line] = []
        self._shown = 0  # lines on the terminal
        self._drawn_at = -math.inf
        self._read_records = 0
        self._scored = 0
        self._scored_here = 0

    def start(self, already: int = 0) -> None:
        if not self.enabled:
            return
        self._started = self.clock()
        self._scored = self._read_records = already
        self._reading = _Line("reading", 0 if self.size else already, self.size or self.total)
        self._scoring = _Line("scoring", already, self.total)
        self._summary: _Line | None = None
        self._lines = [self._reading, self._scoring]
        self._show(self._started, force=True)

    def read(self, count: int) -> None:
        if not self._lines:
            return
        self._read_records += count
        if self.size:
            done = getattr(self.source, "bytes_read", 0)
            self._reading.done = done
            self._reading.count = f"{done / 1e6:,.1f} of {self.size / 1e6:,.1f} MB"
            if self.total is None and done:  # records to come, estimated from the bytes read so far
                self._scoring.total = max(self._read_records, round(self._read_records * self.size / done))
        else:
            self._reading.done = self._read_records
            self._reading.count = f"{self._read_records:,} records"
            if self.total is None:
                self._scoring.total = self._read_records
        self._show(self.clock())

    def scored(self, count: int, errors: int) -> None:
        if not self._lines:
            return
        now = self.clock()
        self._scored += count
        self._scored_here += count
        rate = self._scored_here / max(now - self._started, 1e-9)
        line, total = self._scoring, self._scoring.total
        line.done = self._scored
        line.count = f"{self._scored:,} records"
        line.rate = f"{rate:,.0f}/s"
        line.eta = f"eta {_duration((total - self._scored) / rate)}" if total and rate and self._scored < total else ""
        line.errors = f"errors: {errors:,}" if errors else ""
        self._show(now)

    def summarising(self, metrics: int) -> None:
        """Reading and scoring are done; ``metrics`` aggregates follow."""
        if self._lines and self._summary is None:
            self._reading.total = self._reading.done
            self._scoring.total = self._scored
            self._scoring.eta = ""
            self._summary = _Line("summarising", 0, metrics)
            self._lines.append(self._summary)
            self._show(self.clock(), force=True)

    def summarised(self, metric_id: str) -> None:
        """One more metric is summarised."""
        if self._lines and self._summary is not None:
            self._summary.done += 1
            self._summary.count = metric_id
            self._show(self.clock())

    def interrupted(self) -> None:
        """The run was stopped (Ctrl-C): the lines stay where they were, the scoring one marked."""
        if self._lines:
            self._scoring.name = "interrupted"
            self._scoring.eta = ""
            self._show(self.clock(), force=True)

    def stop(self) -> None:
        """Draw the final lines, which stay on screen."""
        if self._lines:
            self._draw()
            self._lines = []

    def _show(self, now: float, force: bool = False) -> None:
        """Redraw on a terminal, unless ``force`` is off and the last redraw is under a tenth of a second old."""
        if self.live and (force or now - self._drawn_at >= _INTERVAL):
            self._drawn_at = now
            self._draw()

    def _draw(self) -> None:
        """Write the lines: over those on the terminal, else below what is there."""
        width = _columns(self.stream) - 1  # the last column left free: no line wraps
        bar = min(_BAR, width - _NAME - 2 - max(len(line.tail()) for line in self._lines))  # one width for all
        lines = [line.render(width, bar) for line in self._lines]
        if self.live:
            text = (_UP.format(self._shown) if self._shown else "") + "".join(f"\r{t}{_CLEAR}\n" for t in lines)
            self._shown = len(lines)
        else:
            text = "".join(f"{t}\n" for t in lines)
        self.stream.write(text)
        self.stream.flush()


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to; else ``COLUMNS``, standard output's terminal or 80."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns or shutil.get_terminal_size().columns


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
