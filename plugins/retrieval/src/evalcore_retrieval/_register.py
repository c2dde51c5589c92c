"""Metric specs of the ``retrieval`` namespace (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

import re
from typing import Any

from evalcore.plugin import (
    MetricAlias,
    MetricSpec,
    ParamSpec,
    TargetCategory,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics", "evalcore_metric_sets", "evalcore_readers"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_INT = "[0-9]+"
_FLOAT = "[0-9]*\\.?[0-9]+"

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
that record only, naming the field.

Conventions: trec_eval's are the default. `convention='rag'` applies the Auepora RAG metric
spec's instead: a record with nothing retrieved scores 0 (not skipped), documents are ranked by
their `rank` field when every one has it, equal scores keep list order, precision divides by
min(k, retrieved) and MAP by the relevant documents retrieved, and when no record has a relevant
document the aggregate is 0.0 with n 0 (not null). It overrides `missing`, `ties` and
`denominator`."""

_LEVEL_TEXT = "A judged document is relevant when its relevance is at least `relevance_level` (trec_eval -l)."

TIES = ("trec", "input")
"""The tie orders of a ranking: trec_eval's (score, then document id descending) or the input's."""


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
    ParamSpec(name="ties", type="str", default="trec", identity=True, choices=TIES,
              description="'trec': scores in single precision, equal ones by doc id descending; "
                          "'input': scores as given, equal ones in input order"),
    ParamSpec(name="missing", type="str", default="skip", identity=True, choices=("skip", "zero"),
              description="records with judgements but nothing retrieved: skip, or score 0 (trec_eval -c)"),
    ParamSpec(name="no_relevant", type="str", default="zero", identity=True, choices=("zero", "skip"),
              description="records whose judged documents are all non-relevant: "
                          "score 0 (trec_eval), or skip"),
    ParamSpec(name="convention", type="str", default="trec", identity=True, choices=("trec", "rag"),
              description="'trec': trec_eval's conventions; 'rag': the Auepora RAG metric spec's "
                          "(nothing retrieved scores 0, ranks honoured, ties in list order, precision "
                          "over min(k, retrieved), MAP over the relevant documents retrieved)"),
    ParamSpec(name="judged_only", type="bool", default=False, identity=True,
              description="evaluate the ranking of the judged documents only, unjudged ones "
                          "removed (trec_eval -J)"),
)


def _spec(name: str, cls: str, summary: str, definition: str, target: TargetCategory,
          params: tuple[ParamSpec, ...], version: str = "1", aliases: tuple[MetricAlias, ...] = (),
          home: str = _METRICS, **fields: Any) -> MetricSpec:
    return MetricSpec(
        name=name, implementation=f"{home}:{cls}", summary=summary,
        description=definition + _COMMON, family="retrieval", target=target,
        value_range=fields.pop("value_range", (0.0, 1.0)), params=params + _SHARED, inputs=_INPUTS,
        version=version, aliases=aliases, **fields,
    )


def _literal(name: str, **params: Any) -> MetricAlias:
    return MetricAlias(name=name, params=params)


def _trec_cut(name: str, param: str = "k", value: str = _INT) -> MetricAlias:
    """trec_eval's ``name_value`` (``P_10``, ``iprec_at_recall_0.50``)."""
    return MetricAlias(name=rf"{re.escape(name)}_(?P<{param}>{value})", regex=True)


def _ir(name: str, k: str = "optional", rel: bool = True, **params: Any) -> MetricAlias:
    """ir_measures' ``Name(rel=l)@k`` (``P@10``, ``P(rel=2)@5``, ``AP``, ``RR@10``)."""
    pattern = re.escape(name)
    if rel:
        pattern += rf"(?:\(rel=(?P<relevance_level>{_INT})\))?"
    if k == "required":
        pattern += rf"@(?P<k>{_INT})"
    elif k == "optional":
        pattern += rf"(?:@(?P<k>{_INT}))?"
    return MetricAlias(name=pattern, regex=True, params=params)


_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_LEVELS = tuple(f"{x / 10:.2f}" for x in range(11))
_MULTIPLES = tuple(f"{x / 10:.2f}" for x in range(2, 21, 2))

ALL_TREC: tuple[str, ...] = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{x}" for x in _RECALL_LEVELS),
    *(f"P_{k}" for k in _CUTOFFS),
    *(f"recall_{k}" for k in _CUTOFFS),
    "infAP", "gm_bpref",
    *(f"Rprec_mult_{x}" for x in _MULTIPLES),
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    *(f"ndcg_cut_{k}" for k in _CUTOFFS),
    *(f"map_cut_{k}" for k in _CUTOFFS),
    *(f"relative_P_{k}" for k in _CUTOFFS),
    "success_1", "success_5", "success_10",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "rbp", "rbp_resid", "unj_5", "unj_10", "unj_20",
)
"""Every measure of ``trec_eval -m all_trec``, in the order trec_eval prints them."""

