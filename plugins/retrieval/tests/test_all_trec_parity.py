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
from evalcore.trec import read_qrels, read_run, records_from_trec
from evalcore_retrieval import evaluate_run

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "trec_eval"
NOT_MEASURES = ("runid", "relstring")

CASES = [
    # (trec_eval output, qrels, run, the metric parameters that give trec_eval's options)
    pytest.param("out.test.aq", "qrels.test", "results.test", {}, id="default"),
    pytest.param("out.test.aqc", "qrels.test", "results.trunc", {"missing": "zero"}, id="-c"),
    pytest.param("out.test.aql", "qrels.rel_level", "results.test", {"relevance_level": 2}, id="-l2"),
]


@pytest.fixture(scope="module", autouse=True)
def reference_data() -> None:
    if not REFERENCE.is_dir():
        pytest.skip(f"trec_eval reference data not found at {REFERENCE} (the repository's sibling shared/)")


def expected(out_file: str) -> dict[str, dict[str, float]]:
    """``{trec_eval measure: {qid or 'all': value}}`` from a trec_eval output file."""
    table: dict[str, dict[str, float]] = {}
    for line in (REFERENCE / out_file).read_text().splitlines():
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


def test_all_trec_set_is_every_measure_trec_eval_prints():
    names = [m.split("/")[-1] for m in evalcore.expand_metrics(["all_trec"])]
    assert names == ["ndcg(k=None)" if m == "ndcg" else m for m in expected("out.test.a")]
    assert len(names) == 98


@pytest.mark.parametrize(("out_file", "qrels", "run", "options"), CASES)
def test_records_match_trec_eval(out_file, qrels, run, options):
    records = records_from_trec(REFERENCE / qrels, REFERENCE / run)
    examples = [r["example"] for r in records]
    predictions = [r["prediction"] for r in records]
    for name, values in expected(out_file).items():
        m = metric("ndcg(k=None)" if name == "ndcg" else name, options)
        scores = dict(zip([r["id"] for r in records], m.score_many(examples, predictions)))
        got = {qid: s.value for qid, s in scores.items() if s.ok}
        got["all"] = aggregate_values(list(got.values()), m.spec.aggregate)
        assert printed(got, values) == printed(values, values), name


@pytest.mark.parametrize(("out_file", "qrels", "run", "options"), CASES)
def test_evaluate_run_matches_trec_eval(out_file, qrels, run, options):
    table = expected(out_file)
    metrics = {name: metric("ndcg(k=None)" if name == "ndcg" else name, options) for name in table}
    results = evaluate_run(read_qrels(REFERENCE / qrels), read_run(REFERENCE / run), list(metrics.values()))
    for name, values in table.items():
        m = metrics[name]
        got = {qid: scores[m.id] for qid, scores in results.items()}
        got["all"] = aggregate_values(list(got.values()), m.spec.aggregate)
        assert printed(got, values) == printed(values, values), name
