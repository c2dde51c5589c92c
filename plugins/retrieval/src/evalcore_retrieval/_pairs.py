"""Exact (query, document) identity across a qrels and a run: duplicates, and the grade of each run line.

The compiled scanner (:mod:`._compiled`) compares the document ids' bytes in a small hash
table per query (a large run's queries in two parts, on two threads). Without it, each
document id is hashed (64 bits, vectorised over the bytes of the ids) and a pair becomes
one integer, the query in the high bits and the hash below; every pair the hashes
match is then confirmed on the strings, so the result is exact. On a hash collision (or
when too few bits are left for the hash) one dictionary of the document ids of both files
gives exact integer codes instead (several times slower on large files: a hash table of
every id). Only the string comparisons and the exact way import pyarrow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from evalcore.plugin import InputError
from numpy.lib.stride_tricks import as_strided

from . import _compiled
from ._ranking import offsets_of
from ._strings import Strings
from ._trec_lines import QRELS, RUN, Layout, arrow_indices

Duplicate = Callable[[Layout, int], InputError]
_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_HASH_BLOCK = 1 << 18  # strings hashed at a time (the temporary arrays stay in cache)
_LIKELY_COLLISIONS = 0.01  # expected colliding pairs above which the exact way is taken directly


@dataclass(frozen=True)
class Side:
    """One file's pairs: the query index of each line and its document ids."""

    query: np.ndarray  # int64, per line
    docno: Strings


def judge(qrels: Side, grades: np.ndarray, run: Side, n_queries: int, duplicate: Duplicate) -> np.ndarray:
    """The grade (float64) of each run line's judgement, NaN where the pair is not judged.

    ``grades`` are the qrels lines' grades. Raises ``duplicate(layout, row)`` for the first
    line (in file order) that repeats a pair of its file, the qrels' first.
    """
    if _compiled.scanner is None:
        run_lines, judged_lines = match(qrels, run, n_queries, duplicate)
        out = np.full(len(run.query), np.nan)
        out[run_lines] = grades[judged_lines]
        return out
    out = np.empty(len(run.query))
    judged_side = (_int64(qrels.query), qrels.docno.offsets, qrels.docno.data, np.ascontiguousarray(grades, np.float64))
    run_side = (_int64(run.query), run.docno.offsets, run.docno.data)

    def judge_queries(first: int, stop: int) -> tuple[int, int]:
        return _compiled.scanner.judge(n_queries, first, stop, *judged_side, *run_side, out)

    repeats = _compiled.in_two_parts(judge_queries, n_queries, len(out), lambda: int(run_side[0][len(out) // 2]))
    for layout, lines in ((QRELS, [r[0] for r in repeats]), (RUN, [r[1] for r in repeats])):
        found = [line for line in lines if line >= 0]
        if found:
            raise duplicate(layout, min(found))
    return out


def _int64(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, np.int64)


def match(qrels: Side, run: Side, n_queries: int, duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray]:
    """The run lines and qrels lines of the judged retrieved pairs (in one order).

    Raises ``duplicate(layout, row)`` for the first line (in file order) that repeats a
    pair of its file. ``n_queries`` bounds the query indices.
    """
    found = _match_hashed(qrels, run, (doc_hashes(qrels.docno), doc_hashes(run.docno)), n_queries, duplicate)
    return _match_exact(qrels, run, duplicate) if found is None else found


def doc_hashes(docno: Strings) -> np.ndarray:
    """A 64-bit hash (uint64) of each string: equal strings, equal hashes."""
    parts = [_slice_hashes(docno.offsets[start:start + _HASH_BLOCK + 1], docno.data)
             for start in range(0, len(docno), _HASH_BLOCK)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _slice_hashes(offsets: np.ndarray, data: object) -> np.ndarray:
    """Hash the bytes of each string ``data[offsets[i]:offsets[i + 1]]`` eight at a time."""
    first, last = int(offsets[0]), int(offsets[-1])
    starts, lengths = offsets[:-1] - first, np.diff(offsets)
    padded = np.zeros(last - first + 8, dtype=np.uint8)
    if last > first:
        padded[:last - first] = np.frombuffer(data, np.uint8)[first:last]
    # the 8 bytes from every byte on, as little-endian integers (unaligned reads)
    words = as_strided(padded[:8].view(np.uint64), shape=(len(padded) - 7,), strides=(1,))
    hashed = lengths.astype(np.uint64) * _GOLDEN
    for start in range(0, int(lengths.max(initial=0)), 8):
        longer = None if start == 0 else np.flatnonzero(lengths > start)
        rest = lengths - start if longer is None else lengths[longer] - start
        word = words[starts + start if longer is None else starts[longer] + start]
        partial = np.flatnonzero(rest < 8)  # keep only the string's own bytes of the last word
        shift = ((8 - rest[partial]) * 8).astype(np.uint64)
        word[partial] = (word[partial] << shift) >> shift
        part = hashed if longer is None else hashed[longer]
        part ^= word
        part *= _MIX1
        part ^= part >> np.uint64(29)
        if longer is not None:
            hashed[longer] = part
    # splitmix64's finaliser: every input bit reaches the high bits, which the pair keys use
    hashed ^= hashed >> np.uint64(30)
    hashed *= _MIX1
    hashed ^= hashed >> np.uint64(27)
    hashed *= _MIX2
    hashed ^= hashed >> np.uint64(31)
    return hashed


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


def _same_strings(a: Strings, a_rows: np.ndarray, b: Strings, b_rows: np.ndarray) -> np.ndarray:
    """Whether ``a[a_rows[i]] == b[b_rows[i]]`` for each ``i``."""
    if not len(a_rows):
        return np.ones(0, dtype=bool)
    import pyarrow.compute as pc

    equal = pc.equal(a.arrow().take(arrow_indices(a_rows)), b.arrow().take(arrow_indices(b_rows)))
    return equal.to_numpy(zero_copy_only=False)


def _match_exact(qrels: Side, run: Side, duplicate: Duplicate) -> tuple[np.ndarray, np.ndarray]:
    """The exact way: one vocabulary of the document ids of both files."""
    import pyarrow as pa
    import pyarrow.compute as pc

    docnos = [chunk.cast(pa.large_string()) for chunk in qrels.docno.arrow().chunks + run.docno.arrow().chunks]
    encoded = pc.dictionary_encode(pa.chunked_array(docnos, pa.large_string()))
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
