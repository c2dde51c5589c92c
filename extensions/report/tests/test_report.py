"""The HTML report, parsed: sections, self-containment, plots, records, failures, comparison, hostile data."""

import base64
import hashlib
import json
import os
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pytest
from click.testing import CliRunner
from evalcore import write_report
from evalcore._cli.main import main  # the evalcore command, run in this process
from evalcore.testing import write_journal
from evalcore_report.page import json_script

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
    assert sum(tag == "svg" for tag, _ in page.elements) == 4  # a histogram per metric of each run


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


HOSTILE = ("</script><script>window.__pwned=1</script>", '"><img src=x onerror="window.__pwned=1">',
           "javascript:window.__pwned=1", "'\u2028\u2029</style><svg onload=window.__pwned=1>", "&lt;b&gt;",
           '"><svg/onload="window.__pwned=1">')  # no spaces: a status keeps it whole
MARKUP = ("<script>window", "<img", "<svg onload", "</style><svg", "&lt;b", "<svg/")  # never as written


def hostile(i):
    return HOSTILE[i % len(HOSTILE)]


def write_hostile_runs(folder):
    """A JSON report, its journal and a second journal whose every string from the data is hostile."""
    ids = {"sample": f"toy/{hostile(0)}", "attribute": hostile(1), "url": hostile(2), "journal_only": hostile(3)}
    base, other = [], []
    for n in range(12):
        record_id = f"{hostile(n)} #{n}"
        scores, system = {}, {}
        for k, metric_id in enumerate(ids.values()):
            scores[metric_id] = {"value": (n * 7 + k) % 10 / 10, "status": "ok"}
            system[metric_id] = {"value": (n * 3 + k) % 10 / 10, "status": "ok"}
        if n == 1:
            scores[ids["sample"]] = {"value": hostile(n), "status": hostile(5), "reason": hostile(n + 2)}
        if n == 2:
            scores[ids["attribute"]] = {"value": None, "status": "error",
                                        "error": {"type": hostile(3), "message": hostile(4)}}
        if n == 3:
            scores[ids["url"]] = {"value": None, "status": "skipped", "reason": hostile(0)}
        if n == 4:
            scores[ids["url"]] = {"value": None, "status": "error", "error": hostile(1)}
        if n == 5:
            scores[ids["attribute"]] = {"value": "0.25", "status": "ok"}
        extra = {"labels": {hostile(n): hostile(n + 1)}, "notes": hostile(n + 2), "details": {hostile(0): hostile(1)}}
        base.append({"id": record_id, "i": n, "scores": scores, **extra})
        other.append({"id": record_id, "i": n, "scores": system, **extra})
    other_name = (hostile(1) if os.name != "nt" else "other") + ".jsonl"  # the run's name is its file's
    for path, rows, version in (("base.jsonl", base, hostile(0)), (other_name, other, hostile(3))):
        header = {"evalcore_journal": 1, "fingerprint": {hostile(2): hostile(0)},
                  "metrics": {m: {"granularity": "sample", "direction": "higher", "metric_version": version,
                                  "params": {hostile(0): hostile(1)}} for m in ids.values()}}
        with open(folder / path, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(line) + "\n" for line in [header, *rows])
    summary = {}
    for k, metric_id in enumerate(list(ids.values())[:3]):
        text = {field: hostile(k + j) for j, field in enumerate(
            ("value", "n", "n_skipped", "n_errors", "stderr", "direction", "granularity", "metric_version",
             "distribution", "distribution_version"))}
        summary[metric_id] = {**text, "ci": [hostile(k), hostile(k + 1)] if k != 1 else hostile(2),
                              "params": {hostile(k): hostile(k + 1)}}
    summary[ids["url"]]["value"] = "0.5"  # a number written as a string
    report = folder / "base.json"
    report.write_text(json.dumps({
        "metrics": summary, "stopped": hostile(1), "samples_file": "base.jsonl",
        "rejected": [{"source": hostile(0), "field": hostile(1), "message": hostile(2)}, hostile(1)],
        "provenance": {hostile(0): hostile(1), "input": hostile(2), "options": {hostile(3): [hostile(1)]}}}))
    return report, folder / other_name


