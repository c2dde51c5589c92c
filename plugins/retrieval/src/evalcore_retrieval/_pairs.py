"""Exact (query, document) identity across a qrels and a run: duplicates, and the run line of each judgement.

Two ways to the same answer. With polars installed (the ``fast`` extra) and files large
enough to repay importing it, each document id is hashed and a pair becomes one integer,
the query in the high bits and the hash below; every pair the hashes match is then
confirmed on the strings, so the result is exact (on a hash collision the exact way takes
over). Otherwise one dictionary of the document ids of both files gives exact integer
codes (slower on large files: it is a hash table of every id).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from evalcore.plugin import InputError

from ._ranking import offsets_of
from ._trec_lines import QRELS, RUN, Layout

Duplicate = Callable[[Layout, int], InputError]
_SEED = 0x5EED
# below this many lines, importing polars (about 0.3 s and 80 MB) costs more than the exact way
HASH_FROM_LINES = 4_000_000
_LIKELY_COLLISIONS = 0.01  # expected colliding pairs above which the exact way is taken directly


@dataclass(frozen=True)
class Side:
    """One file's pairs: the query index of each line and its document ids."""

    query: np.ndarray  # int64, per line
    docno: pa.ChunkedArray


def match(qrels: Side, run: Side, n_queries: int, duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray]:
    """The run lines and qrels lines of the judged retrieved pairs (in one order).

    Raises ``duplicate(layout, row)`` for the first line (in file order) that repeats a
    pair of its file. ``n_queries`` bounds the query indices.
    """
    hashes = _hashes(qrels.docno, run.docno) if len(qrels.query) + len(run.query) >= HASH_FROM_LINES else None
    if hashes is not None:
        found = _match_hashed(qrels, run, hashes, n_queries, duplicate)
        if found is not None:
            return found
    return _match_exact(qrels, run, duplicate)


def polars_available() -> bool:
    """Whether the hashed way can be taken (polars imports)."""
    try:
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


def _hashes(qrels: pa.ChunkedArray, run: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray] | None:
    if not polars_available():
        return None
    import polars as pl

    def hashed(docno: pa.ChunkedArray) -> np.ndarray:
        parts = [pl.Series(chunk).hash(_SEED).to_numpy() for chunk in docno.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)

    return hashed(qrels), hashed(run)


def _match_hashed(qrels: Side, run: Side, hashes: tuple[np.ndarray, np.ndarray], n_queries: int,
                  duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray] | None:
    """The hashed way; None on a hash collision (or when too few bits are left for the hash)."""
    longest = max(_longest(qrels.query, n_queries), _longest(run.query, n_queries))
    hash_bits = 64 - max(1, n_queries - 1).bit_length() - max(0, longest - 1).bit_length()
    lines = len(qrels.query) + len(run.query)
    if hash_bits < 1 or lines * longest / 2 > _LIKELY_COLLISIONS * 2.0 ** hash_bits:
        return None
    sorted_pairs = []
    for layout, side, hashed in ((QRELS, qrels, hashes[0]), (RUN, run, hashes[1])):
        pairs, rows = keyed = _sorted_keys(side.query, hashed, n_queries, hash_bits)
        equal = np.flatnonzero(pairs[1:] == pairs[:-1])
        if len(equal):
            if not _same_strings(side.docno, rows[equal], side.docno, rows[equal + 1]).all():
                return None  # two documents of a query share a hash
            raise duplicate(layout, int(rows[equal + 1].min()))
        sorted_pairs.append(keyed)
    (judged_pairs, judged_rows), (run_pairs, run_rows) = sorted_pairs
    if not len(run_pairs):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # sorted needles: numpy's binary search narrows as it goes
    found = np.minimum(np.searchsorted(run_pairs, judged_pairs), len(run_pairs) - 1)
    hit = np.flatnonzero(run_pairs[found] == judged_pairs)
    run_lines, judged_lines = run_rows[found[hit]], judged_rows[hit]
    if not _same_strings(run.docno, run_lines, qrels.docno, judged_lines).all():
        return None
    return run_lines, judged_lines


