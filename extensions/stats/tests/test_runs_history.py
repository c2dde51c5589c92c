"""The run history: ``evalcore runs`` (listing, ``--trend``, ``--json``, ``--html``, ``--store``),
``report --compare`` by run name, and ``evalcore.runs`` / ``evalcore.trend``, over real runs of
``evalcore evaluate`` on hand-built records.

Expected values, worked out by hand with SQuAD's normalisation (lower case, punctuation and the
articles a/an/the removed) that ``overlap/exact_match`` and ``overlap/token_f1`` apply:

* ``base``:   "the cat sat" vs "the cat sat" -> EM 1, F1 1; "red dog" vs "red fox" -> EM 0,
  F1 = 2·(1/2)(1/2)/(1/2+1/2) = 1/2.  Means: EM 1/2, F1 3/4.
* ``better``: "cat" vs "the cat sat" (-> "cat sat") -> EM 0, precision 1, recall 1/2, F1 2/3;
  "red fox" vs "red fox" -> EM 1, F1 1.  Means: EM 1/2, F1 5/6.
* ``best``:   both answers equal their references -> EM 1, F1 1.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime

import evalcore
import pytest
from evalcore.testing import run_evalcore

RECORDS = {
    "base": [("the cat sat", "the cat sat"), ("red fox", "red dog")],
    "better": [("the cat sat", "cat"), ("red fox", "red fox")],
    "best": [("the cat sat", "The cat sat."), ("red fox", "red fox")],
}
TOKEN_F1 = {"base": 3 / 4, "better": 5 / 6, "best": 1.0}
EXACT = {"base": 1 / 2, "better": 1 / 2, "best": 1.0}
METRICS = ["-m", "overlap/exact_match", "-m", "overlap/token_f1"]


def evaluate(folder, name, records, report):
    """Run ``evalcore evaluate`` on ``records`` (reference, response pairs), writing ``report``."""
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "example": {"reference_answer": ref},
                                        "prediction": {"response": response}}) + "\n"
                            for i, (ref, response) in enumerate(records)), encoding="utf-8")
    report.parent.mkdir(parents=True, exist_ok=True)
    run_evalcore("evaluate", str(data), *METRICS, "-o", str(report))
    return report


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """Three runs, oldest first (one in a subfolder), beside a JSON file that is no report."""
    root = tmp_path_factory.mktemp("history")
    inputs = root / "inputs"
    inputs.mkdir()
    runs = root / "runs"
    evaluate(inputs, "base", RECORDS["base"], runs / "base.json")
    evaluate(inputs, "better", RECORDS["better"], runs / "nightly" / "better.json")
    evaluate(inputs, "best", RECORDS["best"], runs / "best.json")
    (runs / "settings.json").write_text('{"metrics": ["not", "a", "report"]}', encoding="utf-8")
    return runs


def runs_json(*args):
    return json.loads(run_evalcore("runs", *args, "--json").stdout)


def test_runs_lists_every_report_in_the_folder_oldest_first_with_its_values(history):
    listed = runs_json(str(history))
    assert [r["name"] for r in listed] == ["base", "better", "best"]  # no settings.json, no journals
    for run in listed:
        name = run["name"]
        report = json.loads(open(run["path"], encoding="utf-8").read())
        assert run["when"] == report["provenance"]["started"] and run["time_source"] == "started"
        assert run["input"] == str(history.parent / "inputs" / f"{name}.jsonl") and run["n_records"] == 2
        assert run["metrics"]["overlap/token_f1"]["value"] == pytest.approx(TOKEN_F1[name])
        assert run["metrics"]["overlap/exact_match"]["value"] == pytest.approx(EXACT[name])
        assert run["metrics"]["overlap/token_f1"]["ci"] == report["metrics"]["overlap/token_f1"]["ci"]
        assert run["metrics"]["overlap/token_f1"]["metric_version"] == report["metrics"]["overlap/token_f1"][
            "metric_version"]
    assert listed[1]["path"] == str(history / "nightly" / "better.json")

    table = run_evalcore("runs", str(history)).stdout.splitlines()
    assert table[0].split() == ["run", "when", "(UTC)", "input", "records", "metric", "value", "95%", "CI"]
    assert table[2].split()[:5] == ["base", *listed[0]["when"].rstrip("Z").split("T"), listed[0]["input"], "2"]
    low, high = listed[1]["metrics"]["overlap/token_f1"]["ci"]
    assert table[5].split() == ["overlap/token_f1", "0.8333", f"[{low:.4f},", f"{high:.4f}]"]


def test_trend_follows_one_metric_over_the_runs(history):
    points = runs_json(str(history), "--trend", "overlap/token_f1")
    assert [(p["run"], p["metric"]) for p in points] == [(n, "overlap/token_f1") for n in ("base", "better", "best")]
    assert [p["value"] for p in points] == pytest.approx([TOKEN_F1[n] for n in ("base", "better", "best")])
    listed = {r["name"]: r for r in runs_json(str(history))}
    assert [p["ci"] for p in points] == [listed[p["run"]]["metrics"]["overlap/token_f1"]["ci"] for p in points]
    assert [p["when"] for p in points] == [listed[p["run"]]["when"] for p in points]
    assert runs_json(str(history), "--trend", "token_f1") == points  # the name without its namespace

    table = run_evalcore("runs", str(history), "--trend", "overlap/exact_match").stdout.splitlines()
    assert [line.split()[0] for line in table[2:]] == ["base", "better", "best"]
    assert [line.split()[3] for line in table[2:]] == ["0.5000", "0.5000", "1.0000"]


def test_trend_html_is_one_self_contained_page_with_a_point_per_run(history, tmp_path):
    page = tmp_path / "trend.html"
    out = run_evalcore("runs", str(history), "--trend", "token_f1", "--html", str(page)).stdout
    assert f"wrote {page}" in out
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "http-equiv=\"Content-Security-Policy\"" in html
    assert "default-src 'none'" in html and "<script" not in html and "src=\"http" not in html
    assert html.count("<circle") == 3 and html.count("<svg") == 1
    for name in ("base", "better", "best"):
        assert f"<td>{name}</td>" in html
    assert "<td class=\"num\">0.8333</td>" in html


def test_values_from_the_data_are_escaped_in_the_trend_page(tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    evaluate(tmp_path, hostile, RECORDS["base"], tmp_path / "runs" / f"{hostile}.json")
    page = tmp_path / "trend.html"
    run_evalcore("runs", str(tmp_path / "runs"), "--trend", "token_f1", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_a_store_adds_each_run_once_and_lists_without_the_folder(history, tmp_path):
    store = tmp_path / "history.sqlite"
    first = runs_json(str(history), "--store", str(store))
    again = runs_json(str(history), "--store", str(store))
    assert first == again == runs_json(str(history))
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone() == (3,)
        assert db.execute("SELECT count(*) FROM metrics").fetchone() == (6,)

    # a copy of a run elsewhere is the same run (same fingerprint); a new run is added
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    shutil.copy(history / "base.json", copy / "base-copy.json")
    assert runs_json(str(copy), "--store", str(store)) == first
    evaluate(tmp_path, "later", RECORDS["best"], tmp_path / "later" / "later.json")
    listed = runs_json(str(tmp_path / "later"), "--store", str(store))
    assert [r["name"] for r in listed] == ["base", "better", "best", "later"]
    assert runs_json("--store", str(store)) == listed
    points = runs_json("--store", str(store), "--trend", "overlap/exact_match")
    assert [p["value"] for p in points] == pytest.approx([0.5, 0.5, 1.0, 1.0])


def test_report_compare_takes_runs_by_name_or_prefix(history, tmp_path):
    by_path, by_name = tmp_path / "by_path.html", tmp_path / "by_name.html"
    run_evalcore("report", str(history / "base.json"), "--compare", str(history / "nightly" / "better.json"),
                 "-o", str(by_path))
    run_evalcore("report", "base", "--compare", "bet", "--history", str(history), "-o", str(by_name))
    html = by_name.read_text(encoding="utf-8")
    assert "Comparison with base (baseline)" in html and "<td>better</td>" in html
    assert html == by_path.read_text(encoding="utf-8")

    store = tmp_path / "h.sqlite"
    run_evalcore("runs", str(history), "--store", str(store))
    from_store = tmp_path / "from_store.html"
    run_evalcore("report", "base", "--compare", "better", "--history", str(store), "-o", str(from_store))
    assert from_store.read_text(encoding="utf-8") == html


@pytest.mark.parametrize(("args", "message"), [
    (["report", "b", "--compare", "best"], "'b' is ambiguous: it matches base, better, best"),
    (["report", "base", "--compare", "worst"], "no run named 'worst' (runs: base, better, best)"),
    (["runs", "--trend", "overlap/bleu"], "overlap/bleu: no run of the history has this metric "
                                          "(metrics: overlap/exact_match, overlap/token_f1)"),
])
def test_unknown_and_ambiguous_names_are_one_line_errors(history, tmp_path, args, message):
    where = ["--history", str(history), "-o", str(tmp_path / "r.html")] if args[0] == "report" else [str(history)]
    proc = run_evalcore(*args, *where, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {history}: {message}"


def test_a_name_without_a_history_and_html_without_trend_are_refused(history, tmp_path):
    proc = run_evalcore("report", "base", "-o", str(tmp_path / "r.html"), check=False)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "error: base: no such file (to name a run of a history, give the history's folder or store)")
    proc = run_evalcore("runs", str(history), "--html", str(tmp_path / "t.html"), check=False)
    assert proc.returncode == 2 and "--html needs --trend METRIC" in proc.stderr
    proc = run_evalcore("runs", "--store", str(tmp_path / "none.sqlite"), check=False)
    assert proc.returncode == 2 and "no such store" in proc.stderr
    assert not (tmp_path / "none.sqlite").exists()
    (tmp_path / "junk.sqlite").write_text("not a database", encoding="utf-8")
    proc = run_evalcore("runs", str(history), "--store", str(tmp_path / "junk.sqlite"), check=False)
    assert proc.returncode == 2 and "not a run store" in proc.stderr


def test_colliding_stems_are_named_by_their_folders(history, tmp_path):
    for system, run in (("a", "base"), ("b", "best")):  # each report with the journal it names
        (tmp_path / system).mkdir()
        shutil.copy(history / f"{run}.json", tmp_path / system / "result.json")
        shutil.copy(history / f"{run}.rows.jsonl", tmp_path / system / f"{run}.rows.jsonl")
    names = [r.name for r in evalcore.runs(tmp_path)]
    assert names == ["a/result", "b/result"]
    out = tmp_path / "r.html"
    proc = run_evalcore("report", "result", "--history", str(tmp_path), "-o", str(out), check=False)
    assert "'result' is ambiguous: it matches a/result, b/result" in proc.stderr
    run_evalcore("report", "a/", "--compare", "b/", "--history", str(tmp_path), "-o", str(out))
    assert "Comparison with result (baseline)" in out.read_text(encoding="utf-8")


def test_a_report_without_a_start_time_is_dated_by_its_file(history, tmp_path):
    report = json.loads((history / "base.json").read_text(encoding="utf-8"))
    del report["provenance"]["started"]  # as a report written by hand or by an older tool
    report["metrics"]["overlap/token_f1"]["metric_version"] = "0"
    path = tmp_path / "old.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    shutil.copy(history / "best.json", tmp_path / "best.json")
    [old, best] = evalcore.runs(tmp_path)
    assert (old.name, old.time_source) == ("old", "mtime")
    assert old.when == datetime.fromtimestamp(1_700_000_000, tz=UTC)
    assert best.time_source == "started"

    # the trend page marks the change of metric version between the two runs
    page = tmp_path / "t.html"
    run_evalcore("runs", str(tmp_path), "--trend", "token_f1", "--html", str(page))
    assert "<title>metric version 0 → 1</title>" in page.read_text(encoding="utf-8")


def test_python_runs_and_trend_return_typed_records(history):
    records = evalcore.runs(history)
    assert all(isinstance(r, evalcore.RunRecord) for r in records)
    assert [r.name for r in records] == ["base", "better", "best"]
    metric = records[1].metrics["overlap/token_f1"]
    assert isinstance(metric, evalcore.RunMetric) and metric.value == pytest.approx(5 / 6) and metric.n == 2
    assert records[0].when <= records[1].when <= records[2].when and records[0].when.tzinfo is UTC
    points = evalcore.trend(history, "overlap/exact_match")
    assert all(isinstance(p, evalcore.TrendPoint) for p in points)
    assert [(p.run, p.value) for p in points] == [("base", 0.5), ("better", 0.5), ("best", 1.0)]
    assert evalcore.RunRecord.__module__ == evalcore.trend.__module__ == "evalcore_stats.history"  # its own


def test_dot_folders_and_json_that_is_no_report_are_left_out(history, tmp_path):
    report = json.loads((history / "best.json").read_text(encoding="utf-8"))
    report["provenance"]["input"] = "another.jsonl"  # another run: another fingerprint
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "hidden.json").write_text(json.dumps(report), encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps([report]), encoding="utf-8")  # a list, not a report
    (tmp_path / "broken.json").write_text("{\"metrics\": ", encoding="utf-8")
    assert evalcore.runs(tmp_path) == []
    assert run_evalcore("runs", str(tmp_path)).stdout == "no runs found\n"
    (tmp_path / "shown.json").write_text(json.dumps(report), encoding="utf-8")
    assert [(r.name, r.input) for r in evalcore.runs(tmp_path)] == [("shown", "another.jsonl")]
