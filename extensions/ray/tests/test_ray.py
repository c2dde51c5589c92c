"""Scale-out on Ray: a local Ray instance gives the numbers of the local run, and keeps the budget."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import sys
import time

import evalcore
import pytest
from evalcore import MetricSpec, SampleMetric, Score

pytest.importorskip("evalcore_ray")
ray = pytest.importorskip("ray")
ROOT = pathlib.Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.ray

# The workers import this module's classes by value: the test folder is not a package they can import.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

METRICS = [
    "overlap/token_f1",  # sample
    "retrieval/ndcg@10",  # batch
    "overlap/bleu", "overlap/chrf", "system/distinct_n",  # corpus
    "robustness/noise_robustness(metric='overlap/token_f1')",  # relates records across chunks
    "robustness/counterfactual_consistency",
]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def dataset():
    """rag.jsonl five times over, with typo and counterfactual variants listed after all bases."""
    base = [json.loads(line) for line in (ROOT / "examples" / "rag.jsonl").read_text().splitlines()]
    bases, variants = [], []
    for copy in range(5):
        for record in base:
            record = json.loads(json.dumps(record))
            labels = record["example"].setdefault("labels", {})
            record["id"] = f"{record['id']}-{copy}"
            if labels.get("variant_of"):
                labels["variant_of"] = f"{labels['variant_of']}-{copy}"
                variants.append(record)
                continue
            bases.append(record)
            if labels.get("scenario") != "base":
                continue
            response = record["prediction"]["response"]
            for scenario, answer in (("typo", response.lower()), ("counterfactual", f"{response} Not sure.")):
                variant = json.loads(json.dumps(record))
                variant["id"] = f"{record['id']}-{scenario}"
                variant["example"]["labels"] = {"scenario": scenario, "variant_of": record["id"]}
                variant["prediction"]["response"] = answer
                variants.append(variant)
    return bases + variants


def rows_by_id(result):
    return sorted(result.samples, key=lambda row: row["id"])


def test_every_metric_kind_gives_the_local_numbers(local_ray, dataset):
    local = evalcore.evaluate(dataset, METRICS, chunk_size=7, seed=3)
    remote = evalcore.evaluate(dataset, METRICS, chunk_size=7, seed=3, executor="ray")
    assert remote.provenance["executor"] == "ray"
    assert len(dataset) == 160 and remote.provenance["n_finished"] == 160
    assert remote.to_dict()["metrics"] == local.to_dict()["metrics"]
    assert all(summary.n > 0 for summary in remote.metrics.values())
    assert rows_by_id(remote) == rows_by_id(local)


def test_columnar_trec_chunks_give_the_local_numbers(local_ray, shared):
    data = shared / "reference" / "trec_eval"
    [reader] = [r for r in evalcore.Registry().readers() if r.name == "trec"]
    metrics = ["retrieval/map", "retrieval/ndcg@10", "retrieval/precision@10"]

    def run(**options):
        source = reader.open(qrels=str(data / "qrels.test"), run=str(data / "results.test"))
        return evalcore.evaluate(source, metrics, chunk_size=10, **options)

    local, remote = run(), run(executor="ray")
    assert remote.to_dict()["metrics"] == local.to_dict()["metrics"]
    assert rows_by_id(remote) == rows_by_id(local)


class Paid(SampleMetric):
    """Estimated at its spec's ``cost_msats``, costs ``actual`` after a short wait; says which process scored."""

    actual = None

    def score(self, example, prediction):
        time.sleep(0.01)
        return Score(1.0, cost_msats=self.actual or self.spec.cost_msats, details={"pid": os.getpid()})


class AsyncPaid(Paid):
    async def ascore(self, example, prediction):
        await asyncio.sleep(0.01)
        return Score(1.0, cost_msats=self.actual, details={"pid": os.getpid()})


def paid(cost_msats, cls=Paid, actual=None, name="paid"):
    spec = MetricSpec(name=name, namespace="t", implementation="tests:Paid", summary="paid",
                      tier="truth", cost_msats=cost_msats)
    metric = cls(spec)
    metric.actual = actual
    return metric


def test_the_budget_holds_across_workers(local_ray, dataset):
    budget = evalcore.Budget(95)
    result = evalcore.evaluate(dataset[:40], [paid(10)], budget_msats=budget, chunk_size=4, executor="ray")
    statuses = [row["scores"]["t/paid"]["status"] for row in result.samples]
    assert statuses.count("ok") == 9 and statuses.count("skipped") == 31
    assert len({row["scores"]["t/paid"]["details"]["pid"] for row in result.samples if "details" in
                row["scores"]["t/paid"]}) == 2, "both workers scored"
    assert (budget.spent, budget.reserved, budget.refused) == (90, 0, 31)
    assert result.provenance["budget"] == {"limit_msats": 95, "spent_msats": 90, "refused_calls": 31,
                                           "overrun_msats": 0, "overrun_calls": 0}
    # the same Budget object carries over to the next run: 5 msats left, nothing more fits
    again = evalcore.evaluate(dataset[:4], [paid(10)], budget_msats=budget, executor="ray")
    assert again.metrics["t/paid"].n == 0 and budget.spent == 90


