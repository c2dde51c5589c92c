"""A progress bar (rich) over reading, scoring and summarising; silent off a terminal."""

from __future__ import annotations

import sys
from typing import Any


class RunProgress:
    """Records read and scored, with rate and time left; then the summary step by metric."""

    def __init__(self, enabled: bool | None, *, total: int | None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.total = total
        self._bar: Any = None

    def start(self, already: int = 0) -> None:
        if not self.enabled:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TaskProgressColumn(), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                             TextColumn("eta"), TimeRemainingColumn(), TextColumn("{task.fields[errors]}"),
                             transient=False, redirect_stdout=False, redirect_stderr=False)
        self._bar.start()
        self._read = self._bar.add_task("reading", total=self.total, completed=already, rate="", errors="")
        self._scored = self._bar.add_task("scoring", total=self.total, completed=already, rate="", errors="")
        self._summary = None

    def read(self, count: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._read, count)
            if self.total is None:  # streaming: the scoring bar's end grows with what was read
                done = self._bar.tasks[self._read].completed
                self._bar.update(self._scored, total=done)

    def scored(self, count: int, errors: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._scored, count)
            task = self._bar.tasks[self._scored]
            speed = task.speed
            self._bar.update(self._scored, rate=f"{speed:,.0f}/s" if speed else "",
                             errors=f"errors: {errors}" if errors else "")

    def summarising(self, what: str) -> None:
        if self._bar is not None:
            if self._summary is None:
                self._bar.update(self._read, total=self._bar.tasks[self._read].completed)
                self._summary = self._bar.add_task("summarising", total=None, rate="", errors="")
            self._bar.update(self._summary, description=f"summarising {what}")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
