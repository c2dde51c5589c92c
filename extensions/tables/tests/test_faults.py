"""Tables that are misread without a word or raise a traceback elsewhere: each is one line of error here
(through ``evalcore evaluate FILE`` and through ``evalcore.evaluate``), or is read whole."""

from __future__ import annotations

import json

import evalcore
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("evalcore_overlap")

METRIC = "overlap/exact_match"


def cli_error(*args: str) -> str:
    """The one line ``evalcore evaluate`` prints for a bad input (exit status not 0, no traceback)."""
    result = CliRunner().invoke(main, ["evaluate", *args, "-m", METRIC, "--no-progress"])
    assert result.exit_code not in (0, None)
    assert "Traceback" not in result.output and not isinstance(result.exception, (KeyError, UnicodeError))
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def test_a_csv_with_two_columns_of_one_name(tmp_path):
    data = tmp_path / "data.csv"  # the second "response" used to win silently
    data.write_text("id,reference_answer,response,response\nr1,x,x,n\n")
    expected = f"{data}:1: the header names a column twice: 'response' in columns 3 and 4; rename one of them"
    assert cli_error(str(data)) == f"error: {expected}"
    with pytest.raises(evalcore.InputError) as caught:
        evalcore.evaluate(data, [METRIC])
    assert str(caught.value) == expected


def test_a_frame_with_two_columns_of_one_name():
    frame = pd.DataFrame([["r1", "x", "x", "n"]], columns=["id", "reference_answer", "response", "response"])
    with pytest.raises(evalcore.InputError, match=r"^<DataFrame>: columns named twice: 'response'; rename one"):
        evalcore.evaluate(frame, [METRIC])


def test_ids_that_are_the_same_once_normalised_are_named():
    frame = pd.DataFrame({"id": [1, "1", 1.0], "reference_answer": ["x", "y", "z"], "response": ["x", "y", "z"]})
    with pytest.raises(evalcore.InputError) as caught:  # all three are the record id "1": two rows used to drop
        evalcore.evaluate(frame, [METRIC])
    assert str(caught.value) == ("<DataFrame>: id: rows 0 and 1 have the same id '1' (given as 1 and '1'); "
                                 "ids must be unique")


def test_whole_number_float_ids_are_ids_and_their_collisions_are_named(tmp_path):
    # a numeric id column with a gap is float in pandas: 1.0 and 2.0 are the ids "1" and "2"
    frame = pd.DataFrame({"id": [1.0, 2.0], "reference_answer": ["x", "y"], "response": ["x", "n"]})
    result = evalcore.evaluate(frame, [METRIC])
    assert [row["id"] for row in result.samples] == ["1", "2"] and result.metrics[METRIC].value == 0.5
    pq.write_table(pa.table({"id": [1.0, 2.0, 1.0], "reference_answer": ["x", "y", "z"],
                             "response": ["x", "y", "z"]}), tmp_path / "data.parquet")
    assert cli_error(str(tmp_path / "data.parquet")) == (
        f"error: {tmp_path / 'data.parquet'}: id: rows 0 and 2 have the same id '1' (given as 1.0 and 1.0); "
        "ids must be unique")


def test_a_latin_1_csv_says_what_to_do(tmp_path):
    data = tmp_path / "data.csv"
    data.write_bytes("id,reference_answer,response\nr1,caf\u00e9,caf\u00e9\n".encode("latin-1"))
    expected = (f"{data}: is not UTF-8 text (byte 0xe9 on line 2); save it as UTF-8 (for Latin-1: iconv -f latin1 "
                "-t utf-8 FILE > NEW.csv), or in Python read it with pandas.read_csv(FILE, encoding=...) and pass "
                "the DataFrame")
    assert cli_error(str(data)) == f"error: {expected}"
    with pytest.raises(evalcore.InputError) as caught:
        evalcore.evaluate(data, [METRIC])
    assert str(caught.value) == expected
    # the way the message gives: read with pandas, pass the frame
    frame = pd.read_csv(data, encoding="latin-1")
    assert evalcore.evaluate(frame, [METRIC]).metrics[METRIC].value == 1.0


def test_a_cell_over_the_csv_modules_128_kib_is_read(tmp_path):
    long = "a" * (200 * 1024)
    data = tmp_path / "data.csv"
    data.write_text(f"id,reference_answer,response\nr1,{long},{long}\nr2,x,y\n")
    result = CliRunner().invoke(main, ["evaluate", str(data), "-m", METRIC, "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metrics"][METRIC]["value"] == 0.5
    assert evalcore.evaluate(data, [METRIC]).metrics[METRIC].value == 0.5


def test_a_cell_over_the_readers_limit_is_one_line(tmp_path, monkeypatch):
    import csv

    from evalcore_tables import csv_reader

    monkeypatch.setattr(csv_reader, "CELL_LIMIT", 1000)
    before = csv.field_size_limit()
    data = tmp_path / "data.csv"
    data.write_text(f"id,reference_answer,response\nr1,x,x\nr2,{'a' * 1001},x\n")
    expected = f"{data}:3: a cell is longer than 1,000 characters, the most a cell may hold"
    assert cli_error(str(data)) == f"error: {expected}"
    with pytest.raises(evalcore.InputError) as caught:
        evalcore.evaluate(data, [METRIC])
    assert str(caught.value) == expected
    assert csv.field_size_limit() == before  # the csv module's global limit is given back


def test_multiindex_columns_are_one_line():
    frame = pd.DataFrame([["x", "x"]], columns=pd.MultiIndex.from_tuples([("example", "reference_answer"),
                                                                          ("prediction", "response")]))
    with pytest.raises(evalcore.EvalcoreError) as caught:
        evalcore.evaluate(frame, [METRIC])
    assert str(caught.value) == ("a DataFrame with MultiIndex columns (2 levels) given as data; give one level of "
                                 "names, e.g. frame.columns = ['.'.join(c) for c in frame.columns]")
    frame.columns = [".".join(c) for c in frame.columns]  # as the message says
    assert evalcore.evaluate(frame, [METRIC]).metrics[METRIC].value == 1.0


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table])
def test_a_column_named_in_columns_that_the_table_lacks(make):
    frame = make({"qid": ["a"], "gold": ["x"], "answer": ["x"]})
    with pytest.raises(evalcore.InputError) as caught:
        evalcore.evaluate(frame, [METRIC], columns={"id": "qid", "example.reference_answer": "gold",
                                                    "prediction.response": "output"})
    assert str(caught.value) == (f"<{type(frame).__name__}>: columns['prediction.response'] names the column "
                                 "'output', which the table lacks (columns: 'qid', 'gold', 'answer')")
