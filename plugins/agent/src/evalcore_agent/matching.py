"""Comparing tool calls and pairing expected calls with the calls made.

Values compare as JSON: ``true`` is not ``1`` (Python's ``True == 1`` is not used), ``1`` equals
``1.0``, mapping key order does not matter, lists compare item by item. With ``ignore_case``
tool names and string values (not mapping keys) are compared case-folded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evalcore.plugin import get_path

from .calls import ToolCall

ARGUMENT_MODES = ("exact", "partial", "expected_keys", "actual_keys", "ignore")
"""How the arguments of a call are compared with those of the expected call."""

ArgumentRule = str | tuple[str, ...]
"""An argument mode, or the argument paths to compare (agentevals' per-tool key lists)."""


def json_equal(a: Any, b: Any, ignore_case: bool = False) -> bool:
    """JSON-style deep equality (see the module docstring)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key], ignore_case) for key in a)
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return False
    a_list = isinstance(a, (list, tuple))
    b_list = isinstance(b, (list, tuple))
    if a_list or b_list:
        return a_list and b_list and len(a) == len(b) and all(json_equal(x, y, ignore_case) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold() if ignore_case else a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def same_name(a: str, b: str, ignore_case: bool) -> bool:
    return a.casefold() == b.casefold() if ignore_case else a == b


def partial_agreement(expected: Mapping[str, Any], actual: Mapping[str, Any], ignore_case: bool = False) -> float:
    """DeepEval's share of agreeing arguments (its ``_compare_dicts``).

    1.0 when the mappings are equal; otherwise each key the two share adds 1/|keys of either|
    when the values are equal, or that share of the agreement of two nested mappings.
    """
    if json_equal(expected, actual, ignore_case):
        return 1.0
    union = len(expected.keys() | actual.keys())
    score = 0.0
    for key in expected:
        if key not in actual:
            continue
        if json_equal(expected[key], actual[key], ignore_case):
            score += 1 / union
        elif isinstance(expected[key], Mapping) and isinstance(actual[key], Mapping):
            score += partial_agreement(expected[key], actual[key], ignore_case) / union
    return score


def _keys_agree(wanted: Mapping[str, Any], given: Mapping[str, Any], ignore_case: bool) -> bool:
    """Every key of ``wanted`` is in ``given`` with an equal value."""
    return all(key in given and json_equal(value, given[key], ignore_case) for key, value in wanted.items())


def _paths_agree(paths: Sequence[str], expected: Mapping[str, Any], actual: Mapping[str, Any],
                 ignore_case: bool) -> bool:
    """The values at ``paths`` are equal on both sides (a path absent on both sides agrees, as in agentevals)."""
    return all(json_equal(get_path(expected, path, None), get_path(actual, path, None), ignore_case)
               for path in paths)


def argument_score(rule: ArgumentRule, expected: Mapping[str, Any], actual: Mapping[str, Any],
                   ignore_case: bool) -> float:
    """How well ``actual``'s arguments agree with ``expected``'s under ``rule``, in [0, 1]."""
    if rule == "ignore":
        return 1.0
    if rule == "exact":
        return float(json_equal(expected, actual, ignore_case))
    if rule == "partial":
        return partial_agreement(expected, actual, ignore_case)
    if rule == "expected_keys":
        return float(_keys_agree(expected, actual, ignore_case))
    if rule == "actual_keys":
        return float(_keys_agree(actual, expected, ignore_case))
    return float(_paths_agree(rule, expected, actual, ignore_case))


class CallComparer:
    """Scores an (expected, made) pair of calls: 0 for another tool, else how well they agree."""

    def __init__(self, arguments: str, arguments_by_tool: Mapping[str, ArgumentRule] | None = None,
                 ignore_case: bool = False, compare_results: bool = False) -> None:
        self.arguments = arguments
        self.ignore_case = ignore_case
        self.compare_results = compare_results
        by_tool = dict(arguments_by_tool or {})
        self.by_tool = {name.casefold(): rule for name, rule in by_tool.items()} if ignore_case else by_tool

    def rule(self, name: str) -> ArgumentRule:
        return self.by_tool.get(name.casefold() if self.ignore_case else name, self.arguments)

    def score(self, expected: ToolCall, actual: ToolCall) -> float:
        if not same_name(expected.name, actual.name, self.ignore_case):
            return 0.0
        if self.compare_results and not json_equal(expected.result, actual.result, self.ignore_case):
            return 0.0
        return argument_score(self.rule(expected.name), expected.arguments, actual.arguments, self.ignore_case)

    def identical(self, a: ToolCall, b: ToolCall) -> bool:
        """Same name, arguments and result."""
        return (same_name(a.name, b.name, self.ignore_case) and json_equal(a.arguments, b.arguments, self.ignore_case)
                and json_equal(a.result, b.result, self.ignore_case))

    def distinct(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """``calls`` without repeats of an identical earlier call."""
        kept: list[ToolCall] = []
        for call in calls:
            if not any(self.identical(call, seen) for seen in kept):
                kept.append(call)
        return kept


# -- pairing ----------------------------------------------------------------------------------------

Scores = list[list[float]]
Pairs = dict[int, int]
"""Row index -> column index of the paired items."""


def score_matrix(rows: Sequence[ToolCall], columns: Sequence[ToolCall],
                 score: Callable[[ToolCall, ToolCall], float]) -> Scores:
    return [[score(row, column) for column in columns] for row in rows]


def greedy_pairs(scores: Scores) -> Pairs:
    """Each row in order takes the unused column with the highest positive score (the first on ties).

    The pairing of DeepEval's ToolCorrectnessMetric and of agentevals' trajectory checks.
    """
    used: set[int] = set()
    pairs: Pairs = {}
    for row, line in enumerate(scores):
        best, best_column = 0.0, -1
        for column, value in enumerate(line):
            if column not in used and value > best:
                best, best_column = value, column
        if best_column >= 0:
            used.add(best_column)
            pairs[row] = best_column
    return pairs


def optimal_pairs(scores: Scores) -> Pairs:
    """A one-to-one pairing of rows with columns with the largest total score (pairs of score 0 left out).

    Rows and columns only pair within a tool name (other pairs score 0), so the assignment is
    solved per block of rows sharing positive scores; a block of 0/1 scores is a maximum
    matching (augmenting paths), other blocks the Hungarian method.
    """
    pairs: Pairs = {}
    for rows, columns in _blocks(scores):
        block = [[scores[r][c] for c in columns] for r in rows]
        if all(value in (0.0, 1.0) for line in block for value in line):
            found = _max_matching(block)
        else:
            found = _max_weight(block)
        pairs.update({rows[r]: columns[c] for r, c in found.items() if block[r][c] > 0})
    return pairs


def _blocks(scores: Scores) -> list[tuple[list[int], list[int]]]:
    """Connected groups of rows and columns joined by positive scores."""
    n_rows = len(scores)
    n_columns = len(scores[0]) if scores else 0
    parent = list(range(n_rows + n_columns))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for row in range(n_rows):
        for column in range(n_columns):
            if scores[row][column] > 0:
                parent[find(row)] = find(n_rows + column)
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for row in range(n_rows):
        groups.setdefault(find(row), ([], []))[0].append(row)
    for column in range(n_columns):
        groups.setdefault(find(n_rows + column), ([], []))[1].append(column)
    return [(rows, columns) for rows, columns in groups.values() if rows and columns]


def _max_matching(block: Scores) -> Pairs:
    """A maximum matching of a 0/1 matrix (augmenting paths found breadth-first, no recursion)."""
    n_rows, n_columns = len(block), len(block[0])
    adjacent = [[c for c, value in enumerate(line) if value > 0] for line in block]
    owner = [-1] * n_columns  # column -> row
    owned = [-1] * n_rows  # row -> column
    for start in range(n_rows):
        reached_from = [-1] * n_columns
        queue, head, free = [start], 0, -1
        while head < len(queue) and free < 0:
            row = queue[head]
            head += 1
            for column in adjacent[row]:
                if reached_from[column] >= 0:
                    continue
                reached_from[column] = row
                if owner[column] < 0:
                    free = column
                    break
                queue.append(owner[column])
        column = free
        while column >= 0:  # flip the path back to `start`
            row = reached_from[column]
            previous = owned[row]
            owner[column], owned[row] = row, column
            column = previous if row != start else -1
    return {row: column for row, column in enumerate(owned) if column >= 0}


def _max_weight(block: Scores) -> Pairs:
    """The assignment with the largest total score (Hungarian method on the padded square matrix)."""
    size = max(len(block), len(block[0]))
    cost = [[-(block[r][c] if r < len(block) and c < len(block[0]) else 0.0) for c in range(size)]
            for r in range(size)]
    inf = float("inf")
    u = [0.0] * (size + 1)
    v = [0.0] * (size + 1)
    way = [0] * (size + 1)
    match = [0] * (size + 1)  # match[column] = row, 1-based, 0 for none
    for row in range(1, size + 1):
        match[0] = row
        column0 = 0
        least = [inf] * (size + 1)
        used = [False] * (size + 1)
        while True:
            used[column0] = True
            row0 = match[column0]
            delta, column1 = inf, 0
            for column in range(1, size + 1):
                if used[column]:
                    continue
                current = cost[row0 - 1][column - 1] - u[row0] - v[column]
                if current < least[column]:
                    least[column], way[column] = current, column0
                if least[column] < delta:
                    delta, column1 = least[column], column
            for column in range(size + 1):
                if used[column]:
                    u[match[column]] += delta
                    v[column] -= delta
                else:
                    least[column] -= delta
            column0 = column1
            if match[column0] == 0:
                break
        while column0:
            column1 = way[column0]
            match[column0] = match[column1]
            column0 = column1
    return {match[c] - 1: c - 1 for c in range(1, size + 1)
            if 0 < match[c] <= len(block) and c <= len(block[0])}


def weighted_lcs(scores: Scores) -> tuple[float, list[tuple[int, int]]]:
    """DeepEval's weighted longest common subsequence of expected calls (rows) and calls made (columns).

    The same dynamic programme and walk back as DeepEval's ``_compute_weighted_lcs``: returns the
    summed score of the pairs on the path and the pairs, in order.
    """
    m = len(scores)
    n = len(scores[0]) if scores else 0
    dp = [[0.0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            value = scores[i - 1][j - 1]
            if value <= 0:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1], dp[i - 1][j - 1] + value)
    i, j, total = m, n, 0.0
    path: list[tuple[int, int]] = []
    while i > 0 and j > 0:
        if dp[i][j] == dp[i - 1][j]:
            i -= 1
        elif dp[i][j] == dp[i][j - 1]:
            j -= 1
        else:
            path.append((i - 1, j - 1))
            total += dp[i][j] - dp[i - 1][j - 1]
            i, j = i - 1, j - 1
    return total, path[::-1]


def in_order(matches: Callable[[int, int], bool], n_rows: int, n_columns: int) -> Pairs | None:
    """The rows matched, in order, by increasing columns (the earliest each time), or ``None``."""
    pairs: Pairs = {}
    column = 0
    for row in range(n_rows):
        while column < n_columns and not matches(row, column):
            column += 1
        if column == n_columns:
            return None
        pairs[row] = column
        column += 1
    return pairs
