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


def ranked(dict_reader, qrels, run, qids, trec: bool) -> tuple:
    gains, grades, lengths, judged_lengths, present = dict_reader.ranked_grades(qrels, run, qids, trec)
    return ([None if np.isnan(g) else g for g in np.frombuffer(gains, np.float64).tolist()],  # None: not judged
            np.frombuffer(grades, np.float64).tolist(), np.frombuffer(lengths, np.int64).tolist(),
            np.frombuffer(judged_lengths, np.int64).tolist(), np.frombuffer(present, bool).tolist())


def test_ranked_grades_by_hand(dict_reader):
    run = {"q1": {"a": 0.5, "b": 0.9, "c": 0.5, "d": 1}, "q3": {"e": 2.0}, "q4": {"f": 1.0}}
    qrels = {"q1": {"c": 2, "b": 0, "x": 1}, "q2": {"y": 3}, "q3": {}}
    # trec_eval's order: d (1), b (0.9), then the tied c and a by id descending; q2 is not in the run
    assert ranked(dict_reader, qrels, run, ["q1", "q2", "q3"], True) == (
        [None, 0.0, 2.0, None, None], [2.0, 0.0, 1.0, 3.0], [4, 0, 1], [3, 1, 0], [True, False, True])
    # scores alone: the tied a and c in dict order
    assert ranked(dict_reader, qrels, run, ["q1"], False)[0] == [None, 0.0, None, 2.0]


def test_ranked_grades_refusals(dict_reader):
    for ranked, judged in (({"a": True}, {}), (MappingProxyType({"a": 1}), {}), ({1: 0.5}, {}),
                           ({"a": float("nan")}, {}), ({"a": 1}, {"a": "2"}), ({"a": 1}, MappingProxyType({}))):
        # left to numpy, which names bad values
        assert dict_reader.ranked_grades({"q": judged}, {"q": ranked}, ["q"], True) is None
    assert dict_reader.ranked_grades(MappingProxyType({"q": {}}), {}, ["q"], True) is None
