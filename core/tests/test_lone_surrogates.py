"""JSON lines holding a lone surrogate escape ("\\ud800"): valid JSON that orjson refuses, read and
written back through Python's json."""

import json

import evalcore
import numpy as np
import orjson
from evalcore._contract.jsonl import dump_json, parse_json_line
from evalcore._engine.journal import decode_line, encode_row
from evalcore.testing import run_evalcore

LINES = [
    r'{"id": "a\udc00", "example": {"reference_answer": "x \ud800 y"}, "prediction": {"response": "x \ud800 y"}}',
    r'{"id": "b", "example": {"reference_answer": "p"}, "prediction": {"response": "q"}}',
]


def test_a_lone_surrogate_is_read_as_json_loads_reads_it_and_written_back_as_its_escape():
    value = parse_json_line(b'{"t": "x \\ud800 y", "n": 1}', "here:1")
    assert value == json.loads('{"t": "x \\ud800 y", "n": 1}') == {"t": "x \ud800 y", "n": 1}
    row = {"id": "a\udc00", "v": np.float64(0.5), "a": np.arange(2), "nan": float("nan")}
    line = encode_row(row)
    assert line.endswith(b"\n") and b"a\\udc00" in line and line.isascii()
    back = decode_line(line)
    assert back["id"] == "a\udc00" and back["v"] == 0.5 and back["a"] == [0, 1] and np.isnan(back["nan"])
    assert dump_json({"b": 1, "a": "\ud800"}, default=str, option=orjson.OPT_SORT_KEYS) == b'{"a":"\\ud800","b":1}'
    assert dump_json({"b": 1}, default=str) == orjson.dumps({"b": 1})  # orjson's bytes when it can


def test_cli_scores_resumes_compares_and_writes_every_output(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("\n".join(LINES) + "\n", encoding="ascii")
    report, table = tmp_path / "r.json", tmp_path / "r.csv"
    args = ("evaluate", str(data), "-m", "overlap/exact_match", "-o", str(report), "--csv", str(table))
    first = run_evalcore(*args)
    assert "2 records" in first.stdout and "rejected" not in first.stdout
    journal = tmp_path / json.loads(report.read_text())["samples_file"]  # named relative to the report
    assert '"id":"a\\udc00"' in journal.read_text(encoding="utf-8")
    assert table.read_text(encoding="utf-8").splitlines()[1] == "a\\udc00,1.0,ok"
    resumed = run_evalcore(*args, "--resume")
    assert "2 records" in resumed.stdout
    assert json.loads(report.read_text())["metrics"]["overlap/exact_match"]["value"] == 0.5
    compared = json.loads(run_evalcore("compare", str(report), str(report), "--test", "fisher", "--json").stdout)
    assert compared["records"]["baseline"] == 2
    run_evalcore("report", str(report), "-o", str(tmp_path / "r.html"))
    result = evalcore.evaluate(str(data), ["overlap/exact_match"], seed=0)
    assert [row["id"] for row in result.samples] == ["a\udc00", "b"]
