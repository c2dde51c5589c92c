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
