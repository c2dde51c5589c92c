"""Agreement between annotators of a queue: Cohen's κ for each pair, Krippendorff's α over all.

κ is computed on the records both annotators labelled (Cohen 1960: observed agreement against the
agreement expected from each annotator's own label frequencies); α (the ``krippendorff`` package)
on every record labelled at least twice, nominal for pass/fail and categories, ordinal for a scale.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's κ of two annotators' labels of the same records (``None`` where it is undefined:
    no records, or both gave one and the same label throughout)."""
    n = len(first)
    if n == 0 or n != len(second):
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    left, right = Counter(first), Counter(second)
    expected = sum(left[c] * right[c] for c in left) / (n * n)
    return None if expected == 1 else (observed - expected) / (1 - expected)


def agreement(labels: Sequence[dict[str, Any]], kind: str) -> dict[str, Any]:
    """κ per pair of annotators and α over all, from a queue's labels (``id``, ``annotator``, ``label``)."""
    by_annotator: dict[str, dict[str, str]] = {}
    for item in labels:
        by_annotator.setdefault(item["annotator"], {})[item["id"]] = item["label"]
    pairs = []
    for a, b in itertools.combinations(sorted(by_annotator), 2):
        shared = [r for r in by_annotator[a] if r in by_annotator[b]]
        pairs.append({"annotators": [a, b], "n": len(shared),
                      "kappa": cohen_kappa([by_annotator[a][r] for r in shared], [by_annotator[b][r] for r in shared])})
    return {"annotators": sorted(by_annotator), "pairs": pairs, "alpha": _alpha(by_annotator, kind)}


def _alpha(by_annotator: dict[str, dict[str, str]], kind: str) -> float | None:
    import krippendorff
    import numpy as np

    counts = Counter(r for labelled in by_annotator.values() for r in labelled)
    records = [r for r, n in counts.items() if n >= 2]
    if len(by_annotator) < 2 or not records:
        return None
    codes: dict[str, int] = {}
    for labelled in by_annotator.values():
        for r in records:
            if r in labelled:
                codes.setdefault(labelled[r], len(codes))
    if len(codes) < 2:
        return None
    number = (lambda v: float(v)) if kind == "scale" else (lambda v: float(codes[v]))
    data = np.array([[number(labelled[r]) if r in labelled else np.nan for r in records]
                     for labelled in by_annotator.values()])
    level = "ordinal" if kind == "scale" else "nominal"
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
