"""The (query, document) matching of qrels and run lines: the hashed way and the exact way agree."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from evalcore.plugin import InputError
from evalcore_retrieval import _pairs, read_trec
from evalcore_retrieval._pairs import Side, match
from evalcore_retrieval._strings import Strings
from evalcore_retrieval._trec_lines import Layout
from hypothesis import given, settings
from hypothesis import strategies as st

DOCS = st.text(alphabet="abcé", min_size=1, max_size=3)


def side(lines: list[tuple[int, str]]) -> Side:
    return Side(np.array([q for q, _ in lines], dtype=np.int64),
                Strings.from_arrow(pa.array([d for _, d in lines], pa.string())))


def duplicate(layout: Layout, row: int) -> InputError:
    return InputError(f"{layout.kind} row {row} repeats a pair")


def pairs_of(found: tuple[np.ndarray, np.ndarray]) -> list[tuple[int, int]]:
    return sorted(zip(found[0].tolist(), found[1].tolist()))


def both_ways(qrels: Side, run: Side, n_queries: int) -> tuple[object, object]:
    """What each way answers: the matched (run line, qrels line) pairs, or the duplicate error."""
    answers = []
    for hashed in (True, False):
        hashes = (_pairs.doc_hashes(qrels.docno), _pairs.doc_hashes(run.docno))
        try:
            if hashed:
                found = _pairs._match_hashed(qrels, run, hashes, n_queries, duplicate)
                assert found is not None, "no collision expected on a handful of lines"
            else:
                found = _pairs._match_exact(qrels, run, duplicate)
            answers.append(pairs_of(found))
        except InputError as exc:
            answers.append(str(exc))
    return answers[0], answers[1]


LINES = st.lists(st.tuples(st.integers(0, 3), DOCS), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(LINES, LINES, st.booleans())
def test_hashed_and_exact_ways_agree(judged, ranked, grouped):
    if grouped:  # files are usually grouped by query; both layouts are read
        judged, ranked = sorted(judged, key=lambda x: x[0]), sorted(ranked, key=lambda x: x[0])
    hashed, exact = both_ways(side(judged), side(ranked), 4)
    assert hashed == exact
    if isinstance(exact, list):  # the matches are the lines with equal query and document
        expected = sorted((r, j) for r, pair in enumerate(ranked) for j, other in enumerate(judged) if pair == other)
        assert exact == expected


def test_a_duplicate_names_the_later_line_in_both_ways():
    qrels = side([(0, "a"), (1, "b")])
    run = side([(0, "x"), (1, "b"), (0, "y"), (0, "x"), (1, "b")])
    assert both_ways(qrels, run, 2) == ("run row 3 repeats a pair",) * 2


def test_a_hash_collision_falls_back_to_the_exact_way(monkeypatch):
    # every document hashes alike: the strings tell them apart
    monkeypatch.setattr(_pairs, "doc_hashes", lambda docno: np.zeros(len(docno), np.uint64))
    qrels = side([(0, "a"), (0, "b"), (1, "c")])
    run = side([(0, "b"), (0, "z"), (1, "c"), (1, "a")])
    assert pairs_of(match(qrels, run, 2, duplicate)) == [(0, 1), (2, 2)]


def test_equal_strings_hash_alike_and_bytes_past_the_end_do_not_count():
    strings = ["doc1", "", "abcdefgh", "abcdefghi", "abcdefgh\x00", "é" * 7, "a" * 40, "a" * 41]
    whole = Strings.from_arrow(pa.chunked_array([pa.array(strings)]))
    sliced = Strings.from_arrow(pa.chunked_array([pa.array(["x" * 20] + strings).slice(1), pa.array(strings)]))
    offset = Strings.from_arrow(pa.array(["x" * 20] + strings).slice(1))  # its offsets do not start at 0
    large = Strings.from_arrow(pa.chunked_array([pa.array(strings, pa.large_string())]))
    hashes = _pairs.doc_hashes(whole)
    assert len(set(hashes.tolist())) == len(strings)
    assert _pairs.doc_hashes(sliced).tolist() == hashes.tolist() * 2
    assert _pairs.doc_hashes(offset).tolist() == hashes.tolist()
    assert _pairs.doc_hashes(large).tolist() == hashes.tolist()
    assert offset.to_pylist() == offset.arrow().to_pylist() == strings


@pytest.mark.parametrize("ties", ["trec", "input"])
def test_files_read_both_ways_give_the_same_rankings(monkeypatch, ties, trec_reference):
    def rankings():
        return read_trec(trec_reference / "qrels.test", trec_reference / "results.test").rankings(ties)

    hashed = rankings()
    monkeypatch.setattr(_pairs, "_match_hashed", lambda *args: None)  # as after a collision
    exact = rankings()
    for field in ("num_ret", "present", "hit_query", "hit_position", "hit_grade", "judged_offsets", "judged",
                  "miss_query", "miss_position", "miss_grade"):
        assert np.array_equal(getattr(hashed, field), getattr(exact, field)), field
    assert len(hashed.hit_query) > 100  # the collection has many judged retrieved documents
