"""The record index and the labels behave the same in SQLite and in PostgreSQL (a throwaway server):
label slices paged in record order as a journal grows, two annotators labelling one queue at once
through two connections (two servers), an active queue's draws numbered once, and the export; and
two ``evalcore ui --store postgresql://…`` servers sharing a queue over HTTP."""

from __future__ import annotations

import json
import os
import pathlib
import random
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest
from evalcore_ui.index import RowIndex
from evalcore_ui.labels import LabelStore, Queue, export_lines

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"
EVALCORE = [sys.executable, "-m", "evalcore"]


def write_run(folder, n: int, rows: range, seed: int = 0) -> tuple[str, dict[str, dict]]:
    """An input of ``n`` records (label ``split`` a/b/c, ``level`` a number) and a journal of the
    records ``rows``; the journal's path and what each record holds, worked out here."""
    rng = random.Random(seed)
    data, journal = folder / "data.jsonl", folder / "run.rows.jsonl"
    truth = {}
    with data.open("w") as handle:
        for i in range(n):
            labels = {"split": rng.choice("abc"), "level": i % 2}
            truth[f"r{i}"] = {"i": i, "split": labels["split"], "level": i % 2, "value": rng.random(),
                              "status": rng.choice(["ok", "ok", "error"])}
            handle.write(json.dumps({"id": f"r{i}", "example": {"query": "q", "labels": labels}}) + "\n")
    with journal.open("w") as handle:
        handle.write(json.dumps({"evalcore_journal": 2, "metrics": {"m/a": {}},
                                 "fingerprint": {"input": {"path": str(data)}}}) + "\n")
    append(journal, truth, rows)
    return str(journal), truth


def append(journal, truth: dict[str, dict], rows: range) -> None:
    with open(journal, "a") as handle:
        for i in rows:
            t = truth[f"r{i}"]
            score = {"value": t["value"], "status": "ok"} if t["status"] == "ok" else {"value": None, "status": "error"}
            handle.write(json.dumps({"id": f"r{i}", "i": i, "scores": {"m/a": score}}) + "\n")


def test_a_label_slice_pages_in_record_order_and_follows_a_growing_journal(store_at, tmp_path):
    journal, truth = write_run(tmp_path, 600, range(400))
    index = RowIndex(store_at("index"))
    assert index.refresh(journal) == 400
    assert index.slices(journal) == {"level": ["0", "1"], "split": ["a", "b", "c"]}
    in_b = [r for r, t in truth.items() if t["split"] == "b" and t["i"] < 400]
    page = index.page(journal, label=("split", "b"), offset=20, limit=30)
    assert page.total == len(in_b) and [row["id"] for row in page.rows] == in_b[20:50]
    ok_b = [r for r in in_b if truth[r]["status"] == "ok" and 0.2 <= truth[r]["value"] <= 0.7]
    page = index.page(journal, label=("split", "b"), status="ok", metric="m/a", low=0.2, high=0.7, sort="m/a",
                      descending=True, limit=500)
    assert page.total == len(ok_b)
    assert [row["id"] for row in page.rows] == sorted(ok_b, key=lambda r: -truth[r]["value"])
    assert page.rows[0]["values"]["m/a"] == pytest.approx(max(truth[r]["value"] for r in ok_b))
    append(journal, truth, range(400, 600))  # the run goes on: its new records join their slices
    assert index.refresh(journal) == 600
    level = [r for r, t in truth.items() if t["level"] == 1]
    page = index.page(journal, label=("level", "1"), descending=True, limit=200)
    assert page.total == 300 and [row["id"] for row in page.rows] == level[::-1][:200]
    errors = index.page(journal, label=("split", "c"), status="error", limit=500)
    assert [row["id"] for row in errors.rows] == [r for r, t in truth.items()
                                                  if t["split"] == "c" and t["status"] == "error"]
    row, record = index.row(journal, "r450")
    assert row["scores"]["m/a"]["status"] == truth["r450"]["status"] and record["example"]["labels"]["level"] == 0
    index.close()
    again = RowIndex(store_at("index"))  # another server on the same store finds the index built
    assert again.refresh(journal) == 600 and again.page(journal, label=("split", "a"), limit=1).total == sum(
        t["split"] == "a" for t in truth.values())
    again.close()


