"""TREC qrels and run files as an evalcore source (the ``--qrels`` / ``--run`` reader).

Chunks carry the files' columns (:class:`TrecColumns`), which the retrieval metrics score
directly; metrics of other families get the queries as records (``relevant_docs`` /
``retrieved``), built only when such a metric runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from types import MappingProxyType
from typing import Any

from evalcore import Record
from evalcore.plugin import Chunk

from ._ranking import Rankings
from ._register import TIES
from ._trec import QueryDocuments, TrecData, read_files, records_of

_NOTHING: Any = MappingProxyType({})


class TrecColumns:
    """The queries ``qids[start:stop]`` of a :class:`TrecData`, for one chunk."""

    def __init__(self, data: TrecData | ChunkData, start: int, stop: int, name: str) -> None:
        self.data, self.start, self.stop, self.name = data, start, stop, name

    @property
    def ids(self) -> list[str]:
        return self.data.qids[self.start:self.stop]

    def rankings(self, ties: str) -> Rankings:
        return self.data.rankings(ties, self.start, self.stop)

    def records(self) -> list[Record]:
        """The queries as records (for metrics that do not read the columns)."""
        examples, predictions = self.data.records(self.start, self.stop)
        return [Record(qid, {**example, "id": qid}, prediction, f"{self.name} query {qid!r}")
                for qid, example, prediction in zip(self.ids, examples, predictions)]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (for a Ray worker) with this chunk's queries only, not the whole files' data."""
        detached = ChunkData(self.ids, {ties: self.rankings(ties) for ties in TIES},
                             self.data.documents(self.start, self.stop))
        return TrecColumns, (detached, 0, self.stop - self.start, self.name)


class ChunkData:
    """What :class:`TrecColumns` reads of one chunk's queries, detached from the files' data."""

    def __init__(self, qids: list[str], rankings: dict[str, Rankings],
                 documents: tuple[QueryDocuments, QueryDocuments]) -> None:
        self.qids, self._rankings, self._documents = qids, rankings, documents

    def rankings(self, ties: str, start: int, stop: int) -> Rankings:
        assert (start, stop) == (0, len(self.qids)), "a chunk's data is read whole"
        return self._rankings[ties]

    def documents(self, start: int, stop: int) -> tuple[QueryDocuments, QueryDocuments]:
        assert (start, stop) == (0, len(self.qids)), "a chunk's data is read whole"
        return self._documents

    def records(self, start: int, stop: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return records_of(*self.documents(start, stop))


class TrecSource:
    """The scorable queries of a qrels file and a run file, in chunks of columns.

    The files are read (and hashed: the engine fingerprints its input) from the moment the source
    is made, on a thread of their own: the reading, in compiled code that lets Python go on,
    overlaps with what comes before the data is asked for (the command line loads the engine
    meanwhile). A problem reading them is raised when the data is asked for, as without it."""

    def __init__(self, qrels: str | os.PathLike[str], run: str | os.PathLike[str],
                 max_docs: int | None = None) -> None:
        self.qrels, self.run = Path(os.fspath(qrels)), Path(os.fspath(run))
        self.name = f"{os.fspath(qrels)} + {os.fspath(run)}"
        self.max_docs = max_docs
        self._data: TrecData | None = None
        self._reading: Future[TrecData] | None = _read_ahead(self.qrels, self.run, max_docs)

    @property
    def data(self) -> TrecData:
        if self._data is None:
            reading, self._reading = self._reading, None
            self._data = (reading.result() if reading is not None
                          else read_files(self.qrels, self.run, max_docs=self.max_docs, hash_now=True))
        return self._data

    def inputs(self) -> list[Path]:
        return [self.qrels, self.run]

    def fingerprint(self) -> dict[str, Any]:
        return self.data.describe()

    def total(self) -> int | None:
        return len(self.data)

    def chunks(self, size: int) -> Iterator[Chunk]:
        data = self.data
        for index, start in enumerate(range(0, len(data), size)):
            stop = min(start + size, len(data))
            columns = TrecColumns(data, start, stop, self.name)
            yield Chunk(index, _light_records(columns.ids), list(range(start, stop)), columns=columns)


def _read_ahead(qrels: Path, run: Path, max_docs: int | None) -> Future[TrecData]:
    """:func:`read_files` (hashing the files) started on a daemon thread, which an interpreter that
    exits before the data is asked for does not wait for."""
    reading: Future[TrecData] = Future()

    def read() -> None:
        try:
            reading.set_result(read_files(qrels, run, max_docs=max_docs, hash_now=True))
        except BaseException as exc:  # noqa: BLE001  (raised where the data is asked for)
            reading.set_exception(exc)

    threading.Thread(target=read, name="evalcore-trec-read-ahead", daemon=True).start()
    return reading


def _light_records(ids: Sequence[str]) -> list[Record]:
    """Records that carry only the query id (the columns carry the rest; no dict made per record)."""
    return [Record(qid, _NOTHING, _NOTHING, None, _NOTHING) for qid in ids]


def trec_source(qrels: str | os.PathLike[str], run: str | os.PathLike[str],
                max_docs: int | None = None) -> TrecSource:
    """The reader of ``evalcore evaluate --qrels Q --run R`` (``--max-docs N`` as ``trec_eval -M N``)."""
    return TrecSource(qrels, run, max_docs)
