"""The compiled reader of pytrec_eval-style dicts against numpy's way: the same values, rankings and errors
for every kind of value and mapping a user may pass."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np
from evalcore.plugin import InputError
from evalcore_retrieval import _compiled, evaluate_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

METRICS = ["retrieval/map", "retrieval/ndcg@5", "retrieval/mrr", "retrieval/bpref", "retrieval/num_rel_ret"]
DOCS = st.sampled_from(["a", "b", "c", "d1", "é", "z"])
QIDS = st.sampled_from(["q1", "q2", "q3"])
NUMBERS = st.one_of(st.integers(-3, 3), st.floats(-10, 10, allow_nan=False), st.floats(-10, 10).map(np.float64))
ODD = st.sampled_from([True, "1.5", float("nan"), None, 10**400, np.int64(2)])


def mappings(values: st.SearchStrategy) -> st.SearchStrategy:
    inner = st.dictionaries(DOCS, values, max_size=6)
    return st.dictionaries(QIDS, st.one_of(inner, inner.map(MappingProxyType)), max_size=3)


def outcome(qrels, run) -> tuple:
    try:
        results = evaluate_run(qrels, run, METRICS)
    except InputError as exc:
        return "error", str(exc)
    return "scored", {qid: dict(values) for qid, values in results.items()}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mappings(st.one_of(NUMBERS, NUMBERS, NUMBERS, ODD)), mappings(st.one_of(NUMBERS, NUMBERS, NUMBERS, ODD)))
def test_compiled_and_numpy_readers_agree(dict_reader, monkeypatch, qrels, run):
    compiled = outcome(qrels, run)
    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "dict_reader", None)
        assert outcome(qrels, run) == compiled


def test_values_in_order_and_refusals(dict_reader):
    assert np.frombuffer(dict_reader.values([{"a": 1, "b": 2.5}, {}, {"c": -3}], 3), np.float64).tolist() == \
        [1.0, 2.5, -3.0]
    assert dict_reader.values([{"a": True}], 1) is None  # left to numpy (bool is not a number here)
    assert dict_reader.values([MappingProxyType({"a": 1})], 1) is None
    assert dict_reader.values([{"a": 1}], 2) is None  # fewer values than said


def test_looked_up_scores(dict_reader):
    runs, judged = [{"a": 0.5, "b": 0.25}, {"c": 1}], [{"b": 1, "x": 2, "a": 0}, {"c": 1}]
    found = np.frombuffer(dict_reader.looked_up(runs, judged, bytes([1, 1, 0, 1])), np.float64)
    assert found[0] == 0.25 and np.isnan(found[1]) and found[2] == 1.0 and len(found) == 3