def test_two_annotators_label_one_queue_at_once_and_the_export_averages_them(store_at):
    first, second = LabelStore(store_at("labels")), LabelStore(store_at("labels"))  # two servers
    ids = [f"r{i}" for i in range(40)]
    opened: list[Queue] = []
    both = [threading.Thread(target=lambda s=s: opened.append(s.open_queue("check", "run1", "pass_fail", "m/a")))
            for s in (first, second)]
    for thread in both:
        thread.start()
    for thread in both:
        thread.join()
    assert opened[0] == opened[1] and [q.name for q in first.queues()] == ["check"]
    queue = opened[0]
    alice = {rid: n % 2 for n, rid in enumerate(ids)}
    bob = {rid: int(n % 3 == 0) for n, rid in enumerate(ids)}
    failures: list[BaseException] = []

    def label(store: LabelStore, who: str, labels: dict[str, int]) -> None:
        try:
            for rid in ids:
                store.skip(queue, rid, who)
                store.label(queue, rid, who, 1 - labels[rid], comment="first look")
                store.label(queue, rid, who, labels[rid])  # the second label of a record replaces the first
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    workers = [threading.Thread(target=label, args=(first, "alice", alice)),
               threading.Thread(target=label, args=(second, "bob", bob))]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert failures == []
    kept = first.labels(queue)
    assert sorted((x["annotator"], x["id"], x["label"], x["comment"]) for x in kept) == sorted(
        [("alice", r, str(v), None) for r, v in alice.items()] + [("bob", r, str(v), None) for r, v in bob.items()])
    assert first.next_record(queue, "alice", lambda after: [(n, r) for n, r in enumerate(ids) if n > after][:7]) is None
    lines = [json.loads(line) for line in export_lines(queue, second.labels(queue))]
    assert lines == [{"metric": "m/a", "id": r, "label": (alice[r] + bob[r]) / 2} for r in ids]
    first.close()
    second.close()


