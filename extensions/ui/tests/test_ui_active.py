"""A queue in active order through the JSON API (Starlette's test client): records drawn with the
probabilities the judge's uncertainty gives, each recorded with its label, and the active estimate
with the labels a target width still needs, checked against numbers worked out here from the journal;
and in a real Chromium, the interval narrowing as a person labels with the keyboard."""

from __future__ import annotations

import json
import math
import re
import sqlite3
import urllib.request
from statistics import NormalDist

import pytest
from evalcore_ui.app import create_app
from starlette.testclient import TestClient

METRIC = "overlap/token_f1"
HEADERS = {"Origin": "http://127.0.0.1"}


def expected_probabilities(values: dict[str, float]) -> dict[str, float]:
    """The module's rule by hand: sqrt(v (1 - v)) shares with a fifth of the weight uniform."""
    doubt = {rid: math.sqrt(v * (1 - v)) for rid, v in values.items()}
    total = sum(doubt.values())
    return {rid: 0.8 * d / total + 0.2 / len(values) for rid, d in doubt.items()}


def test_an_active_queue_draws_by_uncertainty_and_estimates_without_bias(runs, rows, tmp_path):
    values = {rid: row["scores"][METRIC]["value"] for rid, row in rows(runs / "a.rows.jsonl").items()}
    assert len(set(values.values())) > 2  # the run's token F1 values differ, so the draw is not uniform
    p = expected_probabilities(values)
    truth = {rid: 1 if n % 3 else 0 for n, rid in enumerate(sorted(values))}  # a person's pass/fail
    with TestClient(create_app(str(runs), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        opened = client.post("/api/queues", json={"name": "act", "run": run, "kind": "pass_fail", "metric": METRIC,
                                                  "order": "active"}, headers=HEADERS)
        assert opened.status_code == 200 and opened.json()["order"] == "active"
        proposed = []
        for _ in range(6):
            rid = client.get("/api/queues/act/next", params={"annotator": "ann"}).json()["record"]["id"]
            proposed.append(rid)
            client.post("/api/queues/act/labels", json={"record": rid, "annotator": "ann", "label": truth[rid]},
                        headers=HEADERS)
        labels = client.get("/api/queues/act/labels").json()
        estimate = client.get("/api/queues/act/estimate", params={"width": "0.05"}).json()
        refused = client.post("/api/queues", json={"name": "bad", "run": run, "kind": "pass_fail",
                                                   "order": "active"}, headers=HEADERS)
    assert len(set(proposed)) == 6  # a record once labelled is not proposed again
    assert {x["id"]: x["p"] for x in labels} == pytest.approx({rid: p[rid] for rid in proposed})
    assert all(x["annotator"] == "ann" and x["at"].endswith("Z") for x in labels)

    # the draws (a labelled record drawn again counts, at no cost) and Zrnic & Candès' estimator by hand
    draws = estimate["draws"]
    assert estimate["active"]["draws"] == draws >= 6
    mean_f = sum(values.values()) / len(values)
    assert estimate["judge_mean"] == pytest.approx(mean_f)
    assert 0 < estimate["active"]["se"] and estimate["active"]["labelled"] == 6
    z = NormalDist().inv_cdf(0.975)
    sd = estimate["active"]["se"] * math.sqrt(draws)
    assert estimate["labels_needed"] == max(0, math.ceil((2 * z * sd / 0.05) ** 2) - draws)
    assert estimate["active"]["width"] == pytest.approx(2 * z * estimate["active"]["se"])
    assert refused.status_code == 400
    assert refused.json()["error"] == ("order: active order needs a metric and labels that are numbers "
                                       "(pass/fail or a scale)")


def test_the_active_estimate_is_the_inverse_probability_weighted_mean_of_the_draws(runs, rows, tmp_path):
    values = {rid: row["scores"][METRIC]["value"] for rid, row in rows(runs / "a.rows.jsonl").items()}
    p = expected_probabilities(values)
    with TestClient(create_app(str(runs), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        client.post("/api/queues", json={"name": "act", "run": run, "kind": "pass_fail", "metric": METRIC,
                                         "order": "active"}, headers=HEADERS)
        for _ in range(4):
            rid = client.get("/api/queues/act/next", params={"annotator": "ann"}).json()["record"]["id"]
            client.post("/api/queues/act/labels", json={"record": rid, "annotator": "ann", "label": 1},
                        headers=HEADERS)
        client.get("/api/queues/act/next", params={"annotator": "ann"})  # a fifth draw, still unlabelled
        labels = {x["id"] for x in client.get("/api/queues/act/labels").json()}
        estimate = client.get("/api/queues/act/estimate").json()
    drawn = bench_draws(tmp_path / "ui" / "labels.sqlite")
    used = []
    for rid in drawn:  # the labelled draws from the first; the one waiting for its label holds the rest back
        if rid not in labels:
            break
        used.append(rid)
    terms = [sum(values.values()) / len(values) + (1 - values[r]) / (len(values) * p[r]) for r in used]
    mean = sum(terms) / len(terms)
    se = math.sqrt(sum((t - mean) ** 2 for t in terms) / (len(terms) - 1) / len(terms))
    assert estimate["active"]["draws"] == len(used)
    assert estimate["active"]["value"] == pytest.approx(mean)
    assert estimate["active"]["se"] == pytest.approx(se)
    assert "labels_needed" not in estimate


def bench_draws(path) -> list[str]:
    """The recorded draws, read straight from the queue store."""
    with sqlite3.connect(path) as db:
        return [r for (r,) in db.execute("SELECT rid FROM draws WHERE queue = 'act' ORDER BY seq")]


def test_labelling_an_active_queue_in_the_browser_narrows_the_interval_and_says_how_many_labels_remain(
        serve, runs, rows, browser, tmp_path):
    values = {rid: row["scores"][METRIC]["value"] for rid, row in rows(runs / "a.rows.jsonl").items()}
    with serve(str(runs), "--data", str(tmp_path / "ui"), "--seed", "7") as url:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(url + "#/queues")
        page.fill("#annotator", "ann")
        page.press("#annotator", "Enter")
        page.fill("#queue-name", "active f1")
        page.select_option("#queue-run", label="a")
        page.select_option("#queue-metric", METRIC)
        page.select_option("#queue-order", "active")
        page.click("#queue-open")
        page.wait_for_selector("#target-width")
        page.fill("#target-width", "0.2")
        page.press("#target-width", "Enter")
        page.evaluate("document.activeElement.blur()")
        shown = []
        for n in range(1, 9):
            rid = page.text_content("#record h3")
            before = page.text_content("#progress")
            page.keyboard.press("p" if values[rid] >= 0.5 else "f")  # a person who mostly agrees with the judge
            page.wait_for_function("t => document.querySelector('#progress')?.textContent !== t", arg=before)
            page.wait_for_function("n => (document.querySelector('#active-estimate')?.textContent || '')"
                                   ".includes(n < 2 ? 'active' : `(${n} labels`)", arg=n)
            shown.append((page.text_content("#active-estimate"), page.text_content("#labels-needed")))
        with urllib.request.urlopen(url + "api/queues/active%20f1/estimate?width=0.2") as answer:
            final = json.load(answer)
        context.close()
    widths = [float(re.search(r"width ([0-9.]+) \(", text).group(1)) for text, _ in shown[1:]]
    needed = [int(re.search(r"at most (\d+) more labels reach width 0\.2", text).group(1)) for _, text in shown[1:]]
    assert widths[-1] < widths[0]
    assert needed[-1] < needed[0]
    assert needed[-1] == final["labels_needed"]
    assert widths[-1] == pytest.approx(final["active"]["width"], abs=1e-4)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def data_at(request, tmp_path):
    """Where the workbench keeps its index and labels: a folder of SQLite files, or a PostgreSQL database."""
    return str(tmp_path / "ui") if request.param == "sqlite" else request.getfixturevalue("postgres")


def test_every_kind_of_uncertainty_is_kept_in_the_index_and_gives_the_recorded_draw_probabilities(data_at, tmp_path):
    scores = [("a", {"value": 0.5, "status": "ok", "details": {"values": [0.0, 1.0]}}),  # a panel: std 0.5
              ("b", {"value": 1.0, "status": "ok", "details": {"confidence": 0.9}}),  # 1 - confidence: 0.1
              ("c", {"value": 0.36, "status": "ok"}),  # sqrt(0.36 * 0.64) = 0.48
              ("d", 0.7),  # a bare number: the mean of the others' (0.5 + 0.1 + 0.48 + 0) / 4 = 0.27
              ("e", {"value": None, "status": "error", "error": {"type": "E", "message": "m"}}),  # not drawn from
              ("f", {"value": 0.5, "status": "ok"}),  # replaced by the resumed run's row below: 0
              ("f", {"value": 1.0, "status": "ok"})]
    runs = tmp_path / "runs"
    runs.mkdir()
    with open(runs / "run.rows.jsonl", "w") as handle:
        handle.write(json.dumps({"evalcore_journal": 2, "metrics": {"m/j": {"granularity": "sample"}}}) + "\n")
        for rid, score in scores:
            handle.write(json.dumps({"id": rid, "i": "abcdeff".index(rid), "scores": {"m/j": score}}) + "\n")
    (runs / "run.json").write_text(json.dumps({"metrics": {"m/j": {"value": 0.6, "n": 5}},
                                               "provenance": {"started": "2026-01-01T00:00:00Z"},
                                               "samples_file": "run.rows.jsonl"}))
    doubt = {"a": 0.5, "b": 0.1, "c": 0.48, "d": 0.27, "f": 0.0}
    expected = {rid: 0.8 * d / sum(doubt.values()) + 0.2 / 5 for rid, d in doubt.items()}
    with TestClient(create_app(str(runs), data=data_at, seed=3), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        client.post("/api/queues", json={"name": "act", "run": run, "kind": "pass_fail", "metric": "m/j",
                                         "order": "active"}, headers=HEADERS)
        while (record := client.get("/api/queues/act/next", params={"annotator": "ann"}).json()["record"]):
            client.post("/api/queues/act/labels", json={"record": record["id"], "annotator": "ann", "label": 1},
                        headers=HEADERS)
        labels = client.get("/api/queues/act/labels").json()
        estimate = client.get("/api/queues/act/estimate").json()
    assert {x["id"]: x["p"] for x in labels} == pytest.approx(expected)
    assert estimate["records"] == 5 and estimate["judge_mean"] == pytest.approx((0.5 + 1.0 + 0.36 + 0.7 + 1.0) / 5)
