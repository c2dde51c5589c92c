"""The ``all_trec`` metrics of a chunk share one :class:`Rankings` and the arrays derived from it.

Sharing must change no value, not even in the last bit: a metric scored alone on fresh
rankings, after every other metric on the same rankings (in either order), or on a chunk of
the command line's reader gives the same numbers; and a query's values do not depend on the
queries it is scored with (sums run per query, never across queries).
"""

from __future__ import annotations

import evalcore
import numpy as np
import pytest
from evalcore_retrieval import read_trec
from evalcore_retrieval._api import resolve
from evalcore_retrieval._reader import trec_source

FILES = [("qrels.test", "results.test"), ("qrels.rel_level", "results.test"), ("qrels.test", "results.trunc")]


def all_trec(**options: object) -> list:
    """The ``all_trec`` metrics, each with the options it takes."""
    metrics = []
    for name in evalcore.expand_metrics(["all_trec"]):
        params = {p.name for p in evalcore.describe(name).spec.params}
        metrics.append(resolve(evalcore.get_metric(name, **{k: v for k, v in options.items() if k in params})))
    return metrics


@pytest.mark.parametrize(("qrels", "run"), FILES)
@pytest.mark.parametrize("params", [{}, {"relevance_level": 2}, {"missing": "zero"}], ids=["default", "-l2", "-c"])
def test_sharing_changes_no_value(trec_reference, qrels, run, params):
    data = read_trec(trec_reference / qrels, trec_reference / run)
    metrics = all_trec(**params)
    alone = {m.id: m.values(data.rankings("trec")) for m in metrics}
    for order in (metrics, metrics[::-1]):
        shared = data.rankings("trec")
        for m in order:
            assert np.array_equal(m.values(shared), alone[m.id]), m.id
    for m in metrics:  # nothing scored before changed what the rankings hold
        assert np.array_equal(m.values(shared), alone[m.id]), m.id


@pytest.mark.parametrize(("qrels", "run"), FILES)
@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_query_scores_the_same_in_any_chunk(trec_reference, qrels, run, size):
    metrics = all_trec()
    data = read_trec(trec_reference / qrels, trec_reference / run)
    whole = {m.id: m.values(data.rankings("trec")) for m in metrics}
    chunks = list(trec_source(trec_reference / qrels, trec_reference / run).chunks(size))
    assert sum(len(c.records) for c in chunks) == len(data.qids)
    for m in metrics:
        scores = [m.score_columns(c.columns) for c in chunks]
        values = np.concatenate([s.values for s in scores])
        assert np.array_equal(values, whole[m.id]), m.id
        skipped = {start + i for c, s in zip(chunks, scores) for start in [c.positions[0]] for i in s.skipped}
        expected = set(np.flatnonzero(m.skip_codes(data.rankings("trec")) != 0).tolist())
        assert skipped == expected, m.id