class Elements(HTMLParser):
    """Every element with its attributes, each <script>'s and <style>'s text, and all other text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.elements, self.raw, self.text, self.in_raw = [], [], [], False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, attrs))
        self.in_raw = tag in ("script", "style")
        if self.in_raw:
            self.raw.append([tag, dict(attrs), ""])

    def handle_endtag(self, tag):
        self.in_raw = False

    def handle_data(self, data):
        if self.in_raw:
            self.raw[-1][2] += data
        else:
            self.text.append(data)


def _csp(elements):
    tag, attrs = elements[2]  # html, head, then the policy
    attrs = dict(attrs)
    assert tag == "meta" and attrs.get("http-equiv", "").lower() == "content-security-policy", elements[:3]
    directives = {}
    for part in attrs["content"].split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def _sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


@pytest.mark.parametrize("compare_too", [False, True])
def test_hostile_data_is_only_ever_text(tmp_path, compare_too):
    report, other = write_hostile_runs(tmp_path)
    out = tmp_path / "hostile.html"
    args = ["report", str(report), "-o", str(out), "--resamples", "50", "--test", "bootstrap"]
    compared = ["--compare", str(other), "--allow-version-mismatch"]  # the runs' metric versions differ
    result = CliRunner().invoke(main, args + (compared if compare_too else []))
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    for markup in MARKUP:
        assert markup not in html, markup
    page = Elements(html)
    csp = _csp(page.elements)
    assert csp["default-src"] == ["'none'"] and csp["img-src"] == ["data:"]
    assert csp["base-uri"] == ["'none'"] and csp["form-action"] == ["'none'"]
    assert "connect-src" not in csp
    for directive in ("script-src", "style-src"):
        assert csp[directive] and all(s.startswith("'sha256-") for s in csp[directive]), csp[directive]
    for tag, attrs in page.elements:
        assert tag not in ("img", "iframe", "object", "embed", "link", "base", "form", "a", "frame"), tag
        for name, value in attrs:
            assert not name.startswith("on") and name not in ("href", "src", "action", "formaction", "srcdoc", "style")
            assert "javascript:" not in str(value) or name == "title" or name.startswith("data-"), (tag, name)
            if tag == "meta" and name == "http-equiv":
                assert value.lower() == "content-security-policy"
    assert [tag for tag, _, _ in page.raw].count("style") == 1
    for tag, attrs, body in page.raw:
        if tag == "style":
            assert _sha256(body) in csp["style-src"]
        elif attrs.get("type") == "application/json":
            assert not set(body) & set("<>&\u2028\u2029")
            json.loads(body)
        else:
            assert set(attrs) == set() and _sha256(body) in csp["script-src"] and "record-filter" in body
    assert sum(tag == "script" and not attrs for tag, attrs, _ in page.raw) == 1
    text = "".join(page.text)
    for string in HOSTILE:
        assert string in text  # shown as written, not dropped
    assert ("Comparison with base" in text) is compare_too


def test_json_data_block_cannot_end_the_script():
    data = {"ids": list(HOSTILE), "x": float("nan"), "</script>": [1, None, "\u2028"]}
    block = json_script("data", data)
    body = block[block.index(">") + 1: block.rindex("</script>")]
    assert block.startswith('<script type="application/json" id="data">')
    assert not set(body) & set("<>&\u2028\u2029")
    assert json.loads(body) == {"ids": list(HOSTILE), "x": None, "</script>": [1, None, "\u2028"]}


def test_report_script_uses_no_markup_sinks():
    script = resources.files("evalcore_report").joinpath("report.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                 "setTimeout(\"", "javascript:"):
        assert sink not in script, sink


def test_comparison_says_what_difference_the_records_could_detect(tmp_path, runs):
    """The minimum detectable effect of each per-record metric: statsmodels' paired t-test power
    solved for the effect at the records compared, 80 % power and the comparison's alpha, times the
    standard deviation of the per-record differences."""
    power = pytest.importorskip("statsmodels.stats.power")
    from evalcore import compare
    from evalcore.plugin import load_runs

    page = Page(open(write_report(runs[0], tmp_path / "r.html", compare_with=[runs[1]], n_resamples=400),
                     encoding="utf-8").read())
    base, better = load_runs(list(runs))
    shared = [k for k in base.rows if isinstance(base.rows[k]["scores"]["toy/b"].get("value"), float)
              and isinstance(better.rows[k]["scores"]["toy/b"].get("value"), float)]
    differences = np.array([better.rows[k]["scores"]["toy/b"]["value"] - base.rows[k]["scores"]["toy/b"]["value"]
                            for k in shared])
    alpha = compare(*runs).options["alpha"]
    effect = power.TTestPower().solve_power(nobs=len(shared), alpha=alpha, power=0.8)
    assert (f"toy/b (better): with {len(shared)} paired records a difference of "
            f"±{effect * differences.std(ddof=1):.4g} (d_z {effect:.3f}) is detected with 80% power") \
        in page.ids["comparison"]
