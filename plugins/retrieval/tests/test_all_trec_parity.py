"""Parity with every measure trec_eval 10 prints for ``-m all_trec`` on its own test collection.

Each measure is looked up by the name trec_eval prints (``P_10``, ``iprec_at_recall_0.50``),
so this also checks that every name of the ``all_trec`` set resolves. Per-query values and
the ``all`` line (combined as the spec's ``aggregate`` says: mean, sum or geometric mean)
must print the same to 4 decimals, through the metrics on records and through
:func:`evaluate_run` on dicts.
"""

from __future__ import annotations

from pathlib import Path

import evalcore
import pytest
from evalcore.plugin import aggregate_values
from evalcore_retrieval import evaluate_run, read_trec

NOT_MEASURES = ("runid", "relstring")

CASES = [
    # (trec_eval output, qrels, run, the metric parameters that give trec_eval's options)
    pytest.param("out.test.aq", "qrels.test", "results.test", {}, id="default"),
    pytest.param("out.test.aqc", "qrels.test", "results.trunc", {"missing": "zero"}, id="-c"),
    pytest.param("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}, id="-l2"),
]


def expected(reference: Path, out_file: str) -> dict[str, dict[str, float]]:
    """``{trec_eval measure: {qid or 'all': value}}`` from a trec_eval output file."""
    table: dict[str, dict[str, float]] = {}
    for line in (reference / out_file).read_text().splitlines():
        measure, qid, value = line.split()
        if not measure.startswith(NOT_MEASURES):
            table.setdefault(measure, {})[qid] = float(value)
    return table


def metric(name: str, options: dict) -> evalcore.Metric:
    """The metric trec_eval's ``name`` denotes, with the options it takes."""
    params = {p.name for p in evalcore.describe(name).spec.params}
    return evalcore.get_metric(name, **{k: v for k, v in options.items() if k in params})


def printed(values: dict[str, float], shown: dict[str, float]) -> dict[str, str]:
    """The values of the lines trec_eval shows (it prints no per-query num_q or gm_* lines)."""
    return {qid: f"{values.get(qid, float('nan')):.4f}" for qid in shown}


def test_all_trec_set_is_every_measure_trec_eval_prints(trec_reference):
    names = [m.split("/")[-1] for m in evalcore.expand_metrics(["all_trec"])]
    assert names == list(expected(trec_reference, "out.test.a"))
    assert len(names) == 98


@pytest.mark.parametrize(("out_file", "qrels", "run", "options"), CASES)
def test_records_match_trec_eval(trec_reference, out_file, qrels, run, options):
    data = read_trec(trec_reference / qrels, trec_reference / run)
    examples, predictions = data.records()
    for name, values in expected(trec_reference, out_file).items():
        m = metric(name, options)
        scores = dict(zip(data.qids, m.score_many(examples, predictions)))
        got = {qid: s.value for qid, s in scores.items() if s.ok}
        got["all"] = aggregate_values(list(got.values()), m.spec.aggregate)
        assert printed(got, values) == printed(values, values), name


@pytest.mark.parametrize(("out_file", "qrels", "run", "options"), CASES)
def test_evaluate_run_matches_trec_eval(trec_reference, reference_dicts, out_file, qrels, run, options):
    table = expected(trec_reference, out_file)
    metrics = {name: metric(name, options) for name in table}
    results = evaluate_run(reference_dicts(qrels), reference_dicts(run), list(metrics.values()))
    for name, values in table.items():
        m = metrics[name]
        got = {qid: scores[m.id] for qid, scores in results.items()}
        got["all"] = aggregate_values(list(got.values()), m.spec.aggregate)
        assert printed(got, values) == printed(values, values), name



@pytest.mark.parametrize(("out_file", "qrels", "run", "options"), CASES)
def test_trec_files_match_trec_eval(trec_reference, out_file, qrels, run, options):
    from evalcore_retrieval._api import score_queries

    table = expected(trec_reference, out_file)
    metrics = {name: metric(name, options) for name in table}
    data = read_trec(trec_reference / qrels, trec_reference / run)
    results = score_queries(data.qids, list(metrics.values()), data.rankings)
    for name, values in table.items():
        m = metrics[name]
        got = {qid: scores[m.id] for qid, scores in results.items() if m.id in scores}
        got["all"] = aggregate_values(list(got.values()), m.spec.aggregate)
        assert printed(got, values) == printed(values, values), name