def test_leases_never_overspend_when_calls_cost_less_than_estimated(local_ray, dataset):
    budget = evalcore.Budget(100)
    result = evalcore.evaluate(dataset[:60], [paid(10, AsyncPaid, actual=4)], budget_msats=budget, chunk_size=5,
                               concurrency=3, executor="ray")
    summary = result.metrics["t/paid"]
    assert budget.spent == 4 * summary.n <= 100 and budget.reserved == 0
    assert summary.n >= 10 and budget.refused == summary.n_budget_skipped == 60 - summary.n


@pytest.mark.parametrize("limit", [None, 10_000])
def test_the_spend_and_overruns_are_those_of_the_local_run(local_ray, dataset, limit):
    metrics = [paid(10, actual=15), paid(10, AsyncPaid, actual=15, name="apaid")]
    local, remote = (evalcore.Budget(limit), evalcore.Budget(limit))
    evalcore.evaluate(dataset[:30], metrics, budget_msats=local, chunk_size=4)
    evalcore.evaluate(dataset[:30], metrics, budget_msats=remote, chunk_size=4, executor="ray")
    assert remote.to_dict() == local.to_dict()
    if limit is not None:  # charged the estimate, the rest recorded as overrun
        assert remote.to_dict() == {"limit_msats": limit, "spent_msats": 600, "refused_calls": 0,
                                    "overrun_msats": 300, "overrun_calls": 60}


def test_a_callable_metric_is_shipped_to_the_workers(local_ray, dataset):
    wanted = "paris"

    def mentions(gold, pred, trace=None):
        return wanted in pred.response.lower()

    local = evalcore.evaluate(dataset, [mentions], chunk_size=16)
    remote = evalcore.evaluate(dataset, [mentions], chunk_size=16, executor="ray")
    assert remote.to_dict()["metrics"] == local.to_dict()["metrics"]
    assert remote.metrics["local/mentions"].n == len(dataset)
    assert rows_by_id(remote) == rows_by_id(local)


def test_cli_metric_objects_and_a_program_run_on_the_workers(local_ray, dataset):
    def answer(example):
        return {"response": example.reference_answer if isinstance(example.reference_answer, str) else "?"}

    examples = [r["example"] | {"id": r["id"]} for r in dataset[:30]]
    metrics = [evalcore.get_metric("overlap/exact_match"), evalcore.get_metric("overlap/bleu")]
    local = evalcore.evaluate(examples=examples, program=answer, metrics=metrics, chunk_size=8)
    remote = evalcore.evaluate(examples=examples, program=answer, metrics=metrics, chunk_size=8, executor="ray")
    assert remote.to_dict()["metrics"] == local.to_dict()["metrics"]
    strings = sum(isinstance(e["reference_answer"], str) for e in examples)
    assert remote.metrics["overlap/exact_match"].value == pytest.approx(strings / len(examples))
    assert rows_by_id(remote) == rows_by_id(local)


def test_a_local_run_resumes_on_ray(local_ray, dataset, tmp_path):
    metrics = ["overlap/token_f1", "overlap/bleu", "robustness/counterfactual_consistency"]
    whole = evalcore.evaluate(dataset, metrics, chunk_size=10, samples=tmp_path / "whole.jsonl")
    lines = (tmp_path / "whole.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "cut.jsonl").write_text("".join(lines[:1 + 45]) + lines[46][:30])  # killed mid-line
    resumed = evalcore.evaluate(dataset, metrics, chunk_size=10, samples=tmp_path / "cut.jsonl", resume=True,
                                executor="ray")
    assert resumed.to_dict()["metrics"] == whole.to_dict()["metrics"]
    assert rows_by_id(resumed) == rows_by_id(whole)


def test_max_errors_stops_the_ray_run(local_ray, dataset):
    def broken(gold, pred, trace=None):
        raise ValueError("broken")

    result = evalcore.evaluate(dataset, [broken], chunk_size=5, max_errors=3, executor="ray")
    assert result.stopped and "max_errors=3" in result.stopped
    assert 4 <= result.metrics["local/broken"].n_errors < len(dataset)


def test_a_metric_that_cannot_be_pickled_is_named(local_ray, dataset):
    import threading

    lock = threading.Lock()

    def locked(gold, pred, trace=None):
        with lock:
            return 1.0

    with pytest.raises(evalcore.EvalcoreError, match=r"local/locked: cannot be sent to the Ray workers"):
        evalcore.evaluate(dataset[:3], [locked], executor="ray")


@pytest.fixture(scope="module")
def two_node_cluster(tmp_path_factory):
    """A real two-node Ray cluster on this machine: ``ray start --head`` and a second node that joins
    it with ``ray start --address``, one CPU each, with Ray's token authentication; its address and
    the environment (the token) a command needs to join it."""
    import secrets
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    ray_cli = str(pathlib.Path(sys.executable).with_name("ray"))
    node = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]

    def start(*arguments):
        import subprocess

        subprocess.run([ray_cli, "start", *arguments, *node], check=True, env=env, capture_output=True, timeout=180)

    try:
        start("--head", f"--port={port}", "--include-dashboard=false")
        start(f"--address={address}")
        yield address, env
    finally:
        import subprocess

        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True, timeout=120)