TREC_FAMILIES: dict[str, list[str]] = {
    family: [name for name in ALL_TREC if re.fullmatch(rf"{family}_{_FLOAT}", name)]
    for family in ("P", "recall", "relative_P", "ndcg_cut", "map_cut", "success", "iprec_at_recall",
                   "Rprec_mult", "unj")
}
"""trec_eval's measures of several cut-offs or levels: ``trec_eval -m P`` prints P_5 ... P_1000, so
the bare name is a metric set of them (and ``evalcore.get_metric("recall")`` refuses it)."""


def _float(name: str, default: float, description: str, **bounds: float) -> ParamSpec:
    return ParamSpec(name=name, type="float", default=default, identity=True, description=description,
                     **bounds)


_COUNT = {"value_range": (0.0, None), "aggregate": "sum"}
_GAINS = ParamSpec(
    name="gains", type="dict", default=None, nullable=True, identity=True,
    description="gain of each grade, {grade: gain}, as trec_eval's ndcg.1=3.5,2=9 "
                "(unlisted grades keep their own value)",
)
_ROUNDING = ParamSpec(
    name="rounding", type="str", default="round", identity=True, choices=("round", "v9"),
    description="recall x is reached at round(x * R) relevant documents (trec_eval 10), or at "
                "(int)(x * R + 0.9) ('v9': trec_eval 9 and pytrec_eval)",
)
_P = _float("p", 0.9, "persistence: the chance the user goes on to the next rank", minimum=0.0, maximum=1.0)


