"""Evaluating a whole run given as Python dicts (like ``pytrec_eval.RelevanceEvaluator``) or as columns."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from typing import Any

import evalcore
import numpy as np
from evalcore.plugin import Metric, aggregate_values

from ._dicts import Qrels, Run, judged_queries, rankings_from_dicts
from ._ranking import Rankings
from ._results import QueryScores
from .metrics import OK, RetrievalMetric


def resolve(metric: str | Metric) -> RetrievalMetric:
    """A retrieval metric from an id (``"ndcg@10"``, ``"retrieval/map(relevance_level=2)"``)."""
    if isinstance(metric, str):
        metric = evalcore.get_metric(metric if "/" in metric else f"retrieval/{metric}")
    if not isinstance(metric, RetrievalMetric):
        raise evalcore.ParameterError(f"{metric!r} is not an evalcore-retrieval metric")
    return metric


def column_scores(metric: RetrievalMetric, rankings: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """A metric's value for every query of ``rankings`` and why each is skipped (``OK`` when scored).

    The codes are the keys of :data:`evalcore_retrieval.metrics.SKIP_REASONS`; a skipped
    query's value is whatever the measure gives and must not be used.
    """
    return metric.values(rankings), metric.skip_codes(rankings)


def evaluate_run(qrels: Qrels, run: Run, metrics: Iterable[str | Metric], max_docs: int | None = None) -> QueryScores:
    """Score a run against qrels: ``{qid: {metric id: value}}`` (a read-only mapping).

    ``qrels`` is ``{qid: {docid: grade}}`` and ``run`` ``{qid: {docid: score}}``, as for
    pytrec_eval. As there, a query is scored when it has judgements and is a key of the
    run (an empty ranking scores 0); queries only in the run are left out, and so are
    queries only in the qrels unless a metric has ``missing='zero'`` (``trec_eval -c``).
    A query a metric skips has no entry for that metric; with no metrics, each query that
    would be scored maps to an empty dict, as pytrec_eval gives for an empty set of measures.
    Metric ids are resolved through the evalcore registry; the ``retrieval/`` namespace may
    be left out, and a metric set (``"all_trec"``) stands for its metrics. ``max_docs`` keeps
    only the top ``max_docs`` documents of each ranking (``trec_eval -M``).
    """
    qids = judged_queries(qrels)
    return score_queries(qids, metrics, lambda ties: rankings_from_dicts(qrels, run, qids, ties), max_docs)


def score_queries(
    qids: list[str], metrics: Iterable[str | Metric], rankings: Callable[[str], Rankings],
    max_docs: int | None = None,
) -> QueryScores:
    """The metrics' values for ``qids``; ``rankings(ties)`` gives their :class:`Rankings`."""
    if max_docs is not None and max_docs < 1:
        raise evalcore.ParameterError(f"max_docs must be >= 1; got {max_docs!r}")
    expanded = [m for metric in metrics
                for m in (evalcore.expand_metrics([metric]) if isinstance(metric, str) else [metric])]
    resolved = {m.id: m for m in map(resolve, expanded)}
    columns: dict[str, np.ndarray] = {}
    for ties in sorted({str(m.setting("ties")) for m in resolved.values()}):
        ranked = rankings(ties)
        if max_docs is not None:
            ranked = ranked.truncated(max_docs)
        for metric_id, metric in resolved.items():
            if metric.setting("ties") == ties:
                values, codes = column_scores(metric, ranked)
                # NaN marks a skipped query: no measure is ever NaN
                columns[metric_id] = np.where(codes == OK, values, np.nan)
    ids = list(resolved)
    if not ids:  # no measures: every query that can be scored, each with nothing (as pytrec_eval)
        return QueryScores(qids, ids, np.zeros((len(qids), 0)), scored=rankings("trec").present)
    return QueryScores(qids, ids, np.column_stack([columns[i] for i in ids]))


def average(results: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Each metric over the queries that have it, combined as its spec's ``aggregate`` says
    (the mean; the sum for counts such as ``num_ret``; the geometric mean for ``gm_map``):
    trec_eval's ``all`` line."""
    combined = {}
    if isinstance(results, QueryScores):
        metric_ids = list(results.metric_ids)
    else:
        metric_ids = list(dict.fromkeys(chain.from_iterable(results.values())))
    for metric_id in metric_ids:
        if isinstance(results, QueryScores):
            values = results.values(metric_id).tolist()
        else:
            values = [scores[metric_id] for scores in results.values() if metric_id in scores]
        value = aggregate_values(values, evalcore.describe(metric_id).spec.aggregate)
        if value is not None:
            combined[metric_id] = value
    return combined


def evaluate_columns(qrels: Any, run: Any, metrics: Iterable[str | Metric]) -> QueryScores:
    """Score a run given as columns: ``{qid: {metric id: value}}`` as :func:`evaluate_run` gives.

    ``qrels`` has columns ``qid, docno, rel`` and ``run`` ``qid, docno, score``, each a
    mapping of column name to array (numpy arrays or lists), a pandas DataFrame or a
    pyarrow Table. Queries are scored in run order, then those only in the qrels (scored
    with ``missing='zero'``), as for TREC files.
    """
    from ._columnar import trec_data_from_columns

    data = trec_data_from_columns(qrels, run)
    return score_queries(data.qids, metrics, data.rankings)
