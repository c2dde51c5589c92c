"""A run whose records a plugin's reader made records the reader and its options (files as absolute
paths) in its journal and report, and the report reads the records again through that reader from
the journal alone; a changed file is named instead of shown."""

from __future__ import annotations

import json
import pathlib
import re
import shutil

from click.testing import CliRunner
from evalcore._cli.main import main

TREC = pathlib.Path(__file__).resolve().parents[1] / "examples" / "trec"


def test_the_journal_names_the_reader_and_the_report_reads_the_records_through_it(tmp_path, monkeypatch):
    for name in ("qrels.txt", "run.txt"):
        shutil.copy(TREC / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    done = runner.invoke(main, ["evaluate", "--qrels", "qrels.txt", "--run", "run.txt", "-m", "retrieval/ndcg@10",
                                "-o", "result.json", "--no-progress"])
    assert done.exit_code == 0, done.output
    header = json.loads((tmp_path / "result.rows.jsonl").read_text().splitlines()[0])
    assert header["reader"] == {"name": "trec", "options": {"qrels": str(tmp_path / "qrels.txt"),
                                                            "run": str(tmp_path / "run.txt")}}
    assert json.loads((tmp_path / "result.json").read_text())["provenance"]["reader"] == header["reader"]

    first_doc = (tmp_path / "run.txt").read_text().split()[2]  # the first ranked document of query 301
    monkeypatch.chdir(tmp_path.parent)  # the report is made elsewhere: the journal's absolute paths still hold
    page = tmp_path / "report.html"
    made = runner.invoke(main, ["report", str(tmp_path / "result.rows.jsonl"), "-o", str(page)])
    assert made.exit_code == 0, made.output
    html = page.read_text()
    assert "Retrieved documents" in html and first_doc in html, re.findall(r"class=\"muted\">([^<]*)", html)
    assert "no record of the run was found" not in html

    (tmp_path / "run.txt").write_text((tmp_path / "run.txt").read_text().replace(first_doc, "OTHER-DOC"))
    made = runner.invoke(main, ["report", str(tmp_path / "result.rows.jsonl"), "-o", str(page)])
    assert made.exit_code == 0, made.output
    html = page.read_text()
    assert "Retrieved documents" not in html
    assert f"the input {tmp_path / 'run.txt'} is not there any more or changed since the run" in html