def _rank_specs(relevance: TargetCategory, accuracy: TargetCategory) -> list[MetricSpec]:
    """The measures evalcore-retrieval started with."""
    return [
        _spec(
            "recall", "Recall", "Share of the relevant documents found in the top k.",
            "trec_eval `recall_k`: relevant documents in the top k divided by the number of relevant "
            "judged documents. `capped=True` divides by min(k, relevant) instead, so a perfect top k "
            f"scores 1 even when there are more than k relevant documents. {_LEVEL_TEXT}",
            relevance,
            (_k(10), _LEVEL, ParamSpec(name="capped", type="bool", default=False, identity=True,
                                       description="divide by min(k, number of relevant documents)")),
            aliases=(_trec_cut("recall"), _ir("R", k="required")),
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
            aliases=(_trec_cut("P"), _ir("P", k="required")),
        ),
        _spec(
            "hit_rate", "HitRate", "Whether any relevant document is in the top k.",
            f"trec_eval `success_k`: 1 when a relevant document is in the top k, else 0. {_LEVEL_TEXT}",
            relevance, (_k(10), _LEVEL),
            aliases=(_trec_cut("success"), _ir("Success", k="required")),
        ),
        _spec(
            "mrr", "ReciprocalRank", "Reciprocal rank of the first relevant document.",
            "trec_eval `recip_rank`: 1 / rank of the first relevant document, 0 when none is "
            "retrieved; with `k`, only the top k count (ir_measures `RR@k`). The mean over records "
            f"is the MRR. {_LEVEL_TEXT}",
            accuracy, (_k(None), _LEVEL), aliases=(_literal("recip_rank"), _ir("RR")),
        ),
        _spec(
            "map", "AveragePrecision", "Average precision (its mean over records is MAP).",
            "trec_eval `map` (`map_cut_k` with `k`): the sum of the precision at the rank of each "
            "relevant retrieved document (within the top k) divided by the number of relevant "
            "judged documents, retrieved or not. `denominator='retrieved'` divides by the number of "
            "relevant documents retrieved (within the top k) instead: the Auepora RAG metric spec's "
            f"mean of the precisions at the relevant ranks. {_LEVEL_TEXT}",
            accuracy,
            (_k(None), _LEVEL,
             ParamSpec(name="denominator", type="str", default="relevant", identity=True,
                       choices=("relevant", "retrieved"),
                       description="divide by the relevant judged documents (trec_eval), or by the "
                                   "relevant documents retrieved (the Auepora RAG metric spec)")),
            aliases=(_trec_cut("map_cut"), _ir("AP")),
        ),
        _spec(
            "gm_map", "AveragePrecision", "Geometric mean of average precision over records.",
            "trec_eval `gm_map`: the records' average precision (as `map`) combined by a geometric "
            "mean, each value floored at 0.00001 first (trec_eval's MIN_GEO_MEAN), which rewards "
            f"improving the worst queries. The per-record value is the average precision. {_LEVEL_TEXT}",
            accuracy, (_k(None), _LEVEL), aggregate="gmean", aliases=(_literal("GM_AP"),),
        ),
        _spec(
            "ndcg", "NDCG", "Normalised discounted cumulative gain, of the whole ranking or its top k.",
            "trec_eval `ndcg` over the whole ranking, `ndcg_cut_k` with `k` (ir_measures `nDCG` and "
            "`nDCG@k`): DCG = sum over the ranking (its top k) of gain / log2(rank + 1), divided by the DCG "
            "of the ideal ranking of all judged documents (cut at k). The gain is the relevance grade "
            "(linear, as trec_eval); `gain='exp2'` uses 2^grade - 1; `gains` maps grades to gains as "
            "trec_eval's `ndcg.1=3.5,2=9` and ir_measures' `nDCG(gains=...)` do. Grades <= 0 give no gain; "
            "as in trec_eval, there is no relevance level (every positive grade counts), and a record "
            "counts as having no relevant document when no grade is positive. Without `k` (`ndcg`, "
            "`retrieval/ndcg`, `nDCG`, `NDCG`) it is the whole ranking, as trec_eval's and ir_measures' "
            "names mean; write `ndcg@10` (`ndcg_cut_10`, `nDCG@10`) for the top 10. Before version 3 "
            "the default was k=10.",
            accuracy,
            (_k(None),
             ParamSpec(name="gain", type="str", default="linear", identity=True,
                       choices=("linear", "exp2"),
                       description="gain of a grade: 'linear' (grade) or 'exp2' (2^grade - 1)"),
             _GAINS),
            version="3",
            aliases=(_trec_cut("ndcg_cut"), _ir("nDCG", rel=False)),
        ),
        _spec(
            "r_precision", "RPrecision", "Precision at rank R, R the number of relevant documents.",
            "trec_eval `Rprec`: relevant documents in the top R divided by R, where R is the "
            f"number of relevant judged documents (retrieved or not). {_LEVEL_TEXT}",
            accuracy, (_LEVEL,), aliases=(_ir("Rprec", k="none"),),
        ),
        _spec(
            "relative_precision", "RelativePrecision", "Precision at k relative to the best possible.",
            "trec_eval `relative_P_k`: relevant documents in the top k divided by min(k, number of "
            f"relevant judged documents): precision up to R, recall after. {_LEVEL_TEXT}",
            relevance, (_k(10), _LEVEL), aliases=(_trec_cut("relative_P"),),
        ),
        _spec(
            "r_precision_mult", "PrecisionAtMultiple", "Precision at a multiple of R.",
            "trec_eval `Rprec_mult_x`: precision at rank (int)(x * R + 0.9), R the number of "
            "relevant judged documents (relevant documents in that top divided by the rank, even "
            f"when fewer were retrieved). {_LEVEL_TEXT}",
            accuracy,
            (_float("multiple", 1.0, "the multiple of R at which precision is taken", minimum=0.0), _LEVEL),
            aliases=(_trec_cut("Rprec_mult", "multiple", _FLOAT),),
        ),
        _spec(
            "iprec_at_recall", "InterpolatedPrecision", "Interpolated precision at a recall level.",
            "trec_eval `iprec_at_recall_x`: the highest precision at any rank at or after the one "
            "where recall first reaches x (x * R rounded to the nearest whole number of relevant "
            "documents, as trec_eval 10; `rounding='v9'` gives trec_eval 9's and pytrec_eval's "
            f"(int)(x * R + 0.9)), 0 when that recall is never reached. {_LEVEL_TEXT}",
            accuracy,
            (_float("recall", 0.0, "the recall level, 0 to 1", minimum=0.0, maximum=1.0), _LEVEL, _ROUNDING),
            aliases=(_trec_cut("iprec_at_recall", "recall", _FLOAT),
                     MetricAlias(name=rf"IPrec@(?P<recall>{_FLOAT})", regex=True)),
        ),
        _spec(
            "eleven_point_avg", "ElevenPointAverage", "Interpolated precision averaged over 11 recall levels.",
            "trec_eval `11pt_avg`: the mean of `iprec_at_recall` at recall 0.0, 0.1, ..., 1.0 "
            f"(`rounding` as there). {_LEVEL_TEXT}",
            accuracy, (_LEVEL, _ROUNDING), aliases=(_literal("11pt_avg"),),
        ),
        _spec(
            "bin_g", "BinaryG", "Binary G: gain of relevant documents discounted by non-relevant ones above.",
            "trec_eval `binG`: for each relevant retrieved document, 1 / log2(2 + number of "
            "non-relevant documents ranked above it), summed and divided by the number of relevant "
            f"judged documents. {_LEVEL_TEXT}",
            accuracy, (_LEVEL,), aliases=(_literal("binG"),),
        ),
        _spec(
            "g", "NormalizedGain", "Normalised gain G (trec_eval's experimental G).",
            "trec_eval `G`: each retrieved document contributes gain / log2(2 + ideal cost so far - "
            "gain so far), the ideal cost of a rank being max(ideal gain, 1); the sum is divided by "
            "the total gain of the judged documents. Gains are the grades (<= 0 gives none); no "
            "relevance level, as in trec_eval.",
            accuracy, (), aliases=(_literal("G"),),
        ),
        _spec(
            "ndcg_rel", "NDCGRel", "nDCG averaged over the relevant documents.",
            "trec_eval `ndcg_rel`: nDCG taken at the rank of each relevant retrieved document, and "
            "at the end of the ranking for each relevant document not retrieved, averaged over the "
            "relevant documents. Gains are the grades (<= 0 gives none); no relevance level.",
            accuracy, (),
        ),
        _spec(
            "rndcg", "RLevelNDCG", "nDCG averaged at the R-level points.",
            "trec_eval `Rndcg`: nDCG averaged at the ranks where the ideal gain drops (the number of "
            "judged documents at each grade and above, highest grade first), plus the end of the "
            "ranking when the ideal gain reaches 0 before it. Gains are the grades; a record with "
            f"no relevant document scores 0. {_LEVEL_TEXT}",
            accuracy, (_LEVEL,), aliases=(_literal("Rndcg"),),
        ),
        _spec(
            "err", "ERR", "Expected reciprocal rank of the top k.",
            "ir_measures `ERR@k` (Chapelle, Metzler, Zhang and Grinspan, Expected Reciprocal Rank "
            "for Graded Relevance, CIKM 2009), as the gdeval script computes it: the sum over the "
            "top k of R_i / i * prod over j < i of (1 - R_j), with R = (2^grade - 1) / 2^max_grade "
            "(gdeval's maximum grade 4; higher grades count as the maximum). Grades <= 0 give 0.",
            accuracy,
            (_k(20), _float("max_grade", 4.0, "the highest grade (gdeval's MAX_JUDGMENT)", minimum=1.0)),
            aliases=(_ir("ERR", rel=False, k="required"),),
        ),
        _spec(
            "rbp", "RBP", "Rank-biased precision.",
            "trec_eval `rbp` (Moffat and Zobel, Rank-Biased Precision for Measurement of Retrieval "
            "Effectiveness, TOIS 2008): (1 - p) * sum over ranks i of gain * p^(i - 1). The gain is "
            "trec_eval's by default: the grade divided by the query's highest judged grade when that "
            "exceeds 1 (the relevance level plays no part, as in trec_eval). `gain='binary'` gives 1 "
            "to a grade at least `relevance_level`, as ir_measures' `RBP(rel=l)` computes it (its "
            "cwl_eval provider); `gain='graded'` is cwl_eval's graded gain, min(grade, max_grade) / "
            "max_grade (negative grades 0). Unjudged documents give 0. ir_measures' `RBP` (p = 0.8 by "
            "default) resolves here with its p and rel. cwl_eval spreads the weights over its top 1000 "
            "ranks only, which differs by a factor 1 / (1 - p^1000): nothing at 4 decimals unless p is "
            "above 0.99. It keeps equal scores in input order and scores queries absent from the run "
            "0: with `ties='input', missing='zero'` the binary RBP gives its numbers exactly.",
            accuracy,
            (_P,
             ParamSpec(name="gain", type="str", default="trec", identity=True, choices=("trec", "binary", "graded"),
                       description="'trec': trec_eval's gain; 'binary': 1 at relevance_level and above "
                                   "(ir_measures' rel); 'graded': min(grade, max_grade) / max_grade (cwl_eval)"),
             _LEVEL,
             ParamSpec(name="max_grade", type="float", default=None, nullable=True, identity=True,
                       minimum=1.0, description="the grade of full gain for gain='graded'")),
            aliases=(MetricAlias(name=rf"RBP(?:\(p=(?P<p>{_FLOAT})\))?", regex=True, params={"p": 0.8}),
                     MetricAlias(name=rf"RBP\((?:p=(?P<p>{_FLOAT}),)?rel=(?P<relevance_level>{_INT})\)", regex=True,
                                 params={"p": 0.8, "gain": "binary"})),
            home="evalcore_retrieval._scaled",
        ),
        _spec(
            "rbp_resid", "RBPResidual", "How much RBP could still rise from unjudged documents.",
            "trec_eval `rbp_resid`: p^n + (1 - p) * sum of p^(i - 1) over the ranks i of unjudged "
            "retrieved documents (n retrieved), i.e. the rise of RBP if every unjudged retrieved "
            "document and everything after the ranking had gain 1; 0 when every retrieved document "
            "is judged.",
            accuracy, (_P,),
        ),
    ]