def test_an_active_queue_numbers_its_draws_once_when_two_servers_draw_at_once(store_at):
    stores = [LabelStore(store_at("labels")) for _ in range(2)]
    queue = stores[0].open_queue("active", "run1", "pass_fail", "m/a", order="active")
    ids = [f"r{i}" for i in range(200)]
    failures: list[BaseException] = []
    given: list[str] = []

    def annotate(store: LabelStore, who: str, seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(15):
                rid = store.next_drawn(queue, who, lambda: (rng.choice(ids), 1 / len(ids)), ids)
                given.append(rid)
                store.label(queue, rid, who, rng.choice("01"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    workers = [threading.Thread(target=annotate, args=(store, who, n))
               for n, (store, who) in enumerate(zip(stores, ("alice", "bob"), strict=True))]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert failures == []
    draws = stores[1].draws(queue)
    assert len(given) == 30 and set(given) <= {rid for rid, _ in draws}
    assert all(p == 1 / len(ids) for _, p in draws)  # kept exactly
    labelled = {x["id"] for x in stores[0].labels(queue)}
    assert labelled == set(given)
    for store in stores:
        store.close()


def _call(url: str, path: str, body: object = None) -> tuple[int, object]:
    """A request to the server (a POST carries the page's own origin, as the page sends it)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json", "Origin": url.rstrip("/")})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@pytest.mark.postgres
def test_two_servers_on_one_postgresql_store_share_the_queue_and_its_labels(serve, runs, postgres):
    records = [json.loads(line) for line in (EXAMPLES / "rag.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in records]
    alice = {rid: n % 2 for n, rid in enumerate(ids)}
    with serve(str(runs), "--store", postgres) as url:
        run = next(r["id"] for r in _call(url, "api/runs")[1] if r["name"] == "a")
        status, page = _call(url, f"api/runs/{run}/records?label=scenario%3Dbase&limit=5")
        base = [r["id"] for r in records if r["example"]["labels"]["scenario"] == "base"]
        assert status == 200 and page["total"] == len(base) and [r["id"] for r in page["rows"]] == base[:5]
        status, page = _call(url, f"api/runs/{run}/records?sort=overlap/token_f1&desc=1&limit=3")
        assert status == 200 and page["records"] == 12
        values = [r["values"]["overlap/token_f1"] for r in page["rows"]]
        assert values == sorted(values, reverse=True)
        assert _call(url, "api/queues", {"name": "check", "run": run, "kind": "pass_fail",
                                         "metric": "judge/faithfulness"})[0] == 200
        for rid in ids:
            assert _call(url, "api/queues/check/labels", {"record": rid, "annotator": "alice",
                                                          "label": alice[rid]}) == (200, {"ok": True})
        with serve(str(runs), "--store", postgres) as other:  # a teammate's server on the same database
            status, proposed = _call(other, "api/queues/check/next?annotator=bob")
            assert status == 200 and proposed["record"]["id"] == ids[0] and proposed["total"] == 12
            for rid in ids:
                assert _call(other, "api/queues/check/labels", {"record": rid, "annotator": "bob",
                                                                "label": 1})[0] == 200
            assert _call(other, "api/queues/check/next?annotator=alice")[1]["record"] is None
        with urllib.request.urlopen(url + "api/queues/check/export", timeout=30) as answer:
            exported = [json.loads(line) for line in answer.read().decode().splitlines()]
        status, agreement = _call(url, "api/queues/check/agreement")
    assert exported == [{"metric": "judge/faithfulness", "id": rid, "label": (alice[rid] + 1) / 2} for rid in ids]
    assert agreement["annotators"] == ["alice", "bob"] and agreement["pairs"][0]["n"] == 12


@pytest.mark.postgres
def test_a_server_goes_on_after_its_postgresql_store_restarts(serve, runs, postgres, restart_postgres):
    ids = [json.loads(line)["id"] for line in (EXAMPLES / "rag.jsonl").read_text().splitlines()]
    with serve(str(runs), "--store", postgres) as url:
        run = next(r["id"] for r in _call(url, "api/runs")[1] if r["name"] == "a")
        assert _call(url, "api/queues", {"name": "check", "run": run, "kind": "pass_fail",
                                         "metric": "judge/faithfulness"})[0] == 200
        for rid in ids[:6]:
            assert _call(url, "api/queues/check/labels", {"record": rid, "annotator": "alice", "label": 1})[0] == 200
        restart_postgres()  # every connection the server held is closed
        status, page = _call(url, f"api/runs/{run}/records?limit=3")
        assert status == 200 and [r["id"] for r in page["rows"]] == ids[:3]
        status, proposed = _call(url, "api/queues/check/next?annotator=alice")
        assert status == 200 and proposed["record"]["id"] == ids[6]
        for rid in ids[6:]:
            assert _call(url, "api/queues/check/labels", {"record": rid, "annotator": "alice", "label": 0})[0] == 200
        restart_postgres()
        with urllib.request.urlopen(url + "api/queues/check/export", timeout=30) as answer:
            exported = [json.loads(line) for line in answer.read().decode().splitlines()]
    assert exported == [{"metric": "judge/faithfulness", "id": rid, "label": float(n < 6)} for n, rid in enumerate(ids)]


@pytest.mark.postgres
def test_a_transaction_the_restart_cuts_fails_and_leaves_nothing_half_written(postgres, restart_postgres):
    store = LabelStore(postgres)
    db = store._db
    db.execute("CREATE TABLE notes (n BIGINT)")
    with pytest.raises(Exception, match="terminat|closed|connection"):
        with db.writing("notes"):
            db.execute("INSERT INTO notes VALUES (1)")
            restart_postgres()
            db.execute("INSERT INTO notes VALUES (2)")
    assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == 0  # a new connection; nothing committed
    store.close()


@pytest.mark.postgres
def test_an_unreachable_postgresql_store_is_one_line_without_the_password(runs, env, postgres_server):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once it is closed
    done = subprocess.run([*EVALCORE, "ui", str(runs), "--store", f"postgresql://ann:s3cret@127.0.0.1:{port}/db",
                           "--port", "0"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "s3cret" not in done.stderr
    assert done.stderr.startswith(f"error: postgresql://ann:***@127.0.0.1:{port}/db: cannot connect to the "
                                  "PostgreSQL server: ")


def test_a_postgresql_store_without_psycopg_says_which_extra_to_install(tmp_path):
    shadow = tmp_path / "shadow" / "psycopg"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('psycopg is not installed')\n")
    done = subprocess.run([*EVALCORE, "ui", str(tmp_path), "--store", "postgresql://ann:pw@127.0.0.1:5432/db",
                           "--port", "0"], env={**os.environ, "PYTHONPATH": str(shadow.parent)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr == ("error: postgresql://ann:***@127.0.0.1:5432/db: a postgresql:// store needs psycopg: "
                           "pip install 'evalcore-ui[postgres]'\n")


def test_servers_started_at_once_on_a_new_store_make_its_tables_once(store_at):
    failures: list[BaseException] = []
    opened: list[object] = []
    start = threading.Barrier(4)

    def open_store() -> None:
        start.wait()
        try:
            opened.extend([RowIndex(store_at("index")), LabelStore(store_at("labels"))])
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for store in opened:
        store.close()
