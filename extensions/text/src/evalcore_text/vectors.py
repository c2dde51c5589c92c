"""Vector helpers shared by embedding-based metrics (imports numpy: use from implementations; also
public as ``evalcore.vectors``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["as_matrix", "cosine_similarity", "intra_list_diversity", "mean_pairwise_cosine"]


def as_matrix(vectors: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """A 2-D float array of vectors, checked for equal length and finite values."""
    matrix = np.asarray(vectors, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"expected a list of equal-length vectors, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("vectors contain NaN or infinite values")
    return matrix


def cosine_similarity(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine of the angle between two vectors; a zero vector raises :class:`ValueError`."""
    u, v = as_matrix([a, b])
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        raise ValueError("cosine similarity is undefined for a zero vector")
    return float(np.dot(u, v) / norms)


def mean_pairwise_cosine(vectors: Sequence[Sequence[float]] | np.ndarray) -> float:
    """Mean cosine similarity over all unordered pairs of at least two vectors."""
    matrix = as_matrix(vectors)
    if matrix.shape[0] < 2:
        raise ValueError("need at least two vectors for pairwise similarity")
    norms = np.linalg.norm(matrix, axis=1)
    if (norms == 0).any():
        raise ValueError("cosine similarity is undefined for a zero vector")
    unit = matrix / norms[:, None]
    sims = unit @ unit.T
    upper = np.triu_indices(matrix.shape[0], k=1)
    return float(sims[upper].mean())


def intra_list_diversity(vectors: Sequence[Sequence[float]] | np.ndarray) -> float:
    """1 − mean pairwise cosine similarity (the Auepora RAG metric spec)."""
    return 1.0 - mean_pairwise_cosine(vectors)
