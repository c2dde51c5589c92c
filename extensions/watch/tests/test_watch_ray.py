"""evalcore watch scoring on the Ray executor (the ray nox session runs it): ``--executor ray`` joins the
Ray instance named by ``--executor-option address=...``, each batch's runs are spread over Ray tasks of
``chunk_size`` traces, and every trace is scored once with the scripted judge's verdicts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.testing import ScriptedServer

pytest.importorskip("evalcore_ray")
ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray

N = 60


@pytest.fixture(scope="module")
def ray_address():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def _empty_answers(n: int, seed: int = 7) -> set[int]:
    """The traces app.py sends with an empty answer: its draws, made again with its seed."""
    rng = random.Random(seed)
    return {i for i in range(n) if rng.random() < 0.05}


def test_judge_scoring_runs_on_ray_tasks_and_scores_every_trace_once(ray_address, watcher, kit,
                                                                   tmp_path: Path) -> None:
    store = tmp_path / "store"
    config = tmp_path / "watch.toml"
    config.write_text("""
[watch]
batch_size = 30
chunk_size = 10
executor = "ray"

[[score]]
name = "judged"
metrics = ["judge/answer_quality"]
""")
    with ScriptedServer(max_requests=100_000) as judge:
        env = {"EVALCORE_JUDGE_BASE_URL": judge.base_url, "EVALCORE_JUDGE_MODEL": "judge-model",
               "EVALCORE_CACHE_DIR": str(tmp_path / "cache"), "OPENAI_API_KEY": "scripted"}
        w = watcher("--config", str(config), "--store", str(store), "--executor-option", f"address={ray_address}",
                    env=env)
        w.start()
        app = kit.run_app(w.port, N, tmp_path / "ids.txt")
        assert app.wait(timeout=120) == 0, app.stdout.read()
        kit.wait_until(lambda: kit.n_scored(store, "judged") >= N, 120, "every trace judged")
        ids = (tmp_path / "ids.txt").read_text().split()
        assert sorted(kit.scored_ids(store, "judged")) == sorted(ids)  # each trace once
        requests = len(judge.requests)

    # the receiver joined the Ray instance the option names (Ray's own log line), rather than starting one
    assert f"Connecting to existing Ray cluster at address: {ray_address}" in (tmp_path / "watch.log").read_text()
    reports = [json.loads(p.read_text()) for p in sorted(store.glob("runs/*/*/*-judged.json"))]
    assert len(reports) == 2  # two batches of 30
    assert {r["provenance"]["executor"] for r in reports} == {"ray"}
    assert {r["provenance"]["options"]["chunk_size"] for r in reports} == {10}
    scores = {json.loads(line)["id"]: json.loads(line)["scores"]["judge/answer_quality"]
              for rows in store.glob("runs/*/*/*-judged.rows.jsonl") for line in rows.read_text().splitlines()
              if '"scores"' in line}
    empty = {ids[i] for i in _empty_answers(N)}
    # the scripted judge gives each of the three dimensions the top score: 1.0; an empty answer is skipped
    assert {i: s["value"] for i, s in scores.items() if i not in empty} == {i: 1.0 for i in ids if i not in empty}
    assert {(s["status"], s.get("reason")) for i, s in scores.items() if i in empty} <= {
        ("skipped", "prediction.response is empty")}
    assert requests == N - len(empty)  # one verdict (the three dimensions) per answered trace, none asked twice


def test_an_option_the_executor_lacks_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["watch", "-m", "checks/format", "--executor", "ray",
                                       "--executor-option", "adress=auto", "--store", str(tmp_path / "s")])
    assert result.exit_code != 0
    assert result.output.strip() == ("error: --config [watch]: executor_options: the ray executor has no option "
                                     "'adress' (options: address)")
