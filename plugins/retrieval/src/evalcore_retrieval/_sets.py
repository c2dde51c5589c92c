"""Counts and set measures: the retrieved documents as an unranked set (trec_eval 10)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._derived import relevant
from ._measures import _ratio
from ._ranking import Rankings


def num_q(r: Rankings) -> np.ndarray:
    """``num_q``: 1 for every query (summed over queries)."""
    return np.ones(r.n)


def num_ret(r: Rankings) -> np.ndarray:
    """``num_ret``: the number of retrieved documents."""
    return r.num_ret.astype(float)


def num_rel(r: Rankings, level: float) -> np.ndarray:
    """``num_rel``: the number of relevant judged documents, retrieved or not."""
    return r.num_judged_at_least(level)


def num_rel_ret(r: Rankings, level: float) -> np.ndarray:
    """``num_rel_ret``: the number of relevant retrieved documents."""
    return relevant(r, level).total.copy()


def set_precision(r: Rankings, level: float) -> np.ndarray:
    """``set_P``: relevant retrieved / retrieved."""
    return _ratio(num_rel_ret(r, level), num_ret(r))


def set_recall(r: Rankings, level: float) -> np.ndarray:
    """``set_recall``: relevant retrieved / relevant."""
    return _ratio(num_rel_ret(r, level), num_rel(r, level))


def set_relative_precision(r: Rankings, level: float) -> np.ndarray:
    """``set_relative_P``: relevant retrieved / min(retrieved, relevant)."""
    return _ratio(num_rel_ret(r, level), np.minimum(num_ret(r), num_rel(r, level)))


def set_map(r: Rankings, level: float) -> np.ndarray:
    """``set_map``: relevant retrieved squared / (retrieved * relevant), set precision times recall."""
    found = num_rel_ret(r, level)
    return _ratio(found * found, num_ret(r) * num_rel(r, level))


def set_f(r: Rankings, level: float, beta: float) -> np.ndarray:
    """``set_F``: (beta + 1) * P * R / (beta * P + R) over the retrieved set; 0 when nothing relevant
    is retrieved."""
    precision, recall = set_precision(r, level), set_recall(r, level)
    return _ratio((beta + 1.0) * precision * recall, beta * precision + recall)


def utility(r: Rankings, level: float, weights: Sequence[float], num_docs: int) -> np.ndarray:
    """``utility``: w1 * rel retrieved + w2 * nonrel retrieved + w3 * rel missed + w4 * nonrel missed
    (the last needs the collection size ``num_docs``, trec_eval -N)."""
    a, retrieved, relevant = num_rel_ret(r, level), num_ret(r), num_rel(r, level)
    w1, w2, w3, w4 = weights
    return w1 * a + w2 * (retrieved - a) + w3 * (relevant - a) + w4 * (num_docs + a - retrieved - relevant)
