"""The record index and the agreement figures, through the Python API, against values worked out here."""

from __future__ import annotations

import json
import random

import krippendorff
import numpy as np
import pytest
from evalcore_ui.agreement import agreement, cohen_kappa
from evalcore_ui.index import RowIndex
from sklearn.metrics import cohen_kappa_score


def journal(path, n: int, seed: int = 0) -> dict[str, dict]:
    """A journal of ``n`` rows (two metrics; some errors and skips); the values by record id."""
    rng = random.Random(seed)
    values = {}
    with open(path, "w") as handle:
        handle.write(json.dumps({"evalcore_journal": 2, "metrics": {"m/a": {}, "m/b": {}}}) + "\n")
        for i in range(n):
            b = rng.choice([{"value": rng.random(), "status": "ok"}, {"value": None, "status": "error"},
                            {"value": None, "status": "skipped", "reason": "no reference"}])
            row = {"id": f"r{i}", "i": i, "scores": {"m/a": {"value": rng.random(), "status": "ok"}, "m/b": b}}
            values[f"r{i}"] = {"a": row["scores"]["m/a"]["value"], "b": b["value"], "status": b["status"], "i": i}
            handle.write(json.dumps(row) + "\n")
            if i % 100 == 99:
                handle.write(json.dumps({"chunk": i // 100, "count": 100}) + "\n")
    return values


def test_pages_filter_and_sort_like_python_does(tmp_path):
    path = str(tmp_path / "run.rows.jsonl")
    values = journal(path, 1000)
    index = RowIndex(str(tmp_path / "index.sqlite"))
    assert index.refresh(path) == 1000
    page = index.page(path, metric="m/a", low=0.25, high=0.5, sort="m/b", descending=True, offset=10, limit=20)
    chosen = [r for r, v in values.items() if 0.25 <= v["a"] <= 0.5]
    valued = sorted((r for r in chosen if values[r]["b"] is not None), key=lambda r: -values[r]["b"])
    expected = valued + [r for r in chosen if values[r]["b"] is None]  # without a value: last, in record order
    assert page.total == len(chosen)
    assert [row["id"] for row in page.rows] == expected[10:30]
    errors = index.page(path, status="error", limit=1000)
    assert [row["id"] for row in errors.rows] == [r for r, v in values.items() if v["status"] == "error"]
    last = index.page(path, sort="m/b", offset=990, limit=50)
    assert [row["id"] for row in last.rows] == (sorted((r for r in values if values[r]["b"] is not None),
                                                        key=lambda r: values[r]["b"])
                                                 + [r for r in values if values[r]["b"] is None])[990:]


def test_a_growing_journal_is_indexed_from_where_it_stopped_and_a_resumed_row_replaces(tmp_path):
    path = tmp_path / "run.rows.jsonl"
    values = journal(path, 50)
    index = RowIndex(str(tmp_path / "index.sqlite"))
    assert index.refresh(str(path)) == 50
    with path.open("a") as handle:
        handle.write(json.dumps({"id": "r3", "i": 3, "scores": {"m/a": {"value": 2.0, "status": "ok"}}}) + "\n")
        handle.write(json.dumps({"id": "new", "i": 50, "scores": {"m/a": {"value": 0.5}}}) + "\n")
        handle.write('{"id": "half-written", "i": 51')
    assert index.refresh(str(path)) == 51
    row, record = index.row(str(path), "r3")
    assert row["scores"]["m/a"]["value"] == 2.0 and record is None
    assert index.page(str(path), sort="m/a", descending=True, limit=1).rows[0]["id"] == "r3"
    assert values["r3"]["a"] != 2.0
    with pytest.raises(Exception, match="no metric 'm/c'"):
        index.page(str(path), sort="m/c")


def test_kappa_matches_scikit_learn_and_alpha_the_krippendorff_package():
    rng = random.Random(1)
    first = [rng.choice("ab") for _ in range(40)]
    second = [x if rng.random() < 0.7 else rng.choice("ab") for x in first]
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second))
    labels = ([{"id": str(n), "annotator": "x", "label": v} for n, v in enumerate(first)]
              + [{"id": str(n), "annotator": "y", "label": v} for n, v in enumerate(second)])
    found = agreement(labels, "pass_fail")
    codes = {"a": 0, "b": 1}
    data = np.array([[codes[v] for v in first], [codes[v] for v in second]], dtype=float)
    assert found["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    kappa = pytest.approx(cohen_kappa_score(first, second))
    assert found["pairs"] == [{"annotators": ["x", "y"], "n": 40, "kappa": kappa}]


def test_alpha_for_two_annotators_by_hand():
    # 4 records, nominal: pairs (a,a) (a,b) (b,b) (b,b): Do = 2/8, De = 2*3*5/(8*7) -> alpha = 1 - Do/De
    labels = [{"id": str(n), "annotator": who, "label": v}
              for n, pair in enumerate([("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")])
              for who, v in zip(("x", "y"), pair, strict=True)]
    assert agreement(labels, "categories")["alpha"] == pytest.approx(1 - (2 / 8) / (2 * 3 * 5 / (8 * 7)))
