"""Evaluating a whole run given as Python dicts, like ``pytrec_eval.RelevanceEvaluator``."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import chain

import evalcore
import numpy as np
from evalcore.plugin import Metric, aggregate_values

from ._dicts import Qrels, Run, judged_queries, rankings_from_dicts
from .metrics import OK, RetrievalMetric


def resolve(metric: str | Metric) -> RetrievalMetric:
    """A retrieval metric from an id (``"ndcg@10"``, ``"retrieval/map(relevance_level=2)"``)."""
    if isinstance(metric, str):
        metric = evalcore.get_metric(metric if "/" in metric else f"retrieval/{metric}")
    if not isinstance(metric, RetrievalMetric):
        raise evalcore.ParameterError(f"{metric!r} is not an evalcore-retrieval metric")
    return metric


def evaluate_run(
    qrels: Qrels, run: Run, metrics: Iterable[str | Metric], max_docs: int | None = None,
) -> dict[str, dict[str, float]]:
    """Score a run against qrels: ``{qid: {metric id: value}}``.

    ``qrels`` is ``{qid: {docid: grade}}`` and ``run`` ``{qid: {docid: score}}``, as for
    pytrec_eval. As there, a query is scored when it has judgements and is a key of the
    run (an empty ranking scores 0); queries only in the run are left out, and so are
    queries only in the qrels unless a metric has ``missing='zero'`` (``trec_eval -c``).
    A query a metric skips has no entry for that metric. Metric ids are resolved through
    the evalcore registry; the ``retrieval/`` namespace may be left out, and a metric set
    (``"all_trec"``) stands for its metrics. ``max_docs`` keeps only the top ``max_docs``
    documents of each ranking (``trec_eval -M``).
    """
    if max_docs is not None and max_docs < 1:
        raise evalcore.ParameterError(f"max_docs of evaluate_run must be >= 1; got {max_docs!r}")
    expanded = [
        m for metric in metrics
        for m in (evalcore.expand_metrics([metric]) if isinstance(metric, str) else [metric])
    ]
    resolved = {m.id: m for m in map(resolve, expanded)}
    qids = judged_queries(qrels)
    columns: dict[str, np.ndarray] = {}
    for ties in sorted({str(m.setting("ties")) for m in resolved.values()}):
        rankings = rankings_from_dicts(qrels, run, qids, ties)
        if max_docs is not None:
            rankings = rankings.truncated(max_docs)
        for metric_id, metric in resolved.items():
            if metric.setting("ties") == ties:
                # NaN marks a skipped query: no measure is ever NaN
                ok = metric.skip_codes(rankings) == OK
                columns[metric_id] = np.where(ok, metric.values(rankings), np.nan)
    ids = list(resolved)
    matrix = np.column_stack([columns[i] for i in ids]) if ids else np.zeros((len(qids), 0))
    complete = (~np.isnan(matrix).any(axis=1)).tolist()
    results: dict[str, dict[str, float]] = {}
    for qid, row, full in zip(qids, matrix.tolist(), complete):
        if full:
            results[qid] = dict(zip(ids, row))
        elif scores := {i: v for i, v in zip(ids, row) if not math.isnan(v)}:
            results[qid] = scores
    return results


def average(results: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Each metric over the queries that have it, combined as its spec's ``aggregate`` says
    (the mean; the sum for counts such as ``num_ret``; the geometric mean for ``gm_map``):
    trec_eval's ``all`` line."""
    combined = {}
    for metric_id in dict.fromkeys(chain.from_iterable(results.values())):
        values = [scores[metric_id] for scores in results.values() if metric_id in scores]
        combined[metric_id] = aggregate_values(values, evalcore.describe(metric_id).spec.aggregate)
    return combined
