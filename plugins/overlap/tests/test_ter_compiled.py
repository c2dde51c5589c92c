"""The compiled TER edits (``evalcore_overlap._ter``) against sacrebleu's ``lib_ter`` itself, and corpus
and sentence TER through ``evalcore evaluate`` against ``sacrebleu``'s TER with each of its switches."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

import evalcore
import pytest
from evalcore.testing import run_evalcore, write_records
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate
from test_sacre import TER_OPTIONS, sacre_ter

VOCABULARY = ("a", "b", "c", "d", "e", "f")


@st.composite
def word_pairs(draw: st.DrawFn, max_size: int = 40) -> tuple[list[str], list[str]]:
    """(hypothesis, reference) over a few words, so that repeats and shifts are common: unrelated
    lists, or the reference with a block moved elsewhere and some words replaced."""
    vocabulary = VOCABULARY[:draw(st.integers(1, len(VOCABULARY)))]

    def words() -> list[str]:  # the length drawn first: plain lists of Hypothesis stay short
        size = draw(st.integers(0, max_size))
        return draw(st.lists(st.sampled_from(vocabulary), min_size=size, max_size=size))

    ref = words()
    if draw(st.booleans()):
        return words(), ref
    cuts = sorted(draw(st.lists(st.integers(0, len(ref)), min_size=3, max_size=3)))
    hyp = ref[:cuts[0]] + ref[cuts[1]:cuts[2]] + ref[cuts[0]:cuts[1]] + ref[cuts[2]:]
    for position in draw(st.lists(st.integers(0, max(len(hyp) - 1, 0)), max_size=5)):
        if hyp:
            hyp[position] = draw(st.sampled_from(vocabulary))
    return hyp, ref


@settings(max_examples=300, deadline=None)
@given(pair=word_pairs())
def test_edits_equal_sacrebleu(compiled_ter: ModuleType, pair: tuple[list[str], list[str]]) -> None:
    hyp, ref = pair
    assert compiled_ter.translation_edit_rate(hyp, ref) == translation_edit_rate(hyp, ref)


@settings(max_examples=15, deadline=None)
@given(hyp=st.lists(st.sampled_from(VOCABULARY[:3]), max_size=3),
       ref=st.lists(st.sampled_from(VOCABULARY[:3]), min_size=50, max_size=130))
def test_very_unequal_lengths_equal_sacrebleu(compiled_ter: ModuleType, hyp: list[str], ref: list[str]) -> None:
    # a reference over 50 times the hypothesis widens lib_ter's beam (length ratio / 2 + 25)
    assert compiled_ter.translation_edit_rate(hyp, ref) == translation_edit_rate(hyp, ref)
    assert compiled_ter.translation_edit_rate(ref, hyp) == translation_edit_rate(ref, hyp)


@settings(max_examples=10, deadline=None)
@given(pair=word_pairs(max_size=110))
def test_long_sentences_equal_sacrebleu(compiled_ter: ModuleType, pair: tuple[list[str], list[str]]) -> None:
    # long pairs over few words reach lib_ter's limit of 1000 shift candidates and its distance bound
    hyp, ref = pair
    assert compiled_ter.translation_edit_rate(hyp, ref) == translation_edit_rate(hyp, ref)


@pytest.mark.parametrize(("hyp", "ref", "edits"), [
    ("a b c d", "c d a b", 1),        # one shift of the block "a b"
    ("", "a b", 2),                   # two insertions
    ("a b", "", 2),                   # empty reference: every word an edit, reference length 0
    ("", "", 0),
    ("a a a", "a a a", 0),
])
def test_hand_worked_edits(compiled_ter: ModuleType, hyp: str, ref: str, edits: int) -> None:
    assert compiled_ter.translation_edit_rate(hyp.split(), ref.split()) == (edits, len(ref.split()))


def test_words_compare_by_equality_not_identity(compiled_ter: ModuleType) -> None:
    ref = ["".join(("wo", "rd")), "x"]  # a string built at run time: equal to "word", not the same object
    assert compiled_ter.translation_edit_rate(("x", "word"), ref) == translation_edit_rate(["x", "word"], ref)


def test_bad_arguments(compiled_ter: ModuleType) -> None:
    with pytest.raises(TypeError, match="words_hyp must be a sequence"):
        compiled_ter.translation_edit_rate(3, ["a"])
    with pytest.raises(TypeError, match="unhashable"):
        compiled_ter.translation_edit_rate([["a"]], ["a"])
    with pytest.raises(TypeError, match="2 arguments"):
        compiled_ter.translation_edit_rate(["a"])


TEXTS = [
    ("The cat sat on the mat.", "the mat , the cat sat on"),
    ("Hello, World! It's 5 o'clock.", "hello world it is 5 o'clock"),
    ("A B C D", "c d a b"),
    ("東京は日本の首都です。", "日本の首都は東京です。"),
    ("Mr. Smith went to Washington &amp; stayed.", "Smith went to Washington & stayed, Mr."),
    ("", "something"),
    ("a reference", ""),
]


def corpus_texts(pairs: int = 25, seed: int = 5) -> tuple[list[str], list[str]]:
    """The hand-picked pairs above plus seeded pairs of 5 to 20 words whose predictions move blocks."""
    rng = random.Random(seed)
    words = ["the", "The", "cat", "dog", "sat", "on", "a", "mat", ",", ".", "!", "東京", "Paris", "it's"]
    refs, hyps = [ref for ref, _ in TEXTS], [hyp for _, hyp in TEXTS]
    for _ in range(pairs):
        ref = [rng.choice(words) for _ in range(rng.randint(5, 20))]
        cut = rng.randint(0, len(ref))
        hyp = [w if rng.random() < 0.8 else rng.choice(words) for w in ref[cut:] + ref[:cut]]
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps


def metric_id(name: str, params: dict) -> str:
    return f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})" if params else name


def test_corpus_and_sentence_ter_through_the_cli_equal_sacrebleu(tmp_path: Path) -> None:
    refs, hyps = corpus_texts()
    data = write_records(tmp_path / "data.jsonl", [
        {"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": h}}
        for i, (r, h) in enumerate(zip(refs, hyps))])
    rows = tmp_path / "rows.jsonl"
    metrics = [metric_id(name, params) for params in TER_OPTIONS for name in ("overlap/ter", "overlap/sentence_ter")]
    proc = run_evalcore("evaluate", str(data), *(a for m in metrics for a in ("-m", m)), "--json", "--no-progress",
                        "--samples", str(rows), "--overwrite")
    report = json.loads(proc.stdout)["metrics"]
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    scored = sorted((line for line in lines if "scores" in line), key=lambda line: line["i"])
    for params in TER_OPTIONS:
        ter = sacre_ter(params)
        corpus = report[metric_id("overlap/ter", params)]
        assert corpus["value"] == ter.corpus_score(hyps, [refs]).score, params
        assert corpus["ci"] is not None
        sentence = metric_id("overlap/sentence_ter", params)
        got = [row["scores"][sentence]["value"] for row in scored]
        assert got == [ter.sentence_score(h, [r]).score for h, r in zip(hyps, refs)], params


@pytest.mark.parametrize("params", TER_OPTIONS, ids=lambda params: metric_id("", params) or "default")
def test_evaluate_equals_sacrebleu_both_ways(ter_edits: str, params: dict) -> None:
    # in this process: the compiled edits, and sacrebleu's Python where the extension is not built
    refs, hyps = corpus_texts(pairs=8, seed=11)
    records = [{"id": str(i), "example": {"reference_answer": r}, "prediction": {"response": h}}
               for i, (r, h) in enumerate(zip(refs, hyps))]
    corpus, sentence = metric_id("overlap/ter", params), metric_id("overlap/sentence_ter", params)
    result = evalcore.evaluate(records, [corpus, sentence], progress=False)
    ter = sacre_ter(params)
    assert result.metrics[corpus].value == ter.corpus_score(hyps, [refs]).score
    got = [row["scores"][sentence]["value"] for row in sorted(result.samples, key=lambda row: row["i"])]
    assert got == [ter.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
