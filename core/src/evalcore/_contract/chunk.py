"""A chunk: the unit of work that flows from a reader through the executor to the journal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import attrs

from evalcore._lazy import publish

from .errors import InputError
from .records import Record


@attrs.frozen
class Chunk:
    """Consecutive records of the input.

    ``positions`` are the records' places in the input (0-based, counting rejected
    records too), so results merge in input order whatever order chunks finish in.
    ``columns`` is a reader's columnar form of the same records, for metrics that can
    score it directly (``BatchMetric.score_columns``); ``None`` for row-wise readers. A
    columnar reader's ``records`` may carry ids only: its columns then provide ``ids`` and
    ``records()``, the full records, for metrics that need them.
    """

    index: int
    records: list[Record]
    positions: list[int]
    errors: list[InputError] = attrs.field(factory=list)
    columns: Any = None

    def without(self, done: set[int]) -> Chunk:
        """The chunk less the records at the positions in ``done`` (already journalled)."""
        keep = [i for i, p in enumerate(self.positions) if p not in done]
        if len(keep) == len(self.positions):
            return self
        # a part of a columnar chunk goes on as records (the columns cover the whole chunk)
        records = self.columns.records() if self.columns is not None else self.records
        return attrs.evolve(self, records=[records[i] for i in keep],
                            positions=[self.positions[i] for i in keep], columns=None)


@runtime_checkable
class Source(Protocol):
    """Where records come from. Readers (the core's JSONL reader, a plugin's TREC reader)
    return one; :func:`evalcore.evaluate` also accepts one as ``data``. A source a plugin's
    reader made also carries ``reader`` (:meth:`~evalcore.plugin.ReaderSpec.open` sets it), which
    the run's journal records."""

    name: str
    """How the input is shown to users (a path, ``"qrels.txt + run.txt"``)."""

    def inputs(self) -> list[Path]:
        """The files read (outputs may never overwrite them)."""

    def fingerprint(self) -> dict[str, Any]:
        """What identifies the input for resuming: paths, sizes and content hashes."""

    def total(self) -> int | None:
        """The number of records, when known without reading them (for progress)."""

    def chunks(self, size: int) -> Iterator[Chunk]:
        """The records in chunks of at most ``size``, in input order."""


publish(globals())
