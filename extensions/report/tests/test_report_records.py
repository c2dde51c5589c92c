"""The report's record view, slices by label, the records a large run embeds, and the side-by-side view."""

import json
import pathlib
import shutil
from html.parser import HTMLParser

import evalcore
import numpy as np
import pytest
from evalcore import write_report
from evalcore.plugin import bootstrap_intervals
from evalcore.testing import run_evalcore, write_journal, write_records

HOSTILE = ("</script><script>window.__pwned=1</script>", '"><img src=x onerror=alert(1)>', "<b>bold</b> & co")


class Page(HTMLParser):
    """Text per element id (descendants included) and, per table id, the rows' cell texts."""

    VOID = {"meta", "input", "rect", "line", "br", "img"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.tables, self.table, self.raw = [], {}, {}, None, []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag not in self.VOID:
            self.stack.append((tag, attrs.get("id")))
        if tag == "table":
            self.table = attrs.get("id")
            self.tables.setdefault(self.table, [])
        elif tag == "tr" and self.table:
            self.tables[self.table].append([])
        elif tag in ("td", "th") and self.table and self.tables[self.table]:
            self.tables[self.table][-1].append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass
        if tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] in ("script", "style"):
            self.raw.append(data)
            return
        for _, element_id in self.stack:
            if element_id:
                self.ids[element_id] = self.ids.get(element_id, "") + data
        if self.table and self.tables[self.table] and self.tables[self.table][-1]:
            self.tables[self.table][-1][-1] += data


def read(path):
    return Page(open(path, encoding="utf-8").read())


def views(page):
    """Record id -> the text of its record view (its heading is the id)."""
    return {page.tables["records"][n + 1][0]: page.ids[f"record-{n}"] for n in range(len(page.tables["records"]) - 1)}


@pytest.fixture
def rag_run(tmp_path, root):
    data = shutil.copyfile(root / "examples" / "rag.jsonl", tmp_path / "rag.jsonl")
    run_evalcore("evaluate", str(data), "-m", "overlap/token_f1", "-m", "retrieval/ndcg@3", "-o",
                 str(tmp_path / "run.json"))
    return tmp_path / "run.json", data


@pytest.fixture
def root():
    return pathlib.Path(__file__).resolve().parents[3]


def test_each_record_shows_its_input_reference_prediction_documents_and_scores(tmp_path, rag_run):
    report, data = rag_run
    run_evalcore("report", str(report), "-o", str(tmp_path / "r.html"))
    page = read(tmp_path / "r.html")
    records = {r["id"]: r for r in map(json.loads, open(data, encoding="utf-8"))}
    rows = {r["id"]: r for r in map(json.loads, open(tmp_path / "run.rows.jsonl", encoding="utf-8")) if "id" in r}
    shown = views(page)
    assert sorted(shown) == sorted(records)
    for record_id, record in records.items():
        text = shown[record_id]
        example, prediction = record["example"], record["prediction"]
        references = example["reference_answer"]
        for expected in (example["query"], *(references if isinstance(references, list) else [references]),
                         prediction["response"],
                         *(doc["doc_id"] for doc in prediction["retrieved"]),
                         *(doc["doc_id"] for doc in example.get("relevant_docs", [])),
                         *(f"{k} = {v}" for k, v in example.get("labels", {}).items())):
            assert expected in text, (record_id, expected)
        for metric_id, score in rows[record_id]["scores"].items():
            assert metric_id in text
            if score["status"] == "ok":
                assert f"{score['value']:.4f}" in text
            else:  # the example data has one record without relevant documents: ndcg is skipped, with why
                assert score["status"] == "skipped" and score["reason"] in text
    assert any(s["status"] == "skipped" for row in rows.values() for s in row["scores"].values())


def test_slices_by_label_are_the_means_of_the_rows(tmp_path, rag_run):
    report, data = rag_run
    write_report(str(report), tmp_path / "r.html")
    table = read(tmp_path / "r.html").tables["slice-table"]
    labels = {r["id"]: r["example"].get("labels", {}) for r in map(json.loads, open(data, encoding="utf-8"))}
    rows = [r for r in map(json.loads, open(tmp_path / "run.rows.jsonl", encoding="utf-8")) if "id" in r]
    header = table[0]
    assert header[:3] == ["label", "value", "records"]
    expected = {}
    for row in rows:  # by hand: group the journal's ok values by each label the input gives the record
        for field, value in labels[row["id"]].items():
            for metric_id, score in row["scores"].items():
                if score["status"] == "ok":
                    expected.setdefault((field, value, metric_id), []).append(score["value"])
    assert {(r[0], r[1]) for r in table[1:]} == {(f, v) for f, v, _ in expected}
    for line in table[1:]:
        for column, metric_id in enumerate(header[3:], start=3):
            values = np.array(expected.get((line[0], line[1], metric_id), []))
            if not values.size:
                assert line[column].strip() == "–"
                continue
            assert line[column].startswith(f"{values.mean():.4f}")
            if values.size > 1:
                low, high = bootstrap_intervals([values], seed=0)[0]
                assert f"[{low:.3f}, {high:.3f}]" in line[column]
    scenario = [r for r in table[1:] if r[0] == "scenario"]
    assert [int(r[2]) for r in scenario] == sorted((int(r[2]) for r in scenario), reverse=True)


