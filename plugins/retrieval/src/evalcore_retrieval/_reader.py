"""TREC qrels and run files as an evalcore source (the ``--qrels`` / ``--run`` reader)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evalcore.plugin import Chunk, file_fingerprint, parse_record


class TrecSource:
    """The queries of a qrels file and a run file, as records in chunks."""

    def __init__(self, qrels: str | os.PathLike[str], run: str | os.PathLike[str]) -> None:
        self.qrels, self.run = Path(os.fspath(qrels)), Path(os.fspath(run))
        self.name = f"{os.fspath(qrels)} + {os.fspath(run)}"

    def inputs(self) -> list[Path]:
        return [self.qrels, self.run]

    def fingerprint(self) -> dict[str, Any]:
        return {"qrels": file_fingerprint(self.qrels), "run": file_fingerprint(self.run)}

    def total(self) -> int | None:
        return None

    def chunks(self, size: int) -> Iterator[Chunk]:
        from evalcore.trec import read_qrels, read_run, records_from_trec

        items = records_from_trec(read_qrels(self.qrels), read_run(self.run))
        for index, start in enumerate(range(0, len(items), size)):
            part = items[start:start + size]
            records = [parse_record(item, source=f"{self.name} query {item['id']!r}", default_id=str(item["id"]))
                       for item in part]
            yield Chunk(index, records, list(range(start, start + len(part))))


def trec_source(qrels: str | os.PathLike[str], run: str | os.PathLike[str]) -> TrecSource:
    """The reader of ``evalcore evaluate --qrels Q --run R``."""
    return TrecSource(qrels, run)
