"""A queue in active order through the JSON API (Starlette's test client): records drawn with the
probabilities the judge's uncertainty gives, each recorded with its label, and the active estimate
with the labels a target width still needs, checked against numbers worked out here from the journal."""

from __future__ import annotations

import math
import sqlite3
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
