"""Longest common subsequences of token lists."""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence, bit-parallel (Allison–Dix / Hyyrö).

    Bit ``i`` of a Python int stands for ``a[i]``; each token of ``b`` updates the whole row
    in a few big-int operations, so the cost is ``len(b)`` steps of ``len(a) / 64`` words.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[Hashable, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        match = masks.get(token)
        if match:
            hits = row & match
            row = ((row + hits) | (row - hits)) & full
    return len(a) - row.bit_count()


def lcs_indices(ref: Sequence[Hashable], can: Sequence[Hashable]) -> list[int]:
    """Indices into ``ref`` of one longest common subsequence, chosen as rouge-score's
    ``lcs_ind`` chooses it (dynamic-programming table, backtracking from the end)."""
    cols = len(can)
    table = [[0] * (cols + 1)]
    for token in ref:
        above = table[-1]
        row = [0] * (cols + 1)
        for j in range(1, cols + 1):
            row[j] = above[j - 1] + 1 if token == can[j - 1] else max(above[j], row[j - 1])
        table.append(row)
    i, j = len(ref), cols
    picked: list[int] = []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            picked.append(i - 1)
            i -= 1
            j -= 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    picked.reverse()
    return picked