def test_a_changed_input_is_not_shown_and_input_names_the_original(tmp_path, rag_run):
    report, data = rag_run
    original = shutil.copyfile(data, tmp_path / "original.jsonl")
    with open(data, "a", encoding="utf-8") as handle:
        handle.write("\n")
    run_evalcore("report", str(report), "-o", str(tmp_path / "changed.html"))
    page = read(tmp_path / "changed.html")
    assert "changed since the run" in page.ids["records-section"]
    assert "What is the capital of France?" not in page.ids["records-section"]
    run_evalcore("report", str(report), "--input", str(original), "-o", str(tmp_path / "given.html"))
    page = read(tmp_path / "given.html")
    assert "What is the capital of France?" in views(page)["q1"]
    assert "changed since the run" not in page.ids["records-section"]
    proc = run_evalcore("report", str(report), "-o", str(data), check=False)  # never written over the input
    assert proc.returncode != 0 and "input" in proc.stderr


def test_python_result_with_its_records(tmp_path):
    records = [{"id": f"r{n}", "example": {"reference_answer": "Paris", "labels": {"variant_of": "r0"}},
                "prediction": {"response": "Paris" if n % 2 else f"Lyon {n}"}} for n in range(4)]
    result = evalcore.evaluate(records, ["overlap/exact_match"])
    write_report(result, tmp_path / "bare.html")
    assert "names no input file" in read(tmp_path / "bare.html").ids["records-section"]
    write_report(result, tmp_path / "r.html", inputs=records)
    page = read(tmp_path / "r.html")
    assert "Lyon 2" in views(page)["r2"]
    assert [line[:3] for line in page.tables["slice-table"][1:]] == [["variant_of", "r0", "4"]]


def test_a_large_run_embeds_every_error_and_the_worst_of_each_metric(tmp_path):
    rng = np.random.default_rng(1)
    header = {"toy/high": {"granularity": "sample", "direction": "higher"},
              "toy/low": {"granularity": "sample", "direction": "lower"}}
    rows = {f"r{i}": {"toy/high": float(rng.random()), "toy/low": float(rng.random())} for i in range(20_000)}
    errors = [f"r{i}" for i in rng.choice(20_000, 30, replace=False)]
    for record_id in errors:
        rows[record_id]["toy/high"] = {"value": None, "status": "error", "error": {"type": "E", "message": "m"}}
    journal = write_journal(tmp_path / "big.jsonl", rows, metrics=header)
    run_evalcore("report", str(journal), "--records", "100", "-o", str(tmp_path / "r.html"))
    html = tmp_path / "r.html"
    page = read(html)
    shown = [line[0] for line in page.tables["records"][1:]]
    assert len(shown) == 100 and set(errors) <= set(shown)
    # 30 errors (under half of 100), then 70 in turn: the 35 lowest toy/high and the 35 highest toy/low
    high = sorted((v["toy/high"], k) for k, v in rows.items() if isinstance(v["toy/high"], float))
    low = sorted(((v["toy/low"], k) for k, v in rows.items()), reverse=True)
    assert {k for _, k in high[:30]} <= set(shown) and {k for _, k in low[:30]} <= set(shown)
    assert "100 of 20000 records are in this page" in page.ids["records-section"]
    assert html.stat().st_size < 400_000
    assert [int(k[1:]) for k in shown] == sorted(int(k[1:]) for k in shown)  # in record order


def test_side_by_side_puts_the_largest_regression_first(tmp_path):
    header = {"toy/acc": {"granularity": "sample", "direction": "higher"},
              "toy/latency": {"granularity": "sample", "direction": "lower"}}
    base = {k: {"toy/acc": 0.5, "toy/latency": 1.0} for k in ("a", "b", "c", "d")}
    new = {"a": {"toy/acc": 0.4, "toy/latency": 1.0},   # acc -0.1 of a largest change 0.4: -0.25
           "b": {"toy/acc": 0.5, "toy/latency": 3.0},   # latency +2.0 of 2.0 (lower is better): -1
           "c": {"toy/acc": 0.9, "toy/latency": 0.5},   # better on both
           "d": {"toy/acc": 0.3, "toy/latency": 1.0}}   # acc -0.2 of 0.4: -0.5
    paths = [write_journal(tmp_path / f"{n}.jsonl", rows, metrics=header) for n, rows in (("base", base), ("new", new))]
    run_evalcore("report", str(paths[0]), "--compare", str(paths[1]), "-o", str(tmp_path / "r.html"),
                 "--resamples", "50")
    table = read(tmp_path / "r.html").tables["side-0"]
    assert [line[0] for line in table[1:]] == ["b", "d", "a", "c"]
    assert [line[1] for line in table[1:]] == ["toy/latency", "toy/acc", "toy/acc", "–"]
    assert table[1][3] == "1.0000 → 3.0000+2.0000"


def test_hostile_records_are_only_ever_text(tmp_path):
    records = [{"id": f"r{n}", "example": {"query": HOSTILE[n % 3], "reference_answer": HOSTILE[1],
                                           "labels": {"scenario": HOSTILE[(n + 1) % 3]}},
                "prediction": {"response": HOSTILE[0], "retrieved": [{"doc_id": HOSTILE[2], "text": HOSTILE[1] * 40}],
                               "extra": HOSTILE[0]}} for n in range(3)]
    data = [write_records(tmp_path / f"{name}.jsonl", records) for name in ("a", "b")]
    for name, path in zip("ab", data):
        run_evalcore("evaluate", str(path), "-m", "overlap/token_f1", "-o", str(tmp_path / f"{name}.json"))
    run_evalcore("report", str(tmp_path / "a.json"), "--compare", str(tmp_path / "b.json"), "-o",
                 str(tmp_path / "r.html"), "--resamples", "50")
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    for markup in ("<script>window", "<img", "<b>"):
        assert markup not in html, markup
    page = Page(html)
    assert sum("window.__pwned" in raw for raw in page.raw) == 0
    text = "".join(page.ids.values())
    for string in HOSTILE:
        assert string in text
    assert f"scenario = {HOSTILE[1]}" in views(page)["r0"]
    assert HOSTILE[0] in "".join(c for line in page.tables["side-0"] for c in line)
