"""What evalcore-stats reads and writes, through the command line: a run store written by another
program, damaged, or holding a bad date or a non-numeric value is one line naming it; a report or
journal nested too deeply is one line, and such a file in a runs folder is not a run; ``gate
--markdown`` / ``--junit`` and ``runs --html`` never write over the run, its journal, the baseline,
the records it scored or the store."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main

METRIC = "overlap/exact_match"


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = result.stderr.strip().splitlines()
    return line


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run in its own folder, and a store that indexes it."""
    folder = tmp_path_factory.mktemp("store")
    (folder / "runs").mkdir()
    data = folder / "a.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "example": {"reference_answer": "yes"},
                                        "prediction": {"response": "yes" if i % 3 else "no"}}) + "\n"
                            for i in range(12)))
    for output in (folder / "runs" / "r.json", folder / "base.json"):
        assert cli("evaluate", str(data), "-m", METRIC, "-o", str(output), "--no-progress").exit_code == 0
    assert cli("runs", str(folder / "runs"), "--store", str(folder / "good.db")).exit_code == 0
    return folder


def _changed(run, tmp_path, sql: str) -> str:
    path = tmp_path / "changed.db"
    shutil.copy(run / "good.db", path)
    with sqlite3.connect(path) as db:
        db.execute(sql)
    return str(path)


def test_a_bad_date_in_the_store_names_the_run(run, tmp_path):
    store = _changed(run, tmp_path, "UPDATE runs SET started = 'yesterday'")
    line = one_line(cli("runs", "--store", store))
    assert line == (f"error: {store}: run {run / 'runs' / 'r.json'}: started 'yesterday' is not an ISO 8601 time "
                    "(the store was changed by another program)")


def test_a_non_numeric_value_in_the_store_names_the_run_and_metric(run, tmp_path):
    store = _changed(run, tmp_path, "UPDATE metrics SET value = 'high'")
    line = one_line(cli("runs", "--store", store, "--trend", METRIC))
    assert f"run {run / 'runs' / 'r.json'}: {METRIC} value 'high' is not a number" in line


def test_another_programs_database_is_refused_and_left_alone(tmp_path):
    store = tmp_path / "theirs.db"
    with sqlite3.connect(store) as db:
        db.execute("CREATE TABLE runs (id INTEGER, name TEXT)")
    before = store.read_bytes()
    line = one_line(cli("runs", str(tmp_path), "--store", str(store)))
    assert "a SQLite database of another program (tables runs), not a run store" in line
    assert store.read_bytes() == before  # no table of ours was added to it


@pytest.mark.parametrize(("content", "why"), [
    (b"hello\n", "file is not a database"),
    (None, "malformed"),
])
def test_a_damaged_store_or_other_file_is_one_line(run, tmp_path, content, why):
    store = tmp_path / "broken.db"
    if content is None:  # a real store whose pages were overwritten
        data = (run / "good.db").read_bytes()
        content = data[:100] + b"\x00garbage" * 500 + data[4200:]
    store.write_bytes(content)
    line = one_line(cli("runs", "--store", str(store)))
    assert line.startswith(f"error: {store}: not a run store") and why in line


@pytest.mark.parametrize(("option", "target", "what"), [
    ("--junit", "runs/r.json", "is the run"),
    ("--markdown", "runs/r.rows.jsonl", "is the journal"),
    ("--markdown", "a.jsonl", "is the records"),
    ("--junit", "base.json", "is the run"),
    ("--junit", "base.rows.jsonl", "is the journal"),
])
def test_gate_outputs_never_overwrite_what_it_reads(run, option, target, what):
    path = run / target
    before = path.read_bytes()
    line = one_line(cli("gate", str(run / "runs" / "r.json"), "--min", f"{METRIC}=0.1", "--baseline",
                        str(run / "base.json"), "--no-worse", METRIC, option, str(path)))
    assert f"{option} {path} {what}" in line and "it would be overwritten" in line
    assert path.read_bytes() == before


def test_gate_markdown_and_junit_are_not_one_file(run, tmp_path):
    out = tmp_path / "out.txt"
    line = one_line(cli("gate", str(run / "runs" / "r.json"), "--min", f"{METRIC}=0.1",
                        "--markdown", str(out), "--junit", str(out)))
    assert "--junit" in line and "is the file of --markdown" in line
    ok = cli("gate", str(run / "runs" / "r.json"), "--min", f"{METRIC}=0.1", "--junit", str(tmp_path / "j.xml"))
    assert ok.exit_code == 0 and "<testsuites" in (tmp_path / "j.xml").read_text()


def test_runs_html_never_overwrites_the_store(run, tmp_path):
    store = tmp_path / "s.db"
    shutil.copy(run / "good.db", store)
    before = store.read_bytes()
    line = one_line(cli("runs", "--store", str(store), "--trend", METRIC, "--html", str(store)))
    assert line == f"error: --html {store} is the run store; it would be overwritten"
    assert store.read_bytes() == before


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(("name", "text", "message"), [
    ("deep.json", '{"metrics": {}, "provenance": ' + DEEP + "}", "deep.json: line 1 is nested too deeply to read"),
    ("deep.rows.jsonl", '{"evalcore_journal": 2, "fingerprint": {}}\n{"id": "r1", "scores": ' + DEEP + "}\n",
     "deep.rows.jsonl:2: not a JSON line (nested too deeply to read)"),
])
def test_a_run_nested_too_deeply_is_one_line(run, tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    line = one_line(cli("compare", str(run / "base.json"), str(path)))
    assert line == f"error: {path.parent}/{message}"


def test_json_nested_too_deeply_in_a_runs_folder_is_not_a_run(run, tmp_path):
    shutil.copytree(run / "runs", tmp_path / "runs")
    (tmp_path / "runs" / "deep.json").write_text('{"metrics": ' + DEEP + "}")
    result = cli("runs", str(tmp_path / "runs"), "--json")
    assert result.exit_code == 0, result.output
    assert [r["name"] for r in json.loads(result.stdout)] == ["r"]
