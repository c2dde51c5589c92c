"""The faster BLEU and chrF statistics (evalcore_overlap._fast_stats) against sacrebleu's own
methods, and corpus scores through ``evalcore evaluate`` against ``sacrebleu.corpus_bleu`` /
``corpus_chrf``. Every expected number comes from sacrebleu itself."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import evalcore
import pytest
import sacrebleu
from evalcore.testing import run_evalcore, write_records
from evalcore_overlap._fast_stats import FastBLEU, FastCHRF, tokenize_13a
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

SETTINGS = settings(max_examples=80, deadline=None)

TOKENS = (
    "the", "The", "cat", "sat", "on", "a", "mat", "Paris", "café", "naïve", "東京", "Привет", "über-cool",
    "3.14", "1,000", "-5", "10-20", "2.", ".5", "a.b", "x,y", "U.S.", "e-mail", "don't", "it's",
    ".", ",", "-", "!", "?", "(", ")", "[x]", "{y}", "/", "@", "#", "$", "%", "~", "`", "^", "_", ":", ";",
    '"', "'", '"quoted"', "&quot;", "&amp;", "&lt;", "&gt;", "&", "<skipped>", "<b>", "\u00a0", "\u3000", "",
)
SEPARATORS = (" ", "", "  ", "\n", "-\n", "\t", " . ", ",")


@st.composite
def segments(draw: st.DrawFn, max_size: int = 20) -> str:
    """Words, numbers with . , - around them, punctuation, entities and unicode, joined by assorted
    separators (none included, so punctuation touches digits and letters); sometimes empty."""
    tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=max_size))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(tokens), max_size=len(tokens)))
    return "".join(t + s for t, s in zip(tokens, seps))


any_segments = st.one_of(segments(), st.text(max_size=30))


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A hypothesis and one to three references."""
    return draw(any_segments), draw(st.lists(any_segments, min_size=1, max_size=3))


@SETTINGS
@given(line=any_segments)
def test_13a_tokenizer_equals_sacrebleu(line: str) -> None:
    assert tokenize_13a(line) == Tokenizer13a()(line)


BLEU_OPTIONS = [{}, {"tokenize": "intl"}, {"tokenize": "char"}, {"tokenize": "none"}, {"lowercase": True},
                {"max_ngram_order": 1}, {"max_ngram_order": 6, "tokenize": "13a"}]
CHRF_OPTIONS = [{}, {"word_order": 2}, {"word_order": 1, "char_order": 3}, {"whitespace": True},
                {"lowercase": True, "beta": 3}, {"char_order": 1}, {"eps_smoothing": True, "word_order": 3}]


def _tuple_keyed(counts: Counter[Any]) -> Counter[tuple[str, ...]]:
    """Our unigram counters are keyed by the token; sacrebleu keys every n-gram by its tuple."""
    return Counter({key if isinstance(key, tuple) else (key,): count for key, count in counts.items()})


@pytest.mark.parametrize("options", BLEU_OPTIONS, ids=str)
@SETTINGS
@given(pair=pairs())
def test_bleu_statistics_equal_sacrebleu(options: dict, pair: tuple[str, list[str]]) -> None:
    hyp, refs = pair
    ours, theirs = FastBLEU(**options), BLEU(**options)
    our_refs = [ours._preprocess_segment(ref) for ref in refs]
    their_refs = [theirs._preprocess_segment(ref) for ref in refs]
    assert our_refs == their_refs
    our_info, their_info = ours._extract_reference_info(our_refs), theirs._extract_reference_info(their_refs)
    assert our_info["ref_lens"] == their_info["ref_lens"]
    merged = sum(map(_tuple_keyed, our_info["ref_ngrams"]), Counter())
    assert merged == their_info["ref_ngrams"]
    hyp_ours, hyp_theirs = ours._preprocess_segment(hyp), theirs._preprocess_segment(hyp)
    assert hyp_ours == hyp_theirs
    assert (ours._compute_segment_statistics(hyp_ours, our_info)
            == theirs._compute_segment_statistics(hyp_theirs, their_info))


