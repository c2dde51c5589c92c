"""A one-line progress display on a terminal (nothing when output is not a TTY)."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


class Progress:
    """Counts finished records and redraws one status line at most ten times a second."""

    def __init__(self, total: int, *, enabled: bool | None = None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self.errors = 0
        self._last = 0.0
        self._lock = threading.Lock()

    def advance(self, errors: int = 0) -> None:
        with self._lock:
            self.done += 1
            self.errors += errors
            now = time.monotonic()
            if self.enabled and (now - self._last > 0.1 or self.done == self.total):
                self._last = now
                self.stream.write(f"\revaluating {self.done}/{self.total}  errors: {self.errors}")
                self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()
