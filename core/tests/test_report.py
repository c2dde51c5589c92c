"""The HTML report, parsed: sections, self-containment, plots, records, failures, comparison."""

import json
from html.parser import HTMLParser

import numpy as np
import pytest
from click.testing import CliRunner
from evalcore import write_report
from evalcore._cli.main import main
from evalcore.testing import write_journal

HEADER = {m: {"granularity": "sample", "direction": "higher", "metric_version": "2", "distribution": "evalcore-toy",
              "distribution_version": "1.0"} for m in ("toy/a", "toy/b")}


class Page(HTMLParser):
    """Elements with their attributes, text per element id, and table rows per table id."""

    def __init__(self, text):
        super().__init__()
        self.elements, self.stack, self.tables, self.ids = [], [], {}, {}
        self.table, self.row, self.scripts = None, None, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag not in ("meta", "input", "rect", "line", "br"):
            self.stack.append((tag, attrs.get("id")))
        if tag == "table":
            self.table = attrs.get("id") or f"table{len(self.tables)}"
            self.tables[self.table] = []
        if tag == "tr" and self.table:
            self.row = []
            self.tables[self.table].append(self.row)
        if tag in ("td", "th") and self.row is not None:
            self.row.append("")

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, _ = self.stack.pop()
            if open_tag == tag:
                break
        if tag == "table":
            self.table = None

    def handle_data(self, data):
        for _, element_id in self.stack:
            if element_id:
                self.ids[element_id] = self.ids.get(element_id, "") + data
        if self.stack and self.stack[-1][0] == "script":
            self.scripts.append(data)
        if self.row is not None and self.row and self.stack and self.stack[-1][0] in ("td", "th"):
            self.row[-1] += data


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    paths = []
    for name, shift in (("base", 0.0), ("better", 0.3)):
        rows = {}
        for i in range(25):
            rows[f"rec-{i}"] = {"toy/a": float(min(1.0, rng.random() * 0.6 + shift)), "toy/b": float(rng.random())}
        rows["rec-3"]["toy/b"] = {"value": None, "status": "skipped", "reason": "no reference <answer>"}
        for i in (5, 6, 7):
            rows[f"rec-{i}"]["toy/b"] = {"value": None, "status": "error",
                                         "error": {"type": "ValueError", "message": "bad response"}}
        paths.append(str(write_journal(tmp_path / f"{name}.jsonl", rows, metrics=HEADER)))
    report = tmp_path / "base.json"
    report.write_text(json.dumps({
        "metrics": {m: {"value": 0.3, "n": 25, "n_skipped": 0, "n_errors": 0, "stderr": 0.01, "ci": [0.25, 0.35],
                        **HEADER[m]} for m in HEADER},
        "rejected": [{"source": "data.jsonl:9", "field": "id", "message": "duplicate id"}], "stopped": None,
        "provenance": {"evalcore_version": "0.1.0", "input": "data.jsonl", "options": {"seed": 0}},
        "samples_file": "base.jsonl"}))
    return str(report), paths[1]


def test_report_sections_and_self_containment(tmp_path, runs):
    out = write_report(runs[0], tmp_path / "r.html", compare_with=[runs[1]], n_resamples=400)
    page = Page(open(out, encoding="utf-8").read())
    for section in ("aggregates", "distributions", "comparison", "failures", "records-section", "provenance"):
        assert section in page.ids, section
    for tag, attrs in page.elements:  # nothing is fetched when the page is viewed
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
        assert "src" not in attrs
        if tag != "svg":
            assert not str(attrs.get("href", "")).startswith(("http:", "https:", "//")), attrs
    csp = next(a["content"] for t, a in page.elements if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in csp
    assert len(page.scripts) == 1 and "record-filter" in page.scripts[0]
    assert sum(tag == "svg" for tag, _ in page.elements) == 2


def test_aggregates_records_failures_and_provenance(tmp_path, runs):
    page = Page(open(write_report(runs[0], tmp_path / "r.html"), encoding="utf-8").read())
    aggregates = page.tables["table0"]
    assert aggregates[1][:3] == ["toy/a", "0.3000", "[0.2500, 0.3500]"]
    records = page.tables["records"]
    assert records[0] == ["id", "toy/a", "toy/b"] and len(records) == 26
    row3 = next(r for r in records if r[0] == "rec-3")
    assert row3[2] == "skipped"
    failures = page.ids["failures"]
    assert "ValueError: bad response" in failures and "rec-5, rec-6, rec-7" in failures
    assert "no reference <answer>" in failures  # escaped in the source, text once parsed
    assert "duplicate id" in page.ids["provenance"] and '"input": "data.jsonl"' in page.ids["provenance"]
    assert "comparison" not in page.ids
    statuses = [attrs.get("data-status") for tag, attrs in page.elements if tag == "tr" and "data-status" in attrs]
    assert statuses.count("error ok") == 3 and statuses.count("ok skipped") == 1


def test_comparison_view_marks_the_significant_win(tmp_path, runs):
    page = Page(open(write_report(runs[0], tmp_path / "r.html", compare_with=[runs[1]], n_resamples=400),
                     encoding="utf-8").read())
    table = next(rows for rows in page.tables.values() if rows and "difference" in rows[0])
    by_metric = {row[0]: row for row in table[1:]}
    assert by_metric["toy/a"][-1] == "▲ better"
    assert by_metric["toy/a"][7].endswith(" *")  # the paired bootstrap decides
    assert by_metric["toy/b"][-1] == "no significant difference"
    assert "better: better on 1, worse on 0" in page.ids["comparison"]


def test_bare_journal_gets_computed_aggregates(tmp_path, runs):
    page = Page(open(write_report(runs[1], tmp_path / "r.html"), encoding="utf-8").read())
    row = page.tables["table0"][2]
    assert row[0] == "toy/b" and row[4:7] == ["21", "1", "3"]


def test_cli_report(tmp_path, runs):
    out = tmp_path / "cli.html"
    result = CliRunner().invoke(main, ["report", runs[0], "--compare", runs[1], "-o", str(out), "--resamples", "200"])
    assert result.exit_code == 0, result.output
    assert "Comparison with base" in out.read_text(encoding="utf-8")