def _longest(query: np.ndarray, n_queries: int) -> int:
    return int(np.bincount(query, minlength=n_queries).max(initial=0))


def _sorted_keys(query: np.ndarray, hashed: np.ndarray, n_queries: int, hash_bits: int,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Sorted (query, top ``hash_bits`` of the document hash) pairs as integers, and the line
    each comes from.

    Equal pairs keep file order. One integer holds the query (high bits), the hash, and
    the line's place within its query (low bits), so one plain sort gives both the order
    and the lines.
    """
    grouping = None if len(query) < 2 or (query[1:] >= query[:-1]).all() else np.argsort(query, kind="stable")
    if grouping is not None:
        query, hashed = query[grouping], hashed[grouping]
    lengths = np.bincount(query, minlength=n_queries)
    offsets = offsets_of(lengths)
    longest = int(lengths.max(initial=0))
    place_bits = max(0, longest - 1).bit_length()
    start = offsets[query]  # the first line of each line's query (queries keep their place in the sort)
    keys = hashed >> np.uint64(64 - hash_bits)
    keys <<= np.uint64(place_bits)
    place = np.arange(len(query))
    place -= start
    keys |= place.view(np.uint64)
    keys |= query.astype(np.uint64) << np.uint64(hash_bits + place_bits)
    if len(keys) and len(keys) == n_queries * longest:
        keys.reshape(n_queries, longest).sort(axis=1)  # query-major already: sort each query's row
    else:
        keys.sort()
    rows = (keys & np.uint64((1 << place_bits) - 1)).view(np.int64)
    rows += start
    pairs = keys >> np.uint64(place_bits)
    return pairs, (rows if grouping is None else grouping[rows])


def _same_strings(a: pa.ChunkedArray, a_rows: np.ndarray, b: pa.ChunkedArray, b_rows: np.ndarray) -> np.ndarray:
    """Whether ``a[a_rows[i]] == b[b_rows[i]]`` for each ``i``."""
    if not len(a_rows):
        return np.ones(0, dtype=bool)
    equal = pc.equal(a.take(pa.array(a_rows)), b.take(pa.array(b_rows)))
    return equal.to_numpy(zero_copy_only=False)


def _match_exact(qrels: Side, run: Side, duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray]:
    """The exact way: one vocabulary of the document ids of both files."""
    encoded = pc.dictionary_encode(pa.chunked_array(qrels.docno.chunks + run.docno.chunks, pa.string()))
    doc_code = np.concatenate([chunk.indices.to_numpy() for chunk in encoded.chunks])
    del encoded
    n_docs = int(doc_code.max()) + 1
    n_judged = len(qrels.query)
    judged_pairs, judged_rows = _sorted_pairs(qrels.query * n_docs + doc_code[:n_judged], QRELS, duplicate)
    run_pairs, run_rows = _sorted_pairs(run.query * n_docs + doc_code[n_judged:], RUN, duplicate)
    del doc_code
    if not len(run_pairs):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    found = np.minimum(np.searchsorted(run_pairs, judged_pairs), len(run_pairs) - 1)
    hit = run_pairs[found] == judged_pairs
    return run_rows[found[hit]], judged_rows[hit]


def _sorted_pairs(pairs: np.ndarray, layout: Layout, duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray]:
    """``pairs`` sorted and the rows they come from; ``duplicate(layout, row)`` for a repeated pair.

    Overwrites ``pairs``.
    """
    shift = len(pairs).bit_length()
    if len(pairs) and int(pairs.max()) < 1 << (62 - shift):
        pairs <<= shift  # the row in the low bits: one in-place sort of plain integers
        pairs |= np.arange(len(pairs))
        pairs.sort()
        rows = pairs & ((1 << shift) - 1)
        pairs >>= shift
    else:
        rows = np.argsort(pairs, kind="stable")
        pairs = pairs[rows]
    repeated = pairs[1:] == pairs[:-1]
    if repeated.any():
        raise duplicate(layout, int(rows[1:][repeated].min()))
    return pairs, rows
