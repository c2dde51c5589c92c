"""The store folder: the spool of accepted requests, claimed batches and their time-partitioned runs.

``spool/HOUR.jsonl``   every accepted export request (OTLP/JSON), fsynced before it is answered
                       (an earlier hour's file goes once all its traces are claimed);
``batches/SEQ.*``      a batch of complete traces: per scorer its traces and their sampling
                       probabilities, then ``SEQ.manifest.json`` (written last: the batch is claimed);
``runs/DAY/HOUR/``     one run per batch and scorer (``SEQ-SCORER.json`` and its rows journal), read by
                       ``evalcore runs`` and ``evalcore report`` like any run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .otlp import spans_of

__all__ = ["Store", "durable_write"]


def durable_write(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` whole or not at all (a temporary file, fsync, rename)."""
    part = path.with_name(path.name + ".part")
    with open(part, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(part, path)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Store:
    """A watch's folder (see the module's description)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        for sub in ("spool", "batches", "runs"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._spool: Any = None
        self._spool_hour = ""

    # -- the spool -------------------------------------------------------------------
    def append(self, request: dict[str, Any], now: datetime | None = None) -> None:
        """Appends an accepted request to the spool and syncs it to disk."""
        hour = (now or datetime.now(UTC)).strftime("%Y%m%d%H")
        if hour != self._spool_hour:
            self.close()
            self._spool = open(self.root / "spool" / f"{hour}.jsonl", "a", encoding="utf-8")  # noqa: SIM115
            self._spool_hour = hour
        self._spool.write(json.dumps(request, separators=(",", ":")) + "\n")
        self._spool.flush()
        os.fsync(self._spool.fileno())

    def spooled(self) -> Iterator[dict[str, Any]]:
        """Every request in the spool, oldest first (a line cut short by a crash is skipped)."""
        for path in sorted((self.root / "spool").glob("*.jsonl")):
            yield from self._read(path)

    @staticmethod
    def _read(path: Path) -> Iterator[dict[str, Any]]:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue

    def compact(self, claimed: set[str]) -> list[Path]:
        """Removes the spool files of earlier hours whose every trace is claimed; the files removed."""
        removed = []
        for path in sorted((self.root / "spool").glob("*.jsonl")):
            if path.stem == self._spool_hour:
                continue
            ids = {str(span.get("traceId", "")).lower() for request in self._read(path) for span in spans_of(request)}
            if ids <= claimed:
                path.unlink()
                removed.append(path)
        return removed

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    # -- batches ---------------------------------------------------------------------
    def manifests(self) -> list[dict[str, Any]]:
        """The claimed batches, in order."""
        return [json.loads(p.read_text(encoding="utf-8"))
                for p in sorted((self.root / "batches").glob("*.manifest.json"))]

    def next_seq(self) -> int:
        found = [int(p.name.split(".")[0]) for p in (self.root / "batches").glob("*.manifest.json")]
        return max(found, default=0) + 1

    def batch_file(self, seq: int, scorer: str, kind: str) -> Path:
        return self.root / "batches" / f"{seq:08d}-{scorer}.{kind}.jsonl"

    def claim(self, manifest: dict[str, Any], lines: dict[str, tuple[list[str], list[str]]]) -> None:
        """Writes a batch's inputs (per scorer: trace lines, example lines), then its manifest."""
        for scorer, (traces, examples) in lines.items():
            durable_write(self.batch_file(manifest["seq"], scorer, "traces"), "".join(t + "\n" for t in traces))
            durable_write(self.batch_file(manifest["seq"], scorer, "examples"), "".join(e + "\n" for e in examples))
        durable_write(self.root / "batches" / f"{manifest['seq']:08d}.manifest.json", json.dumps(manifest))

    def report_path(self, manifest: dict[str, Any], scorer: str) -> Path:
        """Where the run of one scorer of a batch is kept: ``runs/DAY/HOUR/SEQ-SCORER.json``."""
        day, hour = manifest["hour"].split("T")
        folder = self.root / "runs" / day / hour
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{manifest['seq']:08d}-{scorer}.json"
