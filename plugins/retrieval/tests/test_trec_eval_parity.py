"""Parity with the outputs trec_eval 10 printed for its own test collection.

Every per-query value and the ``all`` average of the measures below must print the same
to trec_eval's 4 decimals: through the evalcore metrics (records), through
:func:`evaluate_run` (dicts) and through :func:`read_trec` (columns).
"""

from __future__ import annotations

import re
from pathlib import Path

import evalcore
import pytest
from evalcore_retrieval import average, evaluate_run, read_trec
from evalcore_retrieval._api import score_queries

# trec_eval measure name -> evalcore metric id (k filled in from the name)
MEASURES = {
    r"map": "map", r"map_cut_(\d+)": "map@{}", r"P_(\d+)": "precision@{}",
    r"recall_(\d+)": "recall@{}", r"ndcg_cut_(\d+)": "ndcg@{}", r"recip_rank": "mrr",
    r"Rprec": "r_precision", r"success_(\d+)": "hit_rate@{}",
}


def metric_id(measure: str, params: str) -> str | None:
    for pattern, template in MEASURES.items():
        match = re.fullmatch(pattern, measure)
        if match:
            name, _, at = template.partition("@")
            text = f"retrieval/{name}"
            if params and not (name == "ndcg" and "relevance_level" in params):
                text += f"({params})"
            return text + (f"@{match.group(1)}" if at else "")
    return None


def expected(reference: Path, out_file: str, params: str) -> dict[str, dict[str, str]]:
    """``{metric id: {qid or 'all': printed value}}`` from a trec_eval output file."""
    table: dict[str, dict[str, str]] = {}
    for line in (reference / out_file).read_text().splitlines():
        measure, qid, value = line.split()
        mid = metric_id(measure, params)
        if mid is not None:
            table.setdefault(mid, {})[qid] = value
    return table


CASES = [
    # (trec_eval output, qrels, run, metric parameters giving trec_eval's options)
    pytest.param("out.test.aq", "qrels.test", "results.test", "", id="default"),
    pytest.param("out.test.aqc", "qrels.test", "results.trunc", "missing='zero'", id="-c"),
    pytest.param("out.test.aql", "qrels.rel_level", "results.test", "relevance_level=2", id="-l2"),
]


@pytest.mark.parametrize(("out_file", "qrels", "run", "params"), CASES)
def test_metrics_on_records_match_trec_eval(trec_reference, out_file, qrels, run, params):
    table = expected(trec_reference, out_file, params)
    assert len(table) >= 40  # every cut-off trec_eval prints for the eight measures
    data = read_trec(trec_reference / qrels, trec_reference / run)
    examples, predictions = data.records()
    for mid, values in table.items():
        metric = evalcore.get_metric(mid)
        scores = dict(zip(data.qids, metric.score_many(examples, predictions)))
        got = {qid: f"{s.value:.4f}" for qid, s in scores.items() if s.ok}
        ok = [s.value for s in scores.values() if s.ok]
        got["all"] = f"{sum(ok) / len(ok):.4f}"
        assert got == values, mid


@pytest.mark.parametrize("way", ["dicts", "files"])
@pytest.mark.parametrize(("out_file", "qrels", "run", "params"), CASES)
def test_trec_eval_outputs_reproduced(trec_reference, reference_dicts, out_file, qrels, run, params, way):
    """From pytrec_eval-style dicts (``evaluate_run``) and from the files (``read_trec``)."""
    table = expected(trec_reference, out_file, params)
    if way == "dicts":
        results = evaluate_run(reference_dicts(qrels), reference_dicts(run), list(table))
    else:
        data = read_trec(trec_reference / qrels, trec_reference / run)
        results = score_queries(data.qids, list(table), data.rankings)
    means = average(results)
    for mid, values in table.items():
        key = evalcore.get_metric(mid).id
        got = {qid: f"{scores[key]:.4f}" for qid, scores in results.items()}
        got["all"] = f"{means[key]:.4f}"
        assert got == values, mid

