"""Diversity qrels files (ndeval's format) read into ``relevant_docs`` entries with subtopics,
and with a TREC run as the records of ``evalcore evaluate --subtopic-qrels Q --run R``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evalcore import Record
from evalcore.plugin import Chunk, InputError, file_fingerprint

from ._trec_lines import RUN, _decode, _integer, file_bytes, read_columns

_BOM = b"\xef\xbb\xbf"
_COLUMNS = ("qid", "subtopic", "docno", "rel")


def read_subtopic_qrels(path: str | os.PathLike[str]) -> dict[str, list[dict[str, Any]]]:
    """Each query's judgements from a diversity qrels file, as ``example.relevant_docs`` entries.

    Lines are ``qid subtopic docno rel`` (ndeval's format, the one of the TREC Web track's
    diversity qrels): the second column, which trec_eval ignores, names the subtopic, and a
    document relevant to several subtopics has one line for each. Each line becomes
    ``{"doc_id": docno, "subtopic": subtopic, "relevance": rel}``, in file order. As in
    trec_eval 10's files, blank lines are skipped and a line whose first field starts with
    ``#`` is a comment. Bad lines, and a (query, subtopic, document) judged twice, raise
    :class:`~evalcore.plugin.InputError` naming ``file:line`` and the field.
    """
    name, data = file_bytes(path)
    body = bytes(data[len(_BOM):] if data[:len(_BOM)] == _BOM else data)
    queries: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for lineno, line in enumerate(body.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        source = f"{name}:{lineno}"
        if len(fields) != len(_COLUMNS):
            raise InputError(f"expected 4 columns '{' '.join(_COLUMNS)}', got {len(fields)}", source=source,
                             field="columns")
        qid, subtopic, docno, rel = (_decode(f, column, source) for f, column in zip(fields, _COLUMNS))
        if (qid, subtopic, docno) in seen:
            raise InputError(f"document {docno!r} is judged twice for subtopic {subtopic!r} of query {qid!r}",
                             source=source, field="docno")
        seen.add((qid, subtopic, docno))
        queries.setdefault(qid, []).append({"doc_id": docno, "subtopic": subtopic, "relevance": _integer(rel, source)})
    if not queries:
        raise InputError(f"no qrels lines (expected '{' '.join(_COLUMNS)}')", source=name)
    return queries


class SubtopicSource:
    """A diversity qrels file and a TREC run as records (``evalcore evaluate --subtopic-qrels Q
    --run R``): one per judged query, the run's queries first in run order, then those only in the
    qrels (nothing retrieved). ``relevant_docs`` are :func:`read_subtopic_qrels`' entries,
    ``retrieved`` the run's documents with their scores in file order (the metrics rank them)."""

    def __init__(self, subtopic_qrels: str | os.PathLike[str], run: str | os.PathLike[str]) -> None:
        self.qrels, self.run = Path(os.fspath(subtopic_qrels)), Path(os.fspath(run))
        self.name = f"{os.fspath(subtopic_qrels)} + {os.fspath(run)}"
        self._records: list[Record] | None = None

    def inputs(self) -> list[Path]:
        return [self.qrels, self.run]

    def fingerprint(self) -> dict[str, Any]:
        return {"subtopic_qrels": file_fingerprint(self.qrels), "run": file_fingerprint(self.run)}

    def total(self) -> int | None:
        return len(self.records())

    def records(self) -> list[Record]:
        """Every judged query as a record (read once)."""
        if self._records is None:
            judged = read_subtopic_qrels(self.qrels)
            name, data = file_bytes(self.run)
            columns = read_columns(data, name, RUN)
            ranked: dict[str, list[dict[str, Any]]] = {}
            line_qids = [columns.qids[q] for q in columns.query.tolist()]
            for qid, docno, score in zip(line_qids, columns.docno.to_pylist(), columns.value.tolist()):
                ranked.setdefault(qid, []).append({"doc_id": docno, "score": score})
            qids = [q for q in ranked if q in judged] + [q for q in judged if q not in ranked]
            self._records = [
                Record(qid, {"id": qid, "relevant_docs": judged[qid]}, {"retrieved": ranked.get(qid, [])},
                       f"{self.name} query {qid!r}")
                for qid in qids
            ]
        return self._records

    def chunks(self, size: int) -> Iterator[Chunk]:
        records = self.records()
        for index, start in enumerate(range(0, len(records), size)):
            stop = min(start + size, len(records))
            yield Chunk(index, records[start:stop], list(range(start, stop)))


def subtopic_source(subtopic_qrels: str | os.PathLike[str], run: str | os.PathLike[str]) -> SubtopicSource:
    """The reader of ``evalcore evaluate --subtopic-qrels Q --run R`` (diversity qrels, for alpha-nDCG)."""
    return SubtopicSource(subtopic_qrels, run)
