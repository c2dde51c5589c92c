"""evalcore watch end to end: the OpenTelemetry SDK's OTLP/HTTP exporter in an application process,
the receiver killed with SIGKILL and restarted mid-stream, every trace scored exactly once (a judge on
a scripted server on 127.0.0.1 for a sample of them), an alarm on a webhook after an injected quality
drop and not before."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.testing import ScriptedServer
from evalcore_watch.sampling import draw


class _Hook(BaseHTTPRequestHandler):
    received: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 - the handler's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


def test_restart_mid_stream_scores_every_trace_once_and_alarms_after_the_drop(watcher, kit, tmp_path: Path) -> None:
    judge = ScriptedServer(max_requests=100_000)
    judge.__enter__()
    env = {"EVALCORE_JUDGE_BASE_URL": judge.base_url, "EVALCORE_JUDGE_MODEL": "judge-model",
           "EVALCORE_CACHE_DIR": str(tmp_path / "cache"), "OPENAI_API_KEY": "scripted"}
    hook = HTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    store = tmp_path / "store"
    config = tmp_path / "watch.toml"
    config.write_text(f"""
[watch]
batch_size = 40
webhook = "http://127.0.0.1:{hook.server_port}/alarm"

[[score]]
name = "all"
metrics = ["checks/format"]

[[score]]
name = "judged"
metrics = ["judge/answer_quality"]
rate = 0.25

[[monitor]]
name = "answers"
metric = "checks/format"
floor = 0.8
window = 150
""")
    n, drop, hold = 2500, 1800, 1200
    w = watcher("--config", str(config), "--store", str(store), env=env)
    w.start()
    go_on = tmp_path / "go-on"
    app = kit.run_app(w.port, n, tmp_path / "ids.txt", "--drop-after", str(drop), "--pause", "0.002", "--gzip",
                      "--hold-at", str(hold), "--hold-file", str(go_on))
    kit.wait_until(lambda: kit.n_scored(store) >= 40, 60, "the first batches")
    w.kill()  # SIGKILL mid-stream, with traces received and not yet scored
    assert len(kit.scored_ids(store)) < hold
    go_on.touch()  # the application goes on exporting while the receiver is down: its exporter retries
    time.sleep(0.5)
    w.start()
    assert app.wait(timeout=120) == 0, app.stdout.read()
    ids = (tmp_path / "ids.txt").read_text().split()
    assert len(ids) == n
    kit.wait_until(lambda: kit.n_scored(store) >= n, 120, "every trace scored")
    scored = kit.scored_ids(store)
    assert sorted(scored) == sorted(ids)  # each trace once: none lost, none scored twice

    # the judge on the traces the rule draws: a quarter, each once, with the scripted judge's answers
    drawn = sorted(i for i in ids if draw(i, "judged") < 0.25)
    kit.wait_until(lambda: kit.n_scored(store, "judged") >= len(drawn), 60, "every judged trace")
    assert sorted(kit.scored_ids(store, "judged")) == drawn
    assert 0.15 * n < len(drawn) < 0.35 * n
    judged = [json.loads(line)["scores"]["judge/answer_quality"]
              for rows in store.glob("runs/*/*/*-judged.rows.jsonl") for line in rows.read_text().splitlines()
              if '"scores"' in line]
    answered = [s for s in judged if s["status"] == "ok"]
    assert all(s["value"] == 1.0 for s in answered)  # the scripted judge gives every dimension the top score
    assert {(s["status"], s.get("reason")) for s in judged if s["status"] != "ok"} <= {
        ("skipped", "prediction.response is empty")}
    assert len(judge.requests) >= len(answered) > 0

    # the app's answers, drawn with its seed: empty with probability 0.05, then 0.6 from the drop on
    kit.wait_until(lambda: bool(_Hook.received), 30, "the alarm")
    alarm = _Hook.received[0]
    assert alarm["monitor"] == "answers" and alarm["metric"] == "checks/format"
    assert ids.index(alarm["trace_id"]) >= drop  # not before the drop
    assert alarm["upper"] < 0.8
    logged = [json.loads(line) for line in (store / "alarms.jsonl").read_text().splitlines()]
    assert logged[0] == alarm
    log = (tmp_path / "watch.log").read_text()
    assert "alarm answers" in log and "recovered:" in log

    # every batch is a run that `evalcore runs` lists
    result = CliRunner().invoke(main, ["runs", str(store / "runs"), "--json"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.output)
    assert sum(r["n_records"] for r in runs if r["name"].endswith("-all")) == n
    assert sum(r["n_records"] for r in runs if r["name"].endswith("-judged")) == len(drawn)
    assert len(runs) == len(list(store.glob("runs/*/*/*.json")))
    hook.shutdown()
    judge.__exit__()