def test_evaluate_on_a_two_node_cluster_gives_the_local_numbers(two_node_cluster, dataset, tmp_path):
    """Through the command line, as a user joins a cluster: the same aggregates and rows as the local
    executor, and chunks scored on both nodes (each row's worker node, from a metric that says where
    it ran, shipped to the workers with the run)."""
    from evalcore.testing import run_evalcore

    address, env = two_node_cluster
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(record) + "\n" for record in dataset))
    metrics = ["-m", "overlap/token_f1", "-m", "overlap/bleu", "-m", "robustness/counterfactual_consistency"]
    runs = {}
    for name, extra in (("local", []), ("cluster", ["--executor", "ray", "--ray-address", address])):
        done = run_evalcore("evaluate", str(data), *metrics, "--chunk-size", "10", "--json", "--no-progress",
                            "--samples", str(tmp_path / f"{name}.jsonl"), *extra, env=env, timeout=300)
        runs[name] = json.loads(done.stdout)
    assert runs["cluster"]["metrics"] == runs["local"]["metrics"]
    rows = {name: sorted((row for row in map(json.loads, (tmp_path / f"{name}.jsonl").read_text().splitlines())
                          if "scores" in row), key=lambda row: row["id"]) for name in runs}
    assert len(rows["cluster"]) == len(dataset)
    assert [row["scores"] for row in rows["cluster"]] == [row["scores"] for row in rows["local"]]

    where = (tmp_path / "where.py")
    where.write_text(
        "import time, ray, evalcore\n"
        "def node(gold, pred, trace=None):\n"
        "    time.sleep(0.02)\n"
        "    return evalcore.Score(1.0, details={'node': ray.get_runtime_context().get_node_id()})\n"
        f"ray.init(address={address!r})\n"
        f"records = [{{'id': str(i), 'example': {{}}, 'prediction': {{'response': 'x'}}}} for i in range(200)]\n"
        "result = evalcore.evaluate(records, [node], executor='ray', chunk_size=10)\n"
        "print(len({row['scores']['local/node']['details']['node'] for row in result.samples}))\n")
    import subprocess

    done = subprocess.run([sys.executable, str(where)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[-1] == "2"


def test_judge_calls_and_tokens_made_on_the_workers_are_counted(local_ray, dataset, monkeypatch, tmp_path):
    from click.testing import CliRunner
    from evalcore._cli.main import main
    from evalcore.testing import Reply, ScriptedServer, requested_schema, schema_instance, write_records

    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)

    def answer(request):
        text = json.dumps(schema_instance(requested_schema(request), number=1))
        return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})

    data = write_records(tmp_path / "records.jsonl",
                         [{**r, "example": {**r["example"], "query": "capital?"}} for r in dataset[:40]])
    with ScriptedServer(answer) as server:
        done = CliRunner().invoke(main, ["evaluate", str(data), "-m", "judge/answer_quality", "--executor", "ray",
                                         "--chunk-size", "6", "--cache-mode", "off", "--judge-base-url",
                                         server.base_url, "--judge-model", "judge-a", "--json"])
        asked = len(server.requests)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    usage = report["metrics"]["judge/answer_quality"]["usage"]
    assert asked == 40  # one call a record, every one made on a worker
    assert {k: usage[k] for k in ("calls", "cached_calls", "prompt_tokens", "completion_tokens")} == {
        "calls": 40, "cached_calls": 0, "prompt_tokens": 400, "completion_tokens": 200}
    assert usage["cost_msats"] == report["metrics"]["judge/answer_quality"]["cost_msats"]
    assert report["usage"]["calls"] == 40


def test_a_judge_panel_counts_the_verdicts_given_on_the_workers(local_ray, monkeypatch):
    from evalcore.testing import Reply, ScriptedServer

    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)

    def answer(request):  # judge a passes every answer; judge b only the even-numbered ones
        number = int(re.search(r"answer (\d+)", json.dumps(request["messages"])).group(1))
        score = 1 if request["model"] == "a" or number % 2 == 0 else 0
        return Reply.chat(json.dumps({"explanation": f"score {score}", "score": score}))

    records = [{"id": f"r{i}", "example": {"query": "q"},
                "prediction": {"response": f"answer {i}", "retrieved": [{"doc_id": "d", "text": "context"}]}}
               for i in range(40)]
    panel = "judge/faithfulness(judges=[{'model': 'a'}, {'model': 'b'}])"
    with ScriptedServer(answer) as server:
        results = {executor: evalcore.evaluate(records, [panel], chunk_size=6, cache_mode="off", executor=executor,
                                               judge={"base_url": server.base_url})
                   for executor in ("local", "ray")}
    local, remote = (next(iter(results[e].metrics.values())).details["agreement"] for e in ("local", "ray"))
    assert remote["n"] == 40 and remote["all_agree"] == 0.5  # the judges agree on the 20 even answers
    assert remote == local
