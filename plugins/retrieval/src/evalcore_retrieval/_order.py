"""The rank of every retrieved document within its query, for flat arrays grouped by query."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._ranking import trec_scores


def sort_keys(query: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """uint64 keys that sort by query, then by single-precision score descending.

    Overwrites ``scores``, and ``query`` when it is already uint64.

    A float's bits with the 31 low bits flipped sort non-negative floats descending below
    ``2**31``; negative floats' own bits sort them descending above it (no NaN, no -0).
    """
    bits = scores.view(np.int32)
    bits ^= ~(bits >> 31) & np.int32(0x7FFFFFFF)
    key = query.astype(np.uint64, copy=False)
    key <<= np.uint64(32)
    key |= bits.view(np.uint32)
    return key


def positions(
    query: np.ndarray, scores: np.ndarray, offsets: np.ndarray, ties: str,
    doc_ids: Callable[[np.ndarray], Sequence[str]],
) -> np.ndarray:
    """The 0-based rank of each entry within its query.

    ``query`` is non-decreasing and ``offsets`` the start of each query's entries.
    ``ties='trec'``: scores descending in single precision, equal ones by document id
    descending (``doc_ids(indices)`` gives the ids of those entries; it is called only for
    tied ones). ``ties='input'``: scores descending as given, equal ones in input order.
    """
    n = len(scores)
    if ties == "trec":
        key = sort_keys(query, trec_scores(scores))
        perm = None if _ascending(key) else np.argsort(key, kind="stable")
        if perm is not None:
            key = key[perm]
        tied = np.flatnonzero(key[1:] == key[:-1])
        if len(tied):
            perm = np.arange(n) if perm is None else perm
            _order_ties_by_doc_id(perm, key, tied, doc_ids)
    else:
        descending = (np.diff(scores) <= 0) | (np.diff(query) != 0)
        perm = None if descending.all() else np.lexsort((-scores, query))
    rank = np.arange(n, dtype=np.int64)
    if perm is None:
        return rank - offsets[query]
    out = np.empty(n, dtype=np.int64)
    out[perm] = rank - offsets[query[perm]]
    return out


def _ascending(key: np.ndarray) -> bool:
    return bool((key[1:] >= key[:-1]).all())


def _order_ties_by_doc_id(
    perm: np.ndarray, key: np.ndarray, tied: np.ndarray, doc_ids: Callable[[np.ndarray], Sequence[str]],
) -> None:
    """Reorder runs of equal ``key`` (sorted) in ``perm`` by document id descending, in place."""
    members = np.union1d(tied, tied + 1)
    group = np.cumsum(np.concatenate([[True], key[members[1:]] != key[members[:-1]]]))
    names = np.array(list(doc_ids(perm[members])), dtype=str)
    _, rank = np.unique(names, return_inverse=True)  # code point order, as strcmp on UTF-8
    perm[members] = perm[members][np.lexsort((-rank, group))]
