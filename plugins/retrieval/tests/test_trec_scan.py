"""The compiled TREC scanner against Python: numbers parsed as int() / float() parse them, and whole
files read to the same queries, documents, grades and errors as pyarrow + numpy and the line reader."""

from __future__ import annotations

import struct
from decimal import Decimal, localcontext

import numpy as np
import pytest
from evalcore.plugin import InputError
from evalcore_retrieval import _compiled, read_trec
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

# the fixtures below hold no state between examples
STATELESS_FIXTURES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


def scanned_score(scanner, text: str) -> float | None:
    out = scanner.scan(f"q Q0 d 1 {text} tag\n".encode(), False)
    return None if out is None else np.frombuffer(out[4], np.float64)[0]


def python_score(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def bits(value: float | None) -> bytes | None:
    return None if value is None else struct.pack("<d", value)


def near_midpoint(value: float, digits: int) -> str:
    """The halfway point between ``value`` and the next double, rounded to ``digits`` digits."""
    with localcontext() as context:
        context.prec = 60
        middle = (Decimal(value) + Decimal(float(np.nextafter(value, np.inf)))) / 2
    return format(middle, f".{digits - 1}e")


finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(STATELESS_FIXTURES, max_examples=500)
@given(st.one_of(
    finite.map(repr),
    st.builds(near_midpoint, st.floats(1e-30, 1e30), st.integers(15, 19)),
    st.from_regex(r"\A[+-]?[0-9]{0,22}(\.[0-9]{0,22})?([eE][+-]?[0-9]{1,3})?\Z"),
))
@example("0.8444218515250481")
@example("-0")
@example("1.")
@example(".5")
@example("1e400")
@example("1e-400")
@example("12345678901234567890123")
@example("0.000000000000000000001234567890123456789")
def test_scores_are_exactly_pythons_floats(scanner, text):
    got = scanned_score(scanner, text)
    if got is not None:
        assert bits(got) == bits(python_score(text))
    else:  # refused: not a finite number, or too long a text for the scanner (the line reader takes it)
        assert python_score(text) is None or len(text) >= 64


@settings(STATELESS_FIXTURES, max_examples=200)
@given(finite.map(repr))
def test_every_float_repr_is_scanned(scanner, text):
    assert bits(scanned_score(scanner, text)) == bits(float(text))


@STATELESS_FIXTURES
@given(st.from_regex(r"\A[+-]?[0-9]{1,20}\Z"))
def test_grades_are_pythons_ints(scanner, text):
    out = scanner.scan(f"q 0 d {text}\n".encode(), True)
    if len(text.lstrip("+-")) <= 18:
        assert np.frombuffer(out[4], np.int64)[0] == int(text)
    else:
        assert out is None  # the line reader takes it


# ---------------------------------------------------------------- whole files

SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\t", "\x0b", "\x0c", " \r"])
QIDS = st.sampled_from(["q1", "q2", "10", "é"])
DOCNOS = st.sampled_from(["a", "b", "c#1", "d", "ü", "doc-0001", "x" * 13])
SCORES = st.one_of(finite.map(repr), st.integers(-2, 2).map(str), st.sampled_from(["1e3", "-0", "0.5", "5e-1", "+1"]))
GRADES = st.one_of(st.integers(-1, 3).map(str), st.sampled_from(["+2", "007"]))


@st.composite
def trec_text(draw, qrels: bool) -> str:
    """A valid file in any layout (comments, blank lines, BOM, any whitespace), or one with a single defect."""
    pairs = draw(st.lists(st.tuples(QIDS, DOCNOS), min_size=1, max_size=12, unique=True))
    defect = draw(st.sampled_from([None] * 6 + ["short", "long", "duplicate", "bad number"]))
    if defect == "duplicate":
        pairs.append(draw(st.sampled_from(pairs)))
    lines = []
    for index, (qid, docno) in enumerate(pairs):
        lines.extend(draw(st.lists(st.sampled_from(["# a comment", "#q1 0 a 1", "  # indented", "", "  ", "\t"]),
                                   max_size=1)))
        if qrels:
            fields = [qid, "0", docno, draw(GRADES)]
        else:
            fields = [qid, "Q0", docno, str(index + 1), draw(SCORES), "tag"]
        if index == 0 and defect == "short":
            fields = fields[:-1]
        elif index == 0 and defect == "long":
            fields.append("extra")
        elif index == 0 and defect == "bad number":
            fields[-1 if qrels else 4] = draw(st.sampled_from(["x", "nan", "1_0", "1.5", "inf"]))
        separator = draw(SEPARATORS)
        lines.append(draw(st.sampled_from(["", " "])) + separator.join(fields))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return draw(st.sampled_from(["", "\ufeff"])) + ending.join(lines) + draw(st.sampled_from(["", ending]))


def outcome(tmp_path, qrels: bytes, run: bytes):
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    try:
        data = read_trec(tmp_path / "qrels", tmp_path / "run")
    except InputError as exc:
        return "error", str(exc), exc.source, exc.field
    grades = [None if np.isnan(g) else g for g in data._grades.tolist()]  # None: not judged
    ranks = [data._positions(ties).tolist() for ties in ("trec", "input")]
    return "read", data.qids, data.present.tolist(), data.records(), grades, data.run_only, ranks


@settings(STATELESS_FIXTURES, max_examples=150)
@given(qrels=trec_text(True), run=trec_text(False))
@example(qrels="q1 0 a 1\n", run="q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\n")  # equal scores: ids descending
def test_files_read_the_same_with_every_reader(tmp_path_factory, monkeypatch, scanner, qrels, run):
    tmp_path = tmp_path_factory.mktemp("files")
    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "TWO_THREADS", 1)  # the queries matched and ranked in two parts on two threads
        split = outcome(tmp_path, qrels.encode(), run.encode())
    compiled = outcome(tmp_path, qrels.encode(), run.encode())
    assert split == compiled
    with monkeypatch.context() as patch:
        patch.setattr(_compiled, "scanner", None)
        assert outcome(tmp_path, qrels.encode(), run.encode()) == compiled


@pytest.mark.parametrize(("lines", "middle", "parts"), [
    (3, 2, [(0, 5)]),  # fewer lines than the threshold: one part
    (4, 2, [(0, 2), (2, 5)]),
    (4, 0, [(0, 1), (1, 5)]),  # the middle line in the first query: that query alone first
    (4, 5, [(0, 4), (4, 5)]),  # past the last query: the last query alone second
])
def test_two_parts_cover_every_query_once(monkeypatch, lines, middle, parts):
    monkeypatch.setattr(_compiled, "TWO_THREADS", 4)
    assert _compiled.in_two_parts(lambda first, stop: (first, stop), 5, lines, lambda: middle) == parts


def test_invalid_utf8_is_named_by_the_line_reader(tmp_path, trec_reader):
    (tmp_path / "qrels").write_bytes(b"q1 0 a 1\n# caf\xe9 in a comment is skipped\n")
    (tmp_path / "run").write_bytes(b"q1 Q0 b 1 0.4 t\nq1 Q0 a\xff 2 0.5 t\n")
    with pytest.raises(InputError, match="invalid UTF-8") as info:
        read_trec(tmp_path / "qrels", tmp_path / "run")
    assert info.value.source.endswith("run:2") and info.value.field == "docno"
