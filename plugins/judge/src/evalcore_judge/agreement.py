"""Agreement between judges: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha.

Each is computed as its reference computes it: Cohen's kappa as scikit-learn's
``cohen_kappa_score`` (unweighted), Fleiss' kappa as statsmodels'
``fleiss_kappa`` (``method='fleiss'``), Krippendorff's alpha as the ``krippendorff`` package's
``alpha`` (nominal or interval). Ratings are numbers; each distinct value is a category for the
kappas. Where chance agreement is complete (every rating the same value) the coefficients are
undefined and NaN, as in the references.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

__all__ = ["agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"]

Level = Literal["nominal", "interval"]


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float:
    """Cohen's kappa (unweighted) of two raters' labels of the same records, as scikit-learn's
    ``cohen_kappa_score``; NaN where chance agreement is complete (one label throughout)."""
    if len(first) != len(second) or not first:
        raise ValueError("cohen_kappa needs the same number (at least 1) of labels from each rater")
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    counts = Counter(second)
    expected = sum(count * counts[label] for label, count in Counter(first).items()) / (n * n)
    return float("nan") if expected == 1 else (observed - expected) / (1 - expected)


def fleiss_kappa(ratings: Sequence[Sequence[float]]) -> float:
    """Fleiss' kappa of ``ratings[record][rater]`` (every record rated by the same number of raters, at least 2)."""
    matrix = np.asarray(ratings, dtype=float)
    if matrix.ndim != 2 or matrix.shape[1] < 2 or matrix.shape[0] == 0:
        raise ValueError("fleiss_kappa needs at least one record rated by at least 2 raters")
    categories = np.unique(matrix)
    counts = (matrix[:, :, None] == categories[None, None, :]).sum(axis=1)  # records x categories
    records, raters = matrix.shape
    p_category = counts.sum(axis=0) / (records * raters)
    p_record = ((counts * counts).sum(axis=1) - raters) / (raters * (raters - 1))
    expected = float((p_category * p_category).sum())
    if expected == 1.0:
        return float("nan")
    return (float(p_record.mean()) - expected) / (1.0 - expected)


def krippendorff_alpha(ratings: Sequence[Sequence[float]], level: Level = "interval") -> float:
    """Krippendorff's alpha of ``ratings[rater][record]`` (NaN for a missing rating), nominal or interval:
    1 - (n - 1) * sum(o_ck * d_ck) / sum(n_c * n_k * d_ck) over the coincidence matrix ``o`` of the
    records with at least two ratings (d = [c != k] nominal, (c - k)^2 interval)."""
    matrix = np.asarray(ratings, dtype=float)
    if matrix.ndim != 2:
        raise ValueError("krippendorff_alpha needs ratings[rater][record]")
    values = np.unique(matrix[~np.isnan(matrix)])
    present = ~np.isnan(matrix)
    # counts[record, value]: how many raters gave the record that value
    counts = np.stack([(matrix == v).sum(axis=0) for v in values], axis=1) if values.size else np.zeros((0, 0))
    pairable = present.sum(axis=0)
    keep = pairable >= 2
    if not values.size or not keep.any():
        return float("nan")
    counts, pairable = counts[keep], pairable[keep]
    coincidence = (counts[:, :, None] * counts[:, None, :]).astype(float)
    coincidence[:, np.arange(values.size), np.arange(values.size)] -= counts
    coincidence = (coincidence / (pairable - 1)[:, None, None]).sum(axis=0)
    if level == "nominal":
        distance = 1.0 - np.eye(values.size)
    elif level == "interval":
        distance = (values[:, None] - values[None, :]) ** 2
    else:
        raise ValueError(f"level must be 'nominal' or 'interval'; got {level!r}")
    marginals = coincidence.sum(axis=0)
    total = marginals.sum()
    expected = float((np.outer(marginals, marginals) * distance).sum())
    if expected == 0.0:
        return float("nan")
    return 1.0 - (total - 1.0) * float((coincidence * distance).sum()) / expected


def agreement(ratings: Sequence[Sequence[float]], raters: Sequence[str]) -> dict[str, object]:
    """Agreement of ``raters`` over ``ratings[record][rater]``: the share of records where all agree,
    Cohen's kappa (2 raters), Fleiss' kappa and Krippendorff's alpha (nominal and interval); a
    coefficient that is undefined is ``None``."""
    matrix = np.asarray(ratings, dtype=float).reshape(len(ratings), len(raters))
    result: dict[str, object] = {"judges": list(raters), "n": int(matrix.shape[0])}
    if matrix.shape[0] == 0:
        return result
    result["all_agree"] = float((matrix == matrix[:, :1]).all(axis=1).mean())
    if len(raters) == 2:
        result["cohen_kappa"] = _defined(cohen_kappa(matrix[:, 0].tolist(), matrix[:, 1].tolist()))
    result["fleiss_kappa"] = _defined(fleiss_kappa(matrix))
    result["krippendorff_alpha"] = {level: _defined(krippendorff_alpha(matrix.T, level))
                                    for level in ("nominal", "interval")}
    return result


def _defined(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