@hookimpl
def evalcore_readers() -> list[dict]:
    """TREC qrels and run files (``evalcore evaluate --qrels Q --run R``), and diversity qrels with a
    run (``--subtopic-qrels Q --run R``)."""
    return [{
        "name": "trec", "implementation": "evalcore_retrieval._reader:trec_source",
        "summary": "TREC qrels (qid iter docno rel) and run (qid Q0 docno rank score tag) files, "
                   "read as trec_eval does",
        "options": [
            {"flag": "--qrels", "dest": "qrels", "help": "TREC qrels file (qid iter docno rel)"},
            {"flag": "--run", "dest": "run", "help": "TREC run file (qid Q0 docno rank score tag)"},
            {"flag": "--max-docs", "dest": "max_docs", "kind": "int",
             "help": "keep the first N documents of each ranking (trec_eval -M)"},
        ],
    }, {
        "name": "trec_subtopics", "implementation": "evalcore_retrieval._subtopic_qrels:subtopic_source",
        "summary": "diversity qrels (qid subtopic docno rel, ndeval's format) and a TREC run, as records "
                   "whose relevant_docs carry subtopics (for alpha-nDCG)",
        "options": [
            {"flag": "--subtopic-qrels", "dest": "subtopic_qrels",
             "help": "diversity qrels file (qid subtopic docno rel, ndeval's format)"},
            {"flag": "--run", "dest": "run", "help": "TREC run file (qid Q0 docno rank score tag)"},
        ],
    }]
