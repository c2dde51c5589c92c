"""The pairing algorithms against brute force, and DeepEval's argument agreement worked by hand."""

from __future__ import annotations

import itertools

import pytest
from evalcore_agent.matching import greedy_pairs, json_equal, optimal_pairs, partial_agreement, weighted_lcs
from hypothesis import given, settings
from hypothesis import strategies as st

WEIGHTS = st.sampled_from([0.0, 0.0, 1.0, 0.25, 0.5, 1 / 3, 2 / 3])


def matrices(weights=WEIGHTS):
    return st.integers(0, 5).flatmap(lambda rows: st.integers(0, 5).flatmap(
        lambda columns: st.lists(st.lists(weights, min_size=columns, max_size=columns),
                                 min_size=rows, max_size=rows)))


def best_total(scores):
    """The largest total of a one-to-one pairing, by trying every assignment."""
    rows = len(scores)
    columns = len(scores[0]) if scores else 0
    best = 0.0
    for chosen in itertools.permutations(range(max(rows, columns)), rows):
        best = max(best, sum(scores[r][c] for r, c in enumerate(chosen) if c < columns))
    return best


def check_pairing(scores, pairs):
    assert len(set(pairs.values())) == len(pairs)
    assert all(scores[r][c] > 0 for r, c in pairs.items())


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_optimal_pairs_reach_the_best_total(scores):
    pairs = optimal_pairs(scores)
    check_pairing(scores, pairs)
    assert sum(scores[r][c] for r, c in pairs.items()) == pytest.approx(best_total(scores))


@settings(max_examples=300, deadline=None)
@given(matrices(st.sampled_from([0.0, 1.0])))
def test_optimal_pairs_of_zeros_and_ones_are_a_maximum_matching(scores):
    pairs = optimal_pairs(scores)
    check_pairing(scores, pairs)
    assert len(pairs) == best_total(scores)


@settings(max_examples=300, deadline=None)
@given(matrices())
def test_greedy_pairs_never_beat_the_best(scores):
    pairs = greedy_pairs(scores)
    check_pairing(scores, pairs)
    assert sum(scores[r][c] for r, c in pairs.items()) <= best_total(scores) + 1e-12


def test_weighted_lcs():
    scores = [[1.0, 0.0, 0.0], [0.0, 0.0, 0.5], [0.0, 1.0, 0.0]]
    total, path = weighted_lcs(scores)
    assert (total, path) == (2.0, [(0, 0), (2, 1)])  # e1 -> c2 (0.5) would cross e2 -> c1
    assert weighted_lcs([[0.5, 1.0], [1.0, 0.0]]) == (1.0, [(0, 1)])
    assert weighted_lcs([]) == (0.0, [])


def test_partial_agreement_by_hand():
    assert partial_agreement({}, {}) == 1.0
    assert partial_agreement({"a": 1}, {}) == 0.0
    assert partial_agreement({"a": 1, "b": 2}, {"a": 1, "c": 3}) == pytest.approx(1 / 3)
    assert partial_agreement({"a": {"x": 1, "y": 2}}, {"a": {"x": 1, "y": 3}}) == 0.5
    assert partial_agreement({"a": [1, {"x": 1}]}, {"a": [1, {"x": 2}]}) == 0.0  # lists agree whole or not at all


def test_json_equality():
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, False)
    assert not json_equal([1], (1, 2)) and json_equal([1], (1,))
    assert not json_equal({"a": 1}, [("a", 1)])
    assert json_equal("Paris", "PARIS", ignore_case=True) and not json_equal("Paris", "PARIS")
