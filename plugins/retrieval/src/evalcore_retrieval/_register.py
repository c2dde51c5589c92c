"""Metric specs of the ``retrieval`` namespace (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import PLUGIN_API_VERSION, MetricSpec, ParamSpec, TargetCategory, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics", "evalcore_readers"]

_METRICS = "evalcore_retrieval.metrics"
_INPUTS = ("example.relevant_docs", "prediction.retrieved")

_COMMON = """

Input: `example.relevant_docs` (`doc_id`, `relevance`, default 1) are the judged documents;
`prediction.retrieved` (`doc_id`, `score`, optional `rank`) the ranking. Documents are ranked by
`score` descending, as trec_eval does (the `rank` field is then ignored); when no document has a
score they are ranked by `rank`, and when neither is given in list order. Ties follow trec_eval:
scores are compared in single precision (trec_eval stores them as C floats) and equal ones are
ordered by doc id descending (string order); `ties='input'` compares the scores as given and keeps
equal ones in input order.
Retrieved documents without a judgement count as non-relevant.

Queries: a record without judged documents is skipped (trec_eval ignores queries absent from the
qrels). A record whose judged documents are all below the relevance level scores 0 and counts in
the mean, as in trec_eval and pytrec_eval (`no_relevant='skip'` skips it instead). A record with
judgements but no retrieved documents is skipped, as trec_eval skips queries absent from the run
(`missing='zero'` scores it 0, like `trec_eval -c`). A malformed record (retrieved not a list, a
document without doc_id, a score that is not a number, a document listed twice) is an error for
that record only, naming the field."""

_LEVEL_TEXT = "A judged document is relevant when its relevance is at least `relevance_level` (trec_eval -l)."


def _k(default: int | None) -> ParamSpec:
    if default is None:
        return ParamSpec(
            name="k", type="int", default=None, nullable=True, identity=True, minimum=1,
            description="cut-off rank; None uses the whole ranking",
        )
    return ParamSpec(name="k", type="int", default=default, identity=True, minimum=1,
                     description="cut-off rank")


_LEVEL = ParamSpec(
    name="relevance_level", type="int", default=1, identity=True, minimum=1,
    description="smallest relevance grade that counts as relevant (trec_eval -l)",
)
_SHARED = (
    ParamSpec(name="ties", type="str", default="trec", identity=True, choices=("trec", "input"),
              description="'trec': scores in single precision, equal ones by doc id descending; "
                          "'input': scores as given, equal ones in input order"),
    ParamSpec(name="missing", type="str", default="skip", identity=True, choices=("skip", "zero"),
              description="records with judgements but nothing retrieved: skip, or score 0 (trec_eval -c)"),
    ParamSpec(name="no_relevant", type="str", default="zero", identity=True, choices=("zero", "skip"),
              description="records whose judged documents are all non-relevant: "
                          "score 0 (trec_eval), or skip"),
)


def _spec(name: str, cls: str, summary: str, definition: str, target: TargetCategory,
          params: tuple[ParamSpec, ...], version: str = "1") -> MetricSpec:
    return MetricSpec(
        name=name, implementation=f"{_METRICS}:{cls}", summary=summary,
        description=definition + _COMMON, family="retrieval", target=target,
        value_range=(0.0, 1.0), params=params + _SHARED, inputs=_INPUTS, version=version,
    )


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    relevance, accuracy = TargetCategory.RETRIEVAL_RELEVANCE, TargetCategory.RETRIEVAL_ACCURACY
    return [
        _spec(
            "recall", "Recall", "Share of the relevant documents found in the top k.",
            "trec_eval `recall_k`: relevant documents in the top k divided by the number of relevant "
            "judged documents. `capped=True` divides by min(k, relevant) instead, so a perfect top k "
            f"scores 1 even when there are more than k relevant documents. {_LEVEL_TEXT}",
            relevance,
            (_k(10), _LEVEL, ParamSpec(name="capped", type="bool", default=False, identity=True,
                                       description="divide by min(k, number of relevant documents)")),
        ),
        _spec(
            "precision", "Precision", "Share of the top k that is relevant.",
            "trec_eval `P_k`: relevant documents in the top k divided by k, even when fewer than k "
            "were retrieved. `denominator='retrieved'` divides by min(k, retrieved) instead. "
            f"{_LEVEL_TEXT}",
            relevance,
            (_k(10), _LEVEL, ParamSpec(name="denominator", type="str", default="k", identity=True,
                                       choices=("k", "retrieved"),
                                       description="divide by k, or by min(k, number retrieved)")),
        ),
        _spec(
            "hit_rate", "HitRate", "Whether any relevant document is in the top k.",
            f"trec_eval `success_k`: 1 when a relevant document is in the top k, else 0. {_LEVEL_TEXT}",
            relevance, (_k(10), _LEVEL),
        ),
        _spec(
            "mrr", "ReciprocalRank", "Reciprocal rank of the first relevant document.",
            "trec_eval `recip_rank`: 1 / rank of the first relevant document, 0 when none is "
            "retrieved; with `k`, only the top k count. The mean over records is the MRR. "
            f"{_LEVEL_TEXT}",
            accuracy, (_k(None), _LEVEL),
        ),
        _spec(
            "map", "AveragePrecision", "Average precision (its mean over records is MAP).",
            "trec_eval `map` (`map_cut_k` with `k`): the sum of the precision at the rank of each "
            "relevant retrieved document (within the top k) divided by the number of relevant "
            f"judged documents, retrieved or not. {_LEVEL_TEXT}",
            accuracy, (_k(None), _LEVEL),
        ),
        _spec(
            "ndcg", "NDCG", "Normalised discounted cumulative gain of the top k.",
            "trec_eval `ndcg_cut_k`: DCG = sum over the top k of gain / log2(rank + 1), divided by "
            "the DCG of the ideal ranking of all judged documents cut at k. The gain is the "
            "relevance grade (linear, as trec_eval); `gain='exp2'` uses 2^grade - 1. Grades <= 0 "
            "give no gain; as in trec_eval, there is no relevance level (every positive grade "
            "counts), and a record counts as having no relevant document when no grade is positive.",
            accuracy,
            (_k(10), ParamSpec(name="gain", type="str", default="linear", identity=True,
                               choices=("linear", "exp2"),
                               description="gain of a grade: 'linear' (grade) or 'exp2' (2^grade - 1)")),
        ),
        _spec(
            "r_precision", "RPrecision", "Precision at rank R, R the number of relevant documents.",
            "trec_eval `Rprec`: relevant documents in the top R divided by R, where R is the "
            f"number of relevant judged documents (retrieved or not). {_LEVEL_TEXT}",
            accuracy, (_LEVEL,),
        ),
    ]


@hookimpl
def evalcore_readers() -> list[dict]:
    """TREC qrels and run files (``evalcore evaluate --qrels Q --run R``)."""
    return [{
        "name": "trec", "implementation": "evalcore_retrieval._reader:trec_source",
        "summary": "TREC qrels (qid iter docno rel) and run (qid Q0 docno rank score tag) files, "
                   "read as trec_eval does",
        "options": [
            {"flag": "--qrels", "dest": "qrels", "help": "TREC qrels file (qid iter docno rel)"},
            {"flag": "--run", "dest": "run", "help": "TREC run file (qid Q0 docno rank score tag)"},
        ],
    }]