def _set_specs(relevance: TargetCategory, accuracy: TargetCategory) -> list[MetricSpec]:
    """Counts and measures of the retrieved set."""
    return [
        _spec("num_q", "NumQ", "Number of queries evaluated (summed).",
              "trec_eval `num_q`: each evaluated record counts 1; the aggregate is the sum.",
              relevance, (), aliases=(_literal("NumQ"),), **_COUNT),
        _spec("num_ret", "NumRet", "Number of documents retrieved (summed).",
              "trec_eval `num_ret`: the number of retrieved documents; the aggregate is the sum.",
              relevance, (), aliases=(_literal("NumRet"),), **_COUNT),
        _spec("num_rel", "NumRel", "Number of relevant judged documents (summed).",
              "trec_eval `num_rel`: the number of judged documents at or above the relevance level, "
              f"retrieved or not; the aggregate is the sum. {_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_ir("NumRel", k="none"),), **_COUNT),
        _spec("num_rel_ret", "NumRelRet", "Number of relevant documents retrieved (summed).",
              "trec_eval `num_rel_ret`: the number of relevant retrieved documents; the aggregate is "
              f"the sum. {_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_ir("NumRelRet", k="none"),), **_COUNT),
        _spec("num_nonrel_judged_ret", "NumNonrelJudgedRet",
              "Number of judged non-relevant documents retrieved (summed).",
              "trec_eval `num_nonrel_judged_ret`: retrieved documents judged below the relevance "
              "level (a negative grade means unjudged, as in trec_eval); the aggregate is the sum. "
              f"{_LEVEL_TEXT}",
              relevance, (_LEVEL,), **_COUNT),
        _spec("set_precision", "SetPrecision", "Precision of the whole retrieved set.",
              f"trec_eval `set_P`: relevant retrieved / retrieved. {_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_literal("set_P"), _ir("SetP", k="none")),),
        _spec("set_recall", "SetRecall", "Recall of the whole retrieved set.",
              f"trec_eval `set_recall`: relevant retrieved / relevant judged. {_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_ir("SetR", k="none"),)),
        _spec("set_relative_precision", "SetRelativePrecision",
              "Precision of the retrieved set relative to the best possible.",
              "trec_eval `set_relative_P`: relevant retrieved / min(retrieved, relevant judged). "
              f"{_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_literal("set_relative_P"), _ir("SetRelP", k="none"))),
        _spec("set_map", "SetMAP", "Unranked average precision of the retrieved set.",
              "trec_eval `set_map`: relevant retrieved squared / (retrieved * relevant judged), the "
              f"set precision times the set recall. {_LEVEL_TEXT}",
              relevance, (_LEVEL,), aliases=(_ir("SetAP", k="none"),)),
        _spec("set_f", "SetF", "F measure of the retrieved set.",
              "trec_eval `set_F` (van Rijsbergen's F): (beta + 1) * P * R / (beta * P + R) with P and "
              f"R the set precision and recall; 0 when nothing relevant is retrieved. {_LEVEL_TEXT}",
              relevance,
              (_float("beta", 1.0, "the weight of recall relative to precision", minimum=0.0), _LEVEL),
              aliases=(_literal("set_F"), _ir("SetF", k="none"))),
        _spec("utility", "Utility", "Set utility: weighted counts of the contingency table.",
              "trec_eval `utility`: w1 * relevant retrieved + w2 * non-relevant retrieved + w3 * "
              "relevant not retrieved + w4 * non-relevant not retrieved, default weights (1, -1, 0, 0); "
              "the last count needs the collection size `num_docs` (trec_eval -N). The aggregate is "
              f"the mean, as trec_eval prints. {_LEVEL_TEXT}",
              relevance,
              (ParamSpec(name="weights", type="list", default=(1.0, -1.0, 0.0, 0.0), identity=True,
                         description="the four weights w1..w4"),
               ParamSpec(name="num_docs", type="int", default=0, minimum=0, identity=True,
                         description="documents in the collection (trec_eval -N)"),
               _LEVEL),
              value_range=(None, None)),
    ]


def _judgement_specs(relevance: TargetCategory, accuracy: TargetCategory) -> list[MetricSpec]:
    """Measures that look at which retrieved documents are judged."""
    nonrel = ("Only judged documents count: unjudged ones are neither relevant nor non-relevant, "
              "and a negative grade marks a document as in the pool but unjudged (trec_eval).")
    return [
        _spec("bpref", "Bpref", "Binary preference: relevant documents ranked above judged non-relevant ones.",
              "trec_eval `bpref` (Buckley and Voorhees, Retrieval Evaluation with Incomplete "
              "Information, SIGIR 2004): for each relevant retrieved document, 1 - min(n, R) / "
              "min(N, R), n the judged non-relevant documents ranked above it, N all judged "
              "non-relevant, R all relevant documents; summed and divided by R. "
              f"{nonrel} {_LEVEL_TEXT}",
              accuracy, (_LEVEL,), aliases=(_ir("Bpref", k="none"),)),
        _spec("gm_bpref", "Bpref", "Geometric mean of bpref over records.",
              "trec_eval `gm_bpref`: bpref combined over records by a geometric mean of the values "
              f"floored at 0.00001 (trec_eval's MIN_GEO_MEAN). {nonrel} {_LEVEL_TEXT}",
              accuracy, (_LEVEL,), aggregate="gmean"),
        _spec("infap", "InferredAP", "Inferred average precision from a sampled judgement pool.",
              "trec_eval `infAP` (Yilmaz and Aslam, Estimating Average Precision with Incomplete "
              "and Imperfect Judgments, CIKM 2006): the precision above each relevant retrieved "
              "document estimated from the judged documents above it, unjudged documents outside "
              "the pool counting as non-relevant and those in the pool (negative grade) as relevant "
              f"in the judged proportion. {_LEVEL_TEXT}",
              accuracy, (_LEVEL,), aliases=(_literal("infAP"), _ir("infAP", k="none"))),
        _spec("unjudged", "Unjudged", "Share of the top k without a judgement.",
              "trec_eval `unj_k`: documents in the top k with no judgement (or a negative grade) "
              "divided by k, even when fewer were retrieved. Lower is better.",
              relevance, (_k(10),), direction="lower", aliases=(_trec_cut("unj"),)),
        _spec("judged", "Judged", "Share of the ranking, or of its top k, that is judged.",
              "ir_measures `Judged@k`: documents in the top min(k, retrieved) with a judgement of any "
              "grade divided by min(k, retrieved); without k (`judged`, ir_measures `Judged`), over the "
              "whole ranking, as ir_measures' name means; 0 when nothing is retrieved. Before version 2 "
              "the default was k=10.",
              relevance, (_k(None),), version="2",
              aliases=(_ir("Judged", rel=False),)),
    ]


_PYTREC_EVAL = ("pytrec_eval (trec_eval 9.0), every measure per query on generated runs; trec_eval 10's "
                "outputs for its test collection", 1e-9)
_TREC_EVAL_10 = ("trec_eval 10's outputs for its test collection (its 4 printed decimals)", 5e-5)
_IR_MEASURES = "ir_measures on generated runs"
VERIFIED: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("bin_g", "bpref", "eleven_point_avg", "g", "gm_bpref", "gm_map", "hit_rate", "infap",
                     "iprec_at_recall", "map", "mrr", "ndcg", "ndcg_rel", "num_nonrel_judged_ret", "num_q",
                     "num_rel", "num_rel_ret", "num_ret", "precision", "r_precision", "r_precision_mult",
                     "recall", "relative_precision", "rndcg", "set_f", "set_map", "set_precision", "set_recall",
                     "set_relative_precision", "utility"), _PYTREC_EVAL),
    **dict.fromkeys(("rbp_resid", "unjudged"), _TREC_EVAL_10),
    "rbp": ("trec_eval 10's outputs (4 printed decimals); ir_measures RBP(rel=l) (cwl_eval) on generated runs",
            5e-5),
    "judged": (f"{_IR_MEASURES} (Judged@k)", 1e-12),
    "err": (f"{_IR_MEASURES} (ERR@k, its gdeval script, 5 printed decimals)", 6e-6),
    "sdcg": (f"{_IR_MEASURES} (SDCG@k, cwl_eval)", 1e-12),
    "compat": (f"{_IR_MEASURES} (Compat)", 1e-12),
    "alpha_ndcg": (f"{_IR_MEASURES} (alpha_nDCG@k, ndeval through pyndeval)", 1e-12),
}
"""What each metric's values are tested against, and to what absolute difference."""


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    relevance, accuracy = TargetCategory.RETRIEVAL_RELEVANCE, TargetCategory.RETRIEVAL_ACCURACY
    specs = [
        *_rank_specs(relevance, accuracy),
        *_set_specs(relevance, accuracy),
        *_judgement_specs(relevance, accuracy),
        *_irm_specs(relevance, accuracy),
    ]
    return [spec.verified(*VERIFIED[spec.name]) if spec.name in VERIFIED else spec for spec in specs]


@hookimpl
def evalcore_metric_sets() -> dict[str, list[str]]:
    return {"all_trec": list(ALL_TREC), **TREC_FAMILIES}


# -- the measures ir_measures adds over trec_eval: SDCG, alpha-nDCG, Compat ----------------------

DOC_TIES = ("doc_id", "trec", "input")
"""How measures over document rankings order equal scores: doc id ascending (ir_measures'
Compat and ndeval), trec_eval's rule (single-precision scores, doc id descending), or input order."""

_DOC_TIES = ParamSpec(
    name="ties", type="str", default="doc_id", identity=True, choices=DOC_TIES,
    description="equal scores: 'doc_id' ascending (ir_measures), 'trec' (single precision, doc id "
                "descending, as trec_eval), or 'input' order",
)
_MISSING = next(p for p in _SHARED if p.name == "missing")

_RECORDS = """

Input: `example.relevant_docs` (`doc_id`, `relevance`, default 1) are the judgements;
`prediction.retrieved` (`doc_id`, `score`, optional `rank`) the ranking, by `score` descending
(without scores by `rank`, else in list order); equal scores are ordered by doc id ascending, as
ir_measures does (`ties='trec'`: trec_eval's order; `ties='input'`: list order). Retrieved
documents without a judgement count as non-relevant. A record without judgements is skipped; a
record with judgements but nothing retrieved is skipped (`missing='zero'` scores it 0, as
ir_measures does for queries absent from the run). A malformed record is an error for that record
only, naming the field."""


def _ir_params(name: str, *params: tuple[str, str, str], cutoff: str = "none") -> str:
    """ir_measures' ``Name(a=..,b=..)@k`` with its parameters in alphabetical order, each optional:
    ``params`` are (ir_measures name, evalcore parameter or '' for a fixed value, value pattern)."""
    parts = [rf"{re.escape(ir)}={f'(?P<{ours}>{value})' if ours else value}" for ir, ours, value in params]
    pattern = re.escape(name) + r"(?:\(" + ",?".join(f"(?:{part})?" for part in parts) + r"\))?"
    if cutoff == "required":
        pattern += rf"@(?P<k>{_INT})"
    return pattern


def _alias(pattern: str, **params: Any) -> MetricAlias:
    return MetricAlias(name=pattern, regex=True, params=params)


def _irm_specs(relevance: TargetCategory, accuracy: TargetCategory) -> list[MetricSpec]:
    """SDCG (vectorised over TREC columns), alpha-nDCG and Compat (over records' documents)."""
    return [
        _spec(
            "sdcg", "SDCG", "Scaled DCG: DCG of the top k over that of k documents of full gain.",
            "ir_measures `SDCG@k`, as its cwl_eval provider computes it (the C/W/L framework: Azzopardi, "
            "Thomas and Moffat, cwl_eval, SIGIR 2019): the sum over the top k of gain / log2(rank + 1), "
            "divided by the sum over ranks 1..k of 1 / log2(rank + 1), i.e. nDCG as if at least k "
            "documents of full gain existed. The gain is cwl_eval's scaling, (clip(grade, min_grade, "
            "max_grade) - min_grade) / (max_grade - min_grade), negative grades counting as 0 (ir_measures' "
            "`min_rel` and `max_rel`); `max_grade=None` takes the highest grade judged for the record, "
            "where ir_measures requires `max_rel`. cwl_eval looks at the top 1000 documents only, so for "
            "k > 1000 ir_measures gives SDCG@1000. cwl_eval keeps equal scores in input order and scores "
            "queries absent from the run 0: `ties='input', missing='zero'` give its numbers exactly.",
            accuracy,
            (_k(10),
             _float("min_grade", 0.0, "grades at or below it gain nothing (ir_measures' min_rel)", minimum=0.0),
             ParamSpec(name="max_grade", type="float", default=None, nullable=True, identity=True, minimum=0.0,
                       description="grades at or above it gain 1 (ir_measures' max_rel); None: the record's "
                                   "highest judged grade")),
            aliases=(_alias(_ir_params("SDCG", ("dcg", "", "log2"), ("max_rel", "max_grade", _INT),
                                       ("min_rel", "min_grade", _INT), cutoff="required")),),
            home="evalcore_retrieval._scaled",
        ),
        MetricSpec(
            name="alpha_ndcg", implementation="evalcore_retrieval._diversity:AlphaNDCG",
            summary="alpha-nDCG: nDCG that rewards covering new subtopics and penalises redundancy.",
            description=(
                "ir_measures `alpha_nDCG@k` (Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher and "
                "MacKinnon, Novelty and Diversity in Information Retrieval Evaluation, SIGIR 2008), as "
                "ndeval computes it (ir_measures' pyndeval provider): a document at rank i gains the sum, "
                "over the subtopics it is relevant to, of (1 - alpha)^(documents above it relevant to that "
                "subtopic), discounted by log2(i + 1); alpha-DCG@k over that of ndeval's greedy ideal "
                "ranking (at each rank the judged document with the highest gain, equal gains resolved by "
                "the larger doc id); 0 when either is 0. A judgement is relevant when its relevance is at "
                "least `relevance_level` (ir_measures' `rel`). `judged_only` removes retrieved documents "
                "without any judgement first. ndeval stops at k = 20; here any k works.\n\n"
                "Subtopics: each `example.relevant_docs` entry judges one (subtopic, document) pair and "
                "names its subtopic in a `subtopic` field (string or integer), as the lines `qid subtopic "
                "docno rel` of a diversity qrels file (ndeval's format; `evalcore evaluate --subtopic-qrels Q "
                "--run R` reads one, as does `evalcore_retrieval.read_subtopic_qrels`); a document relevant "
                "to several subtopics is listed once per subtopic. Entries without `subtopic` belong to "
                "one default subtopic, as ir_measures treats a qrels without subtopics." + _RECORDS),
            family="retrieval", target=relevance, value_range=(0.0, 1.0), inputs=_INPUTS,
            params=(
                ParamSpec(name="k", type="int", default=20, identity=True, minimum=1, description="cut-off rank"),
                _float("alpha", 0.5, "redundancy intolerance: the gain lost for each earlier document "
                       "relevant to the same subtopic", minimum=0.0, maximum=1.0),
                _LEVEL,
                ParamSpec(name="judged_only", type="bool", default=False, identity=True,
                          description="drop retrieved documents without a judgement first"),
                _DOC_TIES, _MISSING,
            ),
            aliases=tuple(
                _alias(_ir_params(name, ("alpha", "alpha", _FLOAT), ("judged_only", "judged_only", "True|False"),
                                  ("rel", "relevance_level", _INT), cutoff="required"))
                for name in ("alpha_nDCG", "α_nDCG")
            ),
        ),
        MetricSpec(
            name="compat", implementation="evalcore_retrieval._compat:Compat",
            summary="Compatibility: rank-biased overlap of the ranking with the ideal ranking.",
            description=(
                "ir_measures `Compat` (Clarke, Vtyurina and Smucker, Assessing Top-k Preferences, TOIS "
                "2021), as its compat provider computes it: the rank-biased overlap, with persistence p, "
                "between the ranking and the ideal ranking, taken to the depth of the longer of the two. "
                "The ideal ranking holds the documents with a positive grade, by grade descending, then by "
                "run score descending (0 for one not retrieved; without scores, documents not retrieved "
                "come after those retrieved), then in judgement order. `normalize` divides by the overlap "
                "of the ideal ranking with itself, so a finite ideal ranking can score 1. A record whose "
                "judged documents are all non-relevant scores 0." + _RECORDS),
            family="retrieval", target=accuracy, value_range=(0.0, 1.0), inputs=_INPUTS,
            params=(
                _float("p", 0.95, "persistence: the weight of each deeper rank relative to the one above",
                       minimum=0.0, maximum=1.0),
                ParamSpec(name="normalize", type="bool", default=True, identity=True,
                          description="divide by the ideal ranking's overlap with itself"),
                _DOC_TIES, _MISSING,
            ),
            aliases=(_alias(_ir_params("Compat", ("normalize", "normalize", "True|False"), ("p", "p", _FLOAT))),),
        ),
    ]
