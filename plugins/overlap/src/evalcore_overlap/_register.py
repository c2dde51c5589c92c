"""Metric specs of the overlap plugin (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    PLUGIN_API_VERSION, Granularity, MetricSpec, ParamSpec, TargetCategory, hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

_PKG = "evalcore_overlap"
_RESPONSE = "prediction.response"
_REFERENCE = "example.reference_answer"

EMPTY_RESPONSE = ParamSpec(
    name="empty_response", type="str", default="score", choices=("score", "skip"),
    description="a blank response: 'score' it as the reference implementation does "
    "(usually 0), or 'skip' the sample",
)
NORMALISATION = (
    ParamSpec(name="ignore_case", type="bool", default=True, identity=True,
              description="lower-case both sides"),
    ParamSpec(name="ignore_punctuation", type="bool", default=True, identity=True,
              description="remove ASCII punctuation (string.punctuation)"),
    ParamSpec(name="ignore_articles", type="bool", default=True, identity=True,
              description="remove the lower-case English articles a/an/the"),
)
BOTH_EMPTY = ParamSpec(
    name="both_empty", type="float", default=0.0, minimum=0.0, maximum=1.0, identity=True,
    description="value when both normalised sides have no tokens: 0 as DSPy, 1 as SQuAD v2 "
    "and QReCC",
)
_NORMALISED = (
    "Both sides are normalised as DSPy's normalize_text (= SQuAD's normalize_answer plus "
    "NFD): Unicode NFD, lower-case, drop ASCII punctuation, drop the articles a/an/the, "
    "collapse whitespace; the ignore_* switches (seed 002) turn single steps off. "
    "With several reference answers the best value counts. "
)
_F1 = (
    "Token F1: whitespace tokens after normalisation, common = multiset intersection, "
    "precision = common/|pred|, recall = common/|ref|, F1 = 2PR/(P+R), 0 when nothing is "
    "in common. When both sides normalise to no tokens DSPy gives 0 (default) while SQuAD v2 "
    "gives 1: parameter both_empty. "
)
_EMPTY = "A missing response skips the sample; a blank one is scored unless empty_response='skip'."


def _spec(name: str, implementation: str, summary: str, description: str, **fields: object) -> MetricSpec:
    fields.setdefault("target", TargetCategory.GENERATION_CORRECTNESS)
    fields.setdefault("inputs", (_REFERENCE, _RESPONSE))
    return MetricSpec(
        name=name, implementation=f"{_PKG}.{implementation}", summary=summary,
        description=description, tier="proxy", direction="higher", deterministic=True,
        **fields,  # type: ignore[arg-type]
    )


def _qa_specs() -> list[MetricSpec]:
    return [
        _spec(
            "exact_match", "qa:ExactMatch",
            "1 when the normalised response equals a normalised reference answer, else 0.",
            _NORMALISED + "Equal to DSPy's EM / em_score and SQuAD exact match. "
            "Two sides that both normalise to the empty string match (1). " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0), params=(*NORMALISATION, EMPTY_RESPONSE),
        ),
        _spec(
            "token_f1", "qa:TokenF1",
            "Token-level F1 of the normalised response against the best reference answer.",
            _NORMALISED + _F1 + "Equal to DSPy's F1 / f1_score. " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0),
            params=(*NORMALISATION, BOTH_EMPTY, EMPTY_RESPONSE),
        ),
        _spec(
            "hotpot_f1", "qa:HotpotF1",
            "HotPotQA token F1: 0 when yes/no/noanswer labels disagree, else token F1.",
            _NORMALISED + _F1 + "HotPotQA rule: when either normalised side is 'yes', 'no' or "
            "'noanswer' and the two differ, the value is 0. Equal to DSPy's HotPotF1. " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0),
            params=(*NORMALISATION, BOTH_EMPTY, EMPTY_RESPONSE),
        ),
        _spec(
            "answer_exact_match", "qa:AnswerExactMatch",
            "DSPy's answer_exact_match: exact match, or token F1 >= frac when frac < 1.",
            "As dspy.evaluate.answer_exact_match: with frac >= 1 the value is exact_match "
            "(DSPy normalisation); with frac < 1 it is 1 when the best token F1 over the "
            "reference answers is at least frac (both-empty F1 is 0, as DSPy). " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0),
            params=(
                ParamSpec(name="frac", type="float", default=1.0, minimum=0.0, identity=True,
                          description="F1 threshold; 1.0 or more means exact match"),
                EMPTY_RESPONSE,
            ),
        ),
        _spec(
            "answer_passage_match", "qa:AnswerPassageMatch",
            "DSPy's answer_passage_match: 1 when a passage contains a reference answer.",
            "As dspy.evaluate.answer_passage_match: answers are normalised with normalize_text "
            "then DPR-tokenised; passages likewise (normalize_text, then DPR's SimpleTokenizer: "
            "NFD, runs of letters/digits/marks or single other visible characters, "
            "lower-cased). The value is 1 when some answer's tokens occur contiguously in some "
            "passage. Passages come from prediction.context (a list of strings, DSPy's field) "
            "or the text of prediction.retrieved; passage_source='auto' (default) prefers "
            "context when present. No passages gives 0; missing fields skip the sample.",
            family="passage_match", target=TargetCategory.RETRIEVAL_RELEVANCE,
            value_range=(0.0, 1.0), requires=("regex",),
            inputs=(_REFERENCE, "prediction.context", "prediction.retrieved"),
            params=(
                ParamSpec(name="passage_source", type="str", default="auto",
                          choices=("auto", "context", "retrieved"),
                          description="where the passages come from"),
            ),
        ),
    ]


ROUGE_TOKENIZER = ParamSpec(
    name="tokenizer", type="str", default="rouge_score", choices=("rouge_score", "unicode"),
    identity=True,
    description="'rouge_score': rouge-score's tokenizer exactly (ASCII [a-z0-9] runs; other "
    "scripts vanish); 'unicode': words for space-delimited scripts, characters for "
    "CJK/Thai/Lao/Khmer/Myanmar, after NFKC and case folding",
)


def _rouge_spec() -> MetricSpec:
    return _spec(
        "rouge", "rouge:Rouge",
        "ROUGE-N / ROUGE-L / ROUGE-Lsum of the response against the best reference (rouge-score).",
        "Numerically identical to Google's rouge-score RougeScorer. variant picks the type and "
        "is part of the id: '1'..'9' (ROUGE-N, clipped n-gram overlap), 'L' (LCS over the "
        "whole text), 'Lsum' (summary-level union LCS over newline-separated sentences). "
        "measure: 'f' F-measure (default), 'p' precision, 'r' recall. use_stemmer applies "
        "NLTK's Porter stemmer to tokens longer than 3 characters; rouge-score's default is "
        "off (also the default here), seed 002 suggests on. With several references the one "
        "with the highest F-measure is used for every measure, as score_multi does. An empty "
        "target or prediction scores 0. compare_to='query' compares with example.query "
        "instead (a relevance reading). Details carry precision, recall and fmeasure. " + _EMPTY,
        family="rouge", value_range=(0.0, 1.0), requires=("nltk", "regex"),
        params=(
            ParamSpec(name="variant", type="str", required=True, identity=True,
                      choices=(*"123456789", "L", "Lsum"),
                      description="'1'..'9' for ROUGE-N, 'L', or 'Lsum'"),
            ParamSpec(name="measure", type="str", default="f", choices=("f", "p", "r"),
                      identity=True, description="F-measure, precision or recall"),
            ParamSpec(name="use_stemmer", type="bool", default=False, identity=True,
                      description="Porter-stem tokens longer than 3 characters"),
            ROUGE_TOKENIZER,
            ParamSpec(name="compare_to", type="str", default="reference",
                      choices=("reference", "query"), identity=True,
                      description="compare with the reference answers or with the query"),
            EMPTY_RESPONSE,
        ),
    )


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The overlap plugin's metrics."""
    return [*_qa_specs(), _rouge_spec()]
