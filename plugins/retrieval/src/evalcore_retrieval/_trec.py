"""TREC qrels and run files read into columns, and :class:`Rankings` built from them without per-query dicts."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from evalcore.plugin import InputError

from . import _compiled
from ._order import positions
from ._pairs import Side, judge
from ._ranking import Rankings, offsets_of
from ._trec_lines import QRELS, RUN, Buffer, Columns, Layout, file_bytes, first_error, read_columns

__all__ = ["QueryDocuments", "TrecData", "read_trec", "records_of"]

QueryDocuments = list[tuple[list[str], list[Any]]]
"""Per query: its document ids and their values (grades or scores)."""


@dataclass(frozen=True)
class _Entries:
    """One file's lines of the scored queries, grouped by query (qids order), file order within."""

    offsets: np.ndarray  # entries of qids[i] are [offsets[i], offsets[i + 1])
    query: np.ndarray  # int64 index into qids, non-decreasing
    row: np.ndarray  # the line's index in the file's columns (for the docno)
    value: np.ndarray  # grade (qrels) or score (run)


class TrecData:
    """A qrels file and a run file held as columns.

    ``qids`` are the queries that can be scored (those with judgements): the ones of the run
    in run order (pytrec_eval's order), then those only in the qrels, in qrels order;
    ``present[i]`` tells whether ``qids[i]`` is in the run (``trec_eval -c`` scores the
    others 0). Queries only in the run cannot be scored and are left out
    (``run_only`` counts them).
    """

    def __init__(
        self, qids: list[str], present: np.ndarray, qrels: tuple[Columns, _Entries],
        run: tuple[Columns, _Entries], grades: np.ndarray, run_only: int,
        sources: dict[str, _Source], max_docs: int | None,
    ) -> None:
        self.qids = qids
        self.present = present
        self.run_only = run_only
        self._qrels_columns, self._judged = qrels
        self._run_columns, self._ranked = run
        self._grades = grades  # the grade of each run entry (NaN when unjudged)
        self._sources = sources
        self._max_docs = max_docs

    def __len__(self) -> int:
        return len(self.qids)

    @cached_property
    def _trec_positions(self) -> np.ndarray:
        return self._positions("trec")

    @cached_property
    def _input_positions(self) -> np.ndarray:
        return self._positions("input")

    def _positions(self, ties: str) -> np.ndarray:
        ranked = self._ranked
        if _compiled.scanner is not None:
            out = np.empty(len(ranked.value), np.int64)
            entries = (np.ascontiguousarray(ranked.offsets, np.int64), np.ascontiguousarray(ranked.value, np.float64),
                       np.ascontiguousarray(ranked.row, np.int64), self._run_columns.docno.offsets,
                       self._run_columns.docno.data,
                       ties == "trec")

            def rank_queries(first: int, stop: int) -> None:
                _compiled.scanner.rank(*entries, first, stop, out)

            _compiled.in_two_parts(rank_queries, len(self.qids), len(out), lambda: int(ranked.query[len(out) // 2]))
            return out
        return positions(ranked.query, ranked.value, ranked.offsets, ties, self._run_doc_ids)

    def _run_doc_ids(self, entries: np.ndarray) -> list[str]:
        return self._run_columns.docno.take(self._ranked.row[entries])

    def rankings(self, ties: str = "trec", start: int = 0, stop: int | None = None) -> Rankings:
        """The :class:`Rankings` of ``qids[start:stop]`` (``ties`` is the metrics' parameter)."""
        start, stop, _ = slice(start, stop).indices(len(self.qids))
        stop = max(start, stop)
        ranked, judged = self._ranked, self._judged
        lo, hi = ranked.offsets[start], ranked.offsets[stop]
        position = (self._trec_positions if ties == "trec" else self._input_positions)[lo:hi]
        grades = self._grades[lo:hi]
        hits = np.flatnonzero(grades > 0)
        query = ranked.query[lo:hi]
        hit_query, hit_position = query[hits] - start, position[hits]
        order = _by_query_and_position(hit_query, hit_position)
        if order is not None:
            hit_query, hit_position, hits = hit_query[order], hit_position[order], hits[order]
        # judged retrieved documents that are not relevant (bpref, infAP, unj, judged-only need
        # them): grade <= 0, which leaves out NaN (not judged)
        misses = np.flatnonzero(grades <= 0)
        miss_query, miss_position = query[misses] - start, position[misses]
        order = _by_query_and_position(miss_query, miss_position)
        if order is not None:
            miss_query, miss_position, misses = miss_query[order], miss_position[order], misses[order]
        j_lo, j_hi = judged.offsets[start], judged.offsets[stop]
        return Rankings(
            np.diff(ranked.offsets[start:stop + 1]), self.present[start:stop], hit_query, hit_position,
            grades[hits], judged.offsets[start:stop + 1] - j_lo, judged.value[j_lo:j_hi].astype(float),
            miss_query, miss_position, grades[misses],
        )

    def records(self, start: int = 0, stop: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Example and prediction records of ``qids[start:stop]``.

        ``relevant_docs`` lists every judged document in qrels order (non-relevant ones
        included); ``retrieved`` is ordered by score descending, equal scores by document id
        descending, with ``rank`` counting from 1.
        """
        return records_of(*self.documents(start, stop))

    def documents(self, start: int = 0, stop: int | None = None) -> tuple[QueryDocuments, QueryDocuments]:
        """The judged documents with their grades and the ranked ones with their scores, per
        query of ``qids[start:stop]``, in file order."""
        start, stop, _ = slice(start, stop).indices(len(self.qids))
        return (_per_query(self._judged, self._qrels_columns, start, stop),
                _per_query(self._ranked, self._run_columns, start, stop))

    def describe(self) -> dict[str, Any]:
        """Each file's path, size in bytes and sha256 of the bytes read, and the ``max_docs`` cap."""
        files = {kind: {"path": source.name, "size": source.size, "sha256": source.sha256}
                 for kind, source in self._sources.items()}
        return {**files, "max_docs": self._max_docs}


def read_trec(
    qrels_path: str | os.PathLike[str], run_path: str | os.PathLike[str], *, max_docs: int | None = None,
) -> TrecData:
    """Read a qrels file and a run file (trec_eval 10's formats) into a :class:`TrecData`.

    ``max_docs`` keeps the first ``max_docs`` documents of each query in trec_eval's order
    (``trec_eval -M``). Bad input raises :class:`~evalcore.plugin.InputError` naming
    ``file:line`` and the field.
    """
    return read_files(qrels_path, run_path, max_docs=max_docs, hash_now=False)


def read_files(qrels_path: str | os.PathLike[str], run_path: str | os.PathLike[str], *, max_docs: int | None,
               hash_now: bool) -> TrecData:
    """:func:`read_trec`; with ``hash_now`` the files are hashed while they are read (a run's
    fingerprint), otherwise when :meth:`TrecData.describe` first asks."""
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, int) or max_docs < 1):
        raise InputError(f"max_docs must be a positive integer, got {max_docs!r}", field="max_docs")
    paths = {QRELS: qrels_path, RUN: run_path}
    seen = {layout: _stat(path) for layout, path in paths.items()}  # before reading: a later change shows
    files = {layout: file_bytes(path) for layout, path in paths.items()}
    with ThreadPoolExecutor(max_workers=2) as pool:
        # the scanner and hashlib release the GIL: both files are read (and hashed) at once, the
        # longest job (reading the run) first
        reading = {layout.kind: pool.submit(read_columns, data, name, layout)
                   for layout, (name, data) in reversed(files.items())}
        sources = {layout.kind: _Source(name, len(data), seen[layout],
                                        pool.submit(_sha256, data) if hash_now else None)
                   for layout, (name, data) in files.items()}
        del files
        qrels, run = reading["qrels"].result(), reading["run"].result()
        return build(qrels, run, lambda layout, row: first_error(sources[layout.kind].name, layout), sources,
                     max_docs)


def _sha256(data: Buffer) -> str:
    return hashlib.sha256(data).hexdigest()


def _stat(path: str | os.PathLike[str]) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None  # file_bytes names the problem


class _Source:
    """A file read: its name, its size and the sha256 of its bytes (``digest``: taken while it was
    read, or None: when first asked for)."""

    def __init__(self, name: str, size: int, seen: os.stat_result | None, digest: Future[str] | None) -> None:
        self.name, self.size, self._seen, self._digest = name, size, seen, digest

    @cached_property
    def sha256(self) -> str:
        """The digest of the bytes read, or of the file read again; then an error unless it is still
        the file read (the same device, inode, size and modification time)."""
        if self._digest is not None:
            return self._digest.result()
        try:
            with open(self.name, "rb") as handle:
                digest = hashlib.file_digest(handle, "sha256").hexdigest()
                now = os.fstat(handle.fileno())
        except OSError as exc:
            raise InputError(f"the file changed after it was read ({exc.strerror})", source=self.name) from None
        if self._seen is None or _version(now) != _version(self._seen):
            raise InputError("the file changed after it was read: its digest would not be of the lines read",
                             source=self.name)
        return digest


def _version(status: os.stat_result) -> tuple[int, int, int, int]:
    return status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns


def build(qrels: Columns, run: Columns, duplicate: Callable[[Layout, int], InputError],
          sources: dict[str, _Source] | None = None, max_docs: int | None = None,
          ) -> TrecData:
    """:class:`TrecData` from the columns of a qrels and a run; ``sources`` are the files read.

    ``duplicate(layout, row)`` is the error for row ``row`` repeating a (query, document) pair.
    """
    qids, n_shared, qrels_codes, run_codes = _queries(qrels.qids, run.qids)
    run_query, qrels_query = _recoded(run.query, run_codes), _recoded(qrels.query, qrels_codes)
    # the queries only in the run come after qids: they are checked, not scored
    n_queries = len(qrels.qids) + len(run.qids) - n_shared
    grades = judge(Side(qrels_query, qrels.docno), qrels.value, Side(run_query, run.docno), n_queries, duplicate)

    scored: slice | np.ndarray = slice(None)
    rows = np.arange(len(run))
    if (run_query >= len(qids)).any():
        scored = rows = np.flatnonzero(run_query < len(qids))
    ranked, order = _group(run_query[scored], len(qids), rows, run.value[scored])
    grades = grades[scored] if order is None else grades[scored][order]
    judged_entries, _ = _group(qrels_query, len(qids), np.arange(len(qrels)), qrels.value)
    present = np.zeros(len(qids), dtype=bool)
    present[:n_shared] = True
    data = TrecData(qids, present, (qrels, judged_entries), (run, ranked), grades, len(run.qids) - n_shared,
                    sources or {}, max_docs)
    return data if max_docs is None else _cap(data, max_docs)


def _queries(qrels_qids: list[str], run_qids: list[str]) -> tuple[list[str], int, np.ndarray, np.ndarray]:
    """The scored queries (``TrecData.qids``), how many of them are in the run (they come first),
    and each file's query codes renumbered: ``qids`` first, then the queries only in the run.

    Each list is of distinct ids; one dict of the run's is built, everything else is arrays.
    """
    run_index = dict(zip(run_qids, range(len(run_qids))))
    in_run = np.fromiter((run_index.get(q, -1) for q in qrels_qids), np.int64, len(qrels_qids))
    found = in_run >= 0
    judged = np.zeros(len(run_qids), dtype=bool)
    judged[in_run[found]] = True
    n_shared, qrels_only = int(judged.sum()), np.flatnonzero(~found)
    run_codes = np.empty(len(run_qids), np.int64)
    run_codes[judged] = np.arange(n_shared)
    run_codes[~judged] = n_shared + len(qrels_only) + np.arange(len(run_qids) - n_shared)
    qrels_codes = np.empty(len(qrels_qids), np.int64)
    qrels_codes[found] = run_codes[in_run[found]]
    qrels_codes[qrels_only] = n_shared + np.arange(len(qrels_only))
    shared = run_qids if n_shared == len(run_qids) else [run_qids[i] for i in np.flatnonzero(judged).tolist()]
    return [*shared, *(qrels_qids[i] for i in qrels_only.tolist())], n_shared, qrels_codes, run_codes


def _recoded(codes: np.ndarray, new_codes: np.ndarray) -> np.ndarray:
    """``codes`` (int64) mapped through ``new_codes``; ``codes`` itself where each keeps its value
    (a run whose queries are all judged: no copy of its 10M query codes)."""
    if np.array_equal(new_codes, np.arange(len(new_codes))):
        return codes
    return new_codes[codes]


def _group(query: np.ndarray, n: int, row: np.ndarray, value: np.ndarray) -> tuple[_Entries, np.ndarray | None]:
    """Entries ordered by query (stable: file order within a query), and the order applied."""
    order = None
    if len(query) > 1 and not (query[1:] >= query[:-1]).all():
        order = np.argsort(query, kind="stable")
        query, row, value = query[order], row[order], value[order]
    return _Entries(offsets_of(np.bincount(query, minlength=n)), query, row, value), order


def _cap(data: TrecData, max_docs: int) -> TrecData:
    """Only the first ``max_docs`` documents of each query in trec_eval's order (``trec_eval -M``)."""
    keep = np.flatnonzero(data._trec_positions < max_docs)
    if len(keep) == len(data._grades):
        return data
    ranked = data._ranked
    query = ranked.query[keep]
    capped = _Entries(offsets_of(np.bincount(query, minlength=len(data.qids))), query,
                      ranked.row[keep], ranked.value[keep])
    out = TrecData(data.qids, data.present, (data._qrels_columns, data._judged),
                   (data._run_columns, capped), data._grades[keep], data.run_only, data._sources, max_docs)
    out.__dict__["_trec_positions"] = data._trec_positions[keep]
    return out


def _by_query_and_position(query: np.ndarray, position: np.ndarray) -> np.ndarray | None:
    """The order that sorts hits by query then position, or None when they already are."""
    if len(query) < 2:
        return None
    same = query[1:] == query[:-1]
    if ((query[1:] > query[:-1]) | (same & (position[1:] > position[:-1]))).all():
        return None
    return np.lexsort((position, query))


def records_of(judged: QueryDocuments, ranked: QueryDocuments) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Example and prediction records of the queries whose :meth:`TrecData.documents` are given."""
    examples, predictions = [], []
    for (docs, grades), (retrieved, scores) in zip(judged, ranked):
        examples.append({"relevant_docs": [
            {"doc_id": doc, "relevance": grade} for doc, grade in zip(docs, grades)
        ]})
        order = sorted(zip(scores, retrieved), reverse=True)
        predictions.append({"retrieved": [
            {"doc_id": doc, "score": score, "rank": rank} for rank, (score, doc) in enumerate(order, start=1)
        ]})
    return examples, predictions


def _per_query(entries: _Entries, columns: Columns, start: int, stop: int) -> QueryDocuments:
    lo, hi = entries.offsets[start], entries.offsets[stop]
    docs = columns.docno.take(entries.row[lo:hi])
    values = entries.value[lo:hi].tolist()
    bounds = (entries.offsets[start:stop + 1] - lo).tolist()
    return [(docs[a:b], values[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
