"""The vector helpers of embedding-based metrics equal SciPy's cosine distance and scikit-learn's
pairwise cosine similarity (the references), and refuse what has no cosine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from evalcore_text.vectors import as_matrix, cosine_similarity, intra_list_diversity, mean_pairwise_cosine
from scipy.spatial.distance import cosine as scipy_cosine_distance
from sklearn.metrics.pairwise import cosine_similarity as sklearn_cosine

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("dim", [2, 5, 64])
def test_cosine_similarity_is_one_minus_scipys_cosine_distance(dim):
    for _ in range(20):
        a, b = RNG.normal(size=dim), RNG.normal(size=dim)
        assert cosine_similarity(a, b) == pytest.approx(1 - scipy_cosine_distance(a, b), abs=1e-12)
        assert cosine_similarity(a.tolist(), b.tolist()) == pytest.approx(cosine_similarity(a, b))


@pytest.mark.parametrize("n", [2, 3, 7])
def test_intra_list_diversity_is_one_minus_the_mean_over_pairs_of_sklearns_cosine(n):
    vectors = RNG.normal(size=(n, 8))
    sims = sklearn_cosine(vectors)
    mean = np.mean([sims[i, j] for i, j in itertools.combinations(range(n), 2)])
    assert mean_pairwise_cosine(vectors) == pytest.approx(mean, abs=1e-12)
    assert intra_list_diversity(vectors) == pytest.approx(1 - mean, abs=1e-12)


def test_by_hand_orthogonal_and_parallel_vectors():
    assert cosine_similarity([1, 0], [0, 3]) == 0.0
    assert cosine_similarity([1, 2], [2, 4]) == pytest.approx(1.0)
    assert intra_list_diversity([[1, 0], [0, 1]]) == pytest.approx(1.0)  # one pair, cosine 0


def test_what_has_no_cosine_is_a_value_error():
    with pytest.raises(ValueError, match="zero vector"):
        cosine_similarity([0, 0], [1, 0])
    with pytest.raises(ValueError, match="zero vector"):
        mean_pairwise_cosine([[0, 0], [1, 0]])
    with pytest.raises(ValueError, match="at least two vectors"):
        intra_list_diversity([[1, 0]])
    with pytest.raises(ValueError, match="NaN or infinite"):
        as_matrix([[1.0, float("nan")]])
    with pytest.raises(ValueError, match="equal-length vectors"):
        as_matrix([1.0, 2.0])