@pytest.mark.parametrize("options", CHRF_OPTIONS, ids=str)
@SETTINGS
@given(pair=pairs())
def test_chrf_statistics_equal_sacrebleu(options: dict, pair: tuple[str, list[str]]) -> None:
    hyp, refs = pair
    ours, theirs = FastCHRF(**options), CHRF(**options)
    refs = [theirs._preprocess_segment(ref) for ref in refs]
    hyp = theirs._preprocess_segment(hyp)
    our_info, their_info = ours._extract_reference_info(refs), theirs._extract_reference_info(refs)
    assert our_info["ref_ngrams"] == their_info["ref_ngrams"]
    assert our_info["ref_totals"] == [[sum(c.values()) for c in counts] for counts in their_info["ref_ngrams"]]
    assert ours._compute_segment_statistics(hyp, our_info) == theirs._compute_segment_statistics(hyp, their_info)


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and, per sample, the same number (1-3) of references."""
    size, nrefs = draw(st.integers(1, 8)), draw(st.integers(1, 3))
    hyps = draw(st.lists(any_segments, min_size=size, max_size=size))
    refs = draw(st.lists(st.lists(any_segments, min_size=nrefs, max_size=nrefs), min_size=size, max_size=size))
    return hyps, refs


def metric_id(name: str, params: dict) -> str:
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})" if params else name


def ours(options: dict) -> dict:
    """sacrebleu's parameter names as evalcore's (``lowercase`` is ``ignore_case``)."""
    return {("ignore_case" if k == "lowercase" else k): v for k, v in options.items()}


CORPUS_BLEU = [{}, {"tokenize": "intl"}, {"tokenize": "char"}, {"tokenize": "none", "lowercase": True}]
CORPUS_CHRF = [{}, {"word_order": 2}, {"lowercase": True, "whitespace": True}]


def sacre_corpus(hyps: list[str], refs: list[list[str]]) -> dict[str, float]:
    """sacrebleu's corpus scores (``corpus_bleu`` for the default; the ``BLEU``/``CHRF`` objects,
    which ``corpus_*`` build, take every option), by evalcore metric id."""
    streams = [list(stream) for stream in zip(*refs)]
    want = {metric_id("overlap/bleu", ours(o)): BLEU(**o).corpus_score(hyps, streams).score for o in CORPUS_BLEU}
    want.update({metric_id("overlap/chrf", ours(o)): CHRF(**o).corpus_score(hyps, streams).score
                 for o in CORPUS_CHRF})
    assert want["overlap/bleu"] == sacrebleu.corpus_bleu(hyps, streams).score
    assert want["overlap/chrf"] == sacrebleu.corpus_chrf(hyps, streams).score
    return want


@settings(max_examples=30, deadline=None)
@given(data=corpora())
def test_evaluate_equals_sacrebleu_corpus_scores(data: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = data
    records = [{"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": h}}
               for i, (h, r) in enumerate(zip(hyps, refs))]
    metrics = sacre_corpus(hyps, refs)
    result = evalcore.evaluate(records, list(metrics), progress=False)
    assert {name: result.metrics[name].value for name in metrics} == metrics


def test_cli_corpus_scores_equal_sacrebleu(tmp_path: Path) -> None:
    rng = random.Random(3)  # seeded texts from the tokens above, two references each
    refs = [[" ".join(rng.choices(TOKENS, k=rng.randint(0, 25))) for _ in range(2)] for _ in range(60)]
    hyps = [" ".join(w if rng.random() < 0.7 else rng.choice(TOKENS) for w in r[0].split(" ")) for r in refs]
    data = write_records(tmp_path / "data.jsonl", [
        {"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": h}}
        for i, (h, r) in enumerate(zip(hyps, refs))])
    want = sacre_corpus(hyps, refs)
    proc = run_evalcore("evaluate", str(data), *(a for m in want for a in ("-m", m)), "--json", "--no-progress")
    report = json.loads(proc.stdout)["metrics"]
    assert {name: report[name]["value"] for name in want} == want
