"""The workbench on a run of a million records: time to index the journal on first open, to the
first page of records (plain, sorted by a metric, filtered by value, status and label slice),
to open a record, and to open a queue in active order (its first proposed record) and get the next
proposal after a label, through the HTTP API of the running application.

A synthetic run is written to a temporary folder: an input of ``--records`` records (each with a
label slice and a short text) and the journal of a run over it (two metrics, one with 1 % errors),
with the report naming both. The application is driven in-process by Starlette's test client,
so the times are the server's (no browser rendering). The index lives in SQLite files, or with
``--data postgresql://…`` in that PostgreSQL database (evalcore-ui[postgres]; an empty one).

    python benchmarks/bench_ui.py
    python benchmarks/bench_ui.py --records 100000
    python benchmarks/bench_ui.py --records 100000 --data postgresql://localhost/bench
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import tempfile
import time

from evalcore_ui.app import create_app
from starlette.testclient import TestClient


def write_run(folder: str, n: int) -> None:
    """An input of ``n`` records, the journal of a run over it, and its report."""
    rng = random.Random(0)
    data = os.path.join(folder, "data.jsonl")
    with open(data, "w") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": f"r{i}", "example": {"query": f"question {i}", "reference_answer": "yes",
                                                                 "labels": {"split": "ab"[i % 2]}},
                                     "prediction": {"response": f"answer {i}"}}) + "\n")
    sha = hashlib.sha256(open(data, "rb").read()).hexdigest()
    header = {"evalcore_journal": 2, "fingerprint": {"input": {"path": data, "sha256": sha}},
              "metrics": {"m/a": {"granularity": "sample", "direction": "higher"},
                          "m/b": {"granularity": "sample", "direction": "higher"}}}
    with open(os.path.join(folder, "run.rows.jsonl"), "w") as handle:
        handle.write(json.dumps(header) + "\n")
        for i in range(n):
            b = ({"value": None, "status": "error", "error": {"type": "E", "message": "m"}} if rng.random() < 0.01
                 else {"value": rng.random(), "status": "ok"})
            handle.write(json.dumps({"id": f"r{i}", "i": i, "scores": {"m/a": {"value": rng.random(), "status": "ok"},
                                                                       "m/b": b}}) + "\n")
    report = {"metrics": {"m/a": {"value": 0.5, "ci": [0.49, 0.51], "n": n, "metric_version": "1"},
                          "m/b": {"value": 0.5, "ci": [0.49, 0.51], "n": n, "metric_version": "1"}},
              "provenance": {"started": "2026-01-01T00:00:00Z", "input": data}, "samples_file": "run.rows.jsonl"}
    with open(os.path.join(folder, "run.json"), "w") as handle:
        json.dump(report, handle)


def timed(client: TestClient, path: str) -> float:
    started = time.perf_counter()
    answer = client.get(path)
    assert answer.status_code == 200, answer.text
    return time.perf_counter() - started


def timed_post(client: TestClient, path: str, body: dict[str, object]) -> float:
    started = time.perf_counter()
    answer = client.post(path, json=body, headers={"Origin": "http://127.0.0.1"})
    assert answer.status_code == 200, answer.text
    return time.perf_counter() - started


def active_queue(client: TestClient, run: str) -> None:
    """Open a queue in active order for ``m/b`` (1 % errors, so not every record is drawn from), then
    label a few proposals, timing each step."""
    opened = timed_post(client, "/api/queues", {"name": "act", "run": run, "kind": "pass_fail", "metric": "m/b",
                                                 "order": "active"})
    started = time.perf_counter()
    record = client.get("/api/queues/act/next", params={"annotator": "ann"}).json()["record"]["id"]
    print(f"active queue: open, first proposal {opened + time.perf_counter() - started:8.3f} s")
    times = []
    for n in range(5):
        timed_post(client, "/api/queues/act/labels", {"record": record, "annotator": "ann", "label": n % 2})
        started = time.perf_counter()
        record = client.get("/api/queues/act/next", params={"annotator": "ann"}).json()["record"]["id"]
        times.append(time.perf_counter() - started)
    print(f"active queue: next after label  {max(times):8.3f} s (slowest of 5)")
    print(f"active queue: estimate          {timed(client, '/api/queues/act/estimate?width=0.05'):8.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--data", help="where the index is kept (default: SQLite files in the run's folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        write_run(folder, args.records)
        print(f"{args.records} records written in {time.perf_counter() - started:.1f} s")
        with TestClient(create_app(folder, data=args.data), base_url="http://127.0.0.1") as client:
            run = client.get("/api/runs").json()[0]["id"]
            base = f"/api/runs/{run}/records"
            print(f"first open (index built)       {timed(client, base):8.3f} s")
            for name, query in [("first page", ""), ("page 1000", "?offset=50000"),
                                ("sorted by a metric", "?sort=m/b&desc=1"),
                                ("value 0.2..0.3, sorted", "?metric=m/a&low=0.2&high=0.3&sort=m/a"),
                                ("errors only", "?status=error"), ("label slice", "?label=split%3Db")]:
                print(f"{name:<30} {timed(client, base + query):8.3f} s")
            print(f"open a record (first)          {timed(client, f'{base}/r{args.records * 3 // 4}'):8.3f} s")
            print(f"open another record            {timed(client, f'{base}/r{args.records // 3}'):8.3f} s")
            active_queue(client, run)


if __name__ == "__main__":
    main()
