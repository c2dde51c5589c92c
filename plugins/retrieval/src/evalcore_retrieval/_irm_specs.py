"""Specs of the measures ir_measures adds over trec_eval: SDCG, alpha-nDCG and Compat (imports
nothing but ``evalcore.plugin`` and the shared spec helpers)."""

from __future__ import annotations

import re
from typing import Any

from evalcore.plugin import MetricAlias, MetricSpec, ParamSpec, TargetCategory

from ._register import _FLOAT, _INPUTS, _INT, _LEVEL, _SHARED, _float, _k, _spec

DOC_TIES = ("doc_id", "trec", "input")
"""How measures over document rankings order equal scores: doc id ascending (ir_measures'
Compat and ndeval), trec_eval's rule (single-precision scores, doc id descending), or input order."""

_TIES = ParamSpec(
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


def irm_specs(relevance: TargetCategory, accuracy: TargetCategory) -> list[MetricSpec]:
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
                "docno rel` of a diversity qrels file (ndeval's format; read one with "
                "`evalcore_retrieval.read_subtopic_qrels`); a document relevant to several subtopics is "
                "listed once per subtopic. Entries without `subtopic` belong to one default subtopic, as "
                "ir_measures treats a qrels without subtopics." + _RECORDS),
            family="retrieval", target=relevance, value_range=(0.0, 1.0), inputs=_INPUTS,
            params=(
                ParamSpec(name="k", type="int", default=20, identity=True, minimum=1, description="cut-off rank"),
                _float("alpha", 0.5, "redundancy intolerance: the gain lost for each earlier document "
                       "relevant to the same subtopic", minimum=0.0, maximum=1.0),
                _LEVEL,
                ParamSpec(name="judged_only", type="bool", default=False, identity=True,
                          description="drop retrieved documents without a judgement first"),
                _TIES, _MISSING,
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
                _TIES, _MISSING,
            ),
            aliases=(_alias(_ir_params("Compat", ("normalize", "normalize", "True|False"), ("p", "p", _FLOAT))),),
        ),
    ]
