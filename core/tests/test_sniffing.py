"""A file given as JSONL records that holds something else is named for what it is, with the option
or conversion to use, in one line through ``evalcore evaluate``: TREC runs and qrels (spaces or tabs),
UTF-16 text and bytes that are not UTF-8; a UTF-8 byte-order mark is read as UTF-8."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main

RECORD = {"id": "r1", "example": {"reference_answer": "café"}, "prediction": {"response": "café"}}


def _evaluate(path):
    return CliRunner().invoke(main, ["evaluate", str(path), "-m", "overlap/exact_match", "--no-progress",
                                     "-o", str(path.with_suffix(".out.json"))])


def _line(result) -> str:
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize(("text", "kind"), [
    ("q1\tQ0\td1\t1\t0.5\trun\nq1\tQ0\td2\t2\t0.4\trun\n", "run"),
    ("q1 Q0 d1 1 12.5 bm25\n", "run"),
    ("q1\t0\td1\t1\nq1\t0\td2\t0\n", "qrels"),
    ("q1 0 d1 2\n", "qrels"),
])
def test_trec_files_given_as_records_point_to_qrels_and_run(tmp_path, text, kind):
    path = tmp_path / "data.jsonl"
    path.write_text(text)
    line = _line(_evaluate(path))
    assert f"looks like a TREC {kind} file" in line and "--qrels QRELS --run RUN" in line and "CSV" not in line


@pytest.mark.parametrize(("encoding", "name", "source"), [
    ("utf-16", "UTF-16LE", "UTF-16"),      # Python writes a byte-order mark, little-endian here
    ("utf-16-le", "UTF-16LE", "UTF-16LE"),  # no byte-order mark: told by the NUL bytes
])
def test_utf16_is_named_with_the_conversion(tmp_path, encoding, name, source):
    path = tmp_path / "data.jsonl"
    path.write_bytes((json.dumps(RECORD, ensure_ascii=False) + "\n").encode(encoding))
    line = _line(_evaluate(path))
    assert f"is encoded as {name}, not UTF-8" in line and f"iconv -f {source} -t UTF-8" in line and "CSV" not in line


def test_latin1_is_named_with_the_byte_and_the_conversion(tmp_path):
    path = tmp_path / "data.jsonl"
    text = json.dumps(RECORD, ensure_ascii=False) + "\n"
    path.write_bytes(text.encode("latin-1"))
    offset = text.encode("latin-1").index(b"\xe9")
    line = _line(_evaluate(path))
    assert f"is not UTF-8 (byte 0xe9 at offset {offset}; perhaps Latin-1" in line and "iconv -f LATIN1" in line


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16-be"])
def test_utf8_with_a_byte_order_mark_and_utf16be_lines_are_read(tmp_path, encoding):
    """Python's json reads each line of big-endian UTF-16 without a mark (its lines split cleanly)."""
    path = tmp_path / "data.jsonl"
    lines = [json.dumps({**RECORD, "id": f"r{i}"}, ensure_ascii=False) + "\n" for i in range(2)]
    path.write_bytes("".join(lines).encode(encoding))
    result = _evaluate(path)
    assert result.exit_code == 0, result.output
    assert json.loads(path.with_suffix(".out.json").read_text())["metrics"]["overlap/exact_match"]["value"] == 1.0
