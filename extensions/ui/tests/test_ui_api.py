"""The workbench's JSON API through the Python API (Starlette's test client): a store of runs, and
bad requests answered with one line naming what is wrong."""

from __future__ import annotations

import evalcore
import pytest
from evalcore_ui.app import create_app
from starlette.testclient import TestClient


@pytest.fixture
def store(runs, tmp_path):
    path = tmp_path / "runs.sqlite"
    evalcore.runs(runs, store=path)  # as `evalcore runs FOLDER --store runs.sqlite` records them
    return path


def test_a_store_alone_lists_its_runs_and_serves_their_records(store, tmp_path):
    with TestClient(create_app(store=str(store), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        listed = client.get("/api/runs").json()
        page = client.get(f"/api/runs/{listed[0]['id']}/records", params={"status": "ok", "limit": 5}).json()
    assert [r["name"] for r in listed] == ["a", "b"]
    assert page["records"] == 12 and page["total"] == 12 and len(page["rows"]) == 5


@pytest.mark.parametrize(("path", "expected"), [
    ("/api/runs/nope/records", "nope: no such run (the list may have changed: reload it)"),
    ("/api/runs/{run}/records?sort=judge/nothing", "sort: the run has no metric 'judge/nothing'"),
    ("/api/runs/{run}/records?status=fine", "status: status 'fine' is none of ok, skipped, error"),
    ("/api/runs/{run}/records?low=abc&metric=overlap/token_f1", "low: 'abc' is not a number"),
    ("/api/runs/{run}/records/q99", "q99: no such record in the run"),
    ("/api/queues/none/next?annotator=a", "none: no such queue"),
])
def test_a_bad_request_is_one_line_naming_its_place(runs, tmp_path, path, expected):
    with TestClient(create_app(str(runs), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        answer = client.get(path.format(run=run))
    assert answer.status_code == 400
    assert answer.json() == {"error": expected}


def test_labels_keep_who_when_and_the_comment_and_a_second_label_replaces_the_first(runs, tmp_path):
    with TestClient(create_app(str(runs), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        headers = {"Origin": "http://127.0.0.1"}
        client.post("/api/queues", json={"name": "tone", "run": run, "kind": "categories",
                                         "categories": ["calm", "rude"]}, headers=headers)
        given = [("ann", "rude", "first look"), ("bo", "calm", None), ("ann", "calm", "on reflection")]
        for who, label, comment in given:
            answer = client.post("/api/queues/tone/labels", json={"record": "q1", "annotator": who, "label": label,
                                                                  "comment": comment}, headers=headers)
            assert answer.status_code == 200, answer.text
        client.post("/api/queues/tone/skips", json={"record": "q2", "annotator": "ann"}, headers=headers)
        labels = client.get("/api/queues/tone/labels").json()
        upcoming = client.get("/api/queues/tone/next", params={"annotator": "ann"}).json()["record"]["id"]
        refused = client.get("/api/queues/tone/export").json()
    assert [(x["annotator"], x["label"], x["comment"]) for x in labels] == [("bo", "calm", None),
                                                                          ("ann", "calm", "on reflection")]
    assert all(x["at"].endswith("Z") for x in labels)
    assert upcoming == "q3"  # q1 labelled, q2 skipped
    assert refused == {"error": "tone: the queue labels no metric, and --labels needs one: open the queue for a metric"}


def test_aligning_a_judge_align_cannot_rewrite_is_one_line(runs, tmp_path):
    with TestClient(create_app(str(runs), data=str(tmp_path / "ui")), base_url="http://127.0.0.1") as client:
        run = client.get("/api/runs").json()[0]["id"]
        headers = {"Origin": "http://127.0.0.1"}
        client.post("/api/queues", json={"name": "faith", "run": run, "kind": "pass_fail",
                                         "metric": "judge/faithfulness"}, headers=headers)
        for rid in ("q1", "q2", "q3", "q4"):
            client.post("/api/queues/faith/labels", json={"record": rid, "annotator": "ann", "label": 1},
                        headers=headers)
        answer = client.post("/api/queues/faith/align", json={}, headers=headers)
    assert answer.status_code == 400
    assert answer.json() == {"error": "faith: the alignment failed: judge/faithfulness: its value is not one judge "
                                      "call's answer to one prompt template over record fields; align takes "
                                      "judge/custom, judge/llm_judge, judge/diff_semantic"}
