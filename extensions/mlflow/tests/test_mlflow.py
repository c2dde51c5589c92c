"""Runs and comparisons logged to MLflow by evalcore-mlflow's tracker (``--log-to mlflow``,
``evaluate(..., log_to="mlflow")``), read back from a real local MLflow tracking store with
``mlflow.search_runs`` and ``MlflowClient``.

The numbers MLflow holds are checked against what the same run wrote itself (its JSON report, its
rows journal, the comparison's JSON), and the input fingerprint against the file's SHA-256.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import pathlib
import sys

import evalcore
import pytest
from evalcore.testing import run_evalcore
from evalcore_mlflow.keys import mlflow_key, mlflow_keys

mlflow = pytest.importorskip("mlflow")
pytestmark = pytest.mark.mlflow

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
TREC = ["--qrels", str(EXAMPLES / "trec" / "qrels.txt"), "--run", str(EXAMPLES / "trec" / "run.txt")]
UTILITY = "retrieval/utility(weights=[2, -1, 0, 0])"
OVERLAP = ["overlap/token_f1", "overlap/rouge(variant='L')"]


@pytest.fixture
def store(tmp_path, monkeypatch) -> dict[str, str]:
    """A file: tracking store in ``tmp_path``, set as this process's (and the commands') MLflow URI."""
    env = {"MLFLOW_TRACKING_URI": (tmp_path / "mlruns").as_uri(), "MLFLOW_ALLOW_FILE_STORE": "true"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def runs(**kwargs) -> list:
    return mlflow.search_runs(search_all_experiments=True, output_format="list", **kwargs)


def artifacts(run_id: str) -> set[str]:
    return {item.path for item in mlflow.MlflowClient().list_artifacts(run_id)}


def assert_aggregates_logged(data, report: dict) -> None:
    """Each aggregate of a JSON report is in the run's metrics: value, interval bounds, counts."""
    for metric_id, summary in report["metrics"].items():
        key = mlflow_key(metric_id)
        assert data.params[f"metric.{key}.id"] == metric_id
        assert data.params[f"metric.{key}.version"] == summary["metric_version"]
        assert data.metrics[key] == pytest.approx(summary["value"])
        assert data.metrics[f"{key}.ci_low"] == pytest.approx(summary["ci"][0])
        assert data.metrics[f"{key}.ci_high"] == pytest.approx(summary["ci"][1])
        assert data.metrics[f"{key}.stderr"] == pytest.approx(summary["stderr"])
        assert data.metrics[f"{key}.n"] == summary["n"]


def test_metric_ids_become_valid_distinct_mlflow_keys():
    assert mlflow_key("retrieval/ndcg@10") == "retrieval/ndcg_10"
    assert mlflow_key("overlap/rouge(variant='L')") == "overlap/rouge_variant_L"
    assert mlflow_key(UTILITY) == "retrieval/utility_weights_2_-1_0_0"
    assert mlflow_key("checks/file(path='a/../b')") == "checks/file_path_a/__/b"  # no path segment ".."
    keys = mlflow_keys(["retrieval/ndcg@10", "retrieval/ndcg_10"])
    assert keys["retrieval/ndcg@10"] == "retrieval/ndcg_10"
    assert keys["retrieval/ndcg_10"].startswith("retrieval/ndcg_10-") and len(set(keys.values())) == 2


def test_the_command_logs_an_evaluation(store, tmp_path):
    output = tmp_path / "result.json"
    proc = run_evalcore("evaluate", *TREC, "-m", "retrieval/ndcg@10", "-m", UTILITY, "-o", str(output),
                        "--log-to", "mlflow", env=store)
    [run] = runs()
    assert f"logged to MLflow run {run.info.run_id} at {store['MLFLOW_TRACKING_URI']}" in proc.stderr
    assert run.info.status == "FINISHED"
    report = json.loads(output.read_text())
    assert_aggregates_logged(run.data, report)
    params = run.data.params
    assert params["metric.retrieval/utility_weights_2_-1_0_0.id"] == UTILITY
    assert json.loads(params["metric.retrieval/ndcg_10.params"])["k"] == 10
    assert params["options.seed"] == "0" and params["options.n_boot"] == "1000"
    assert params["evalcore_version"] == evalcore.__version__
    for name in ("qrels", "run"):  # the journal header's input fingerprint: each file's SHA-256
        digest = hashlib.sha256((EXAMPLES / "trec" / f"{name}.txt").read_bytes()).hexdigest()
        assert digest in {v for k, v in params.items() if k.startswith("input.")}, name
    assert run.data.metrics["n_records"] == report["provenance"]["n_records"]
    assert run.data.tags["evalcore.command"] == "evaluate"
    assert {"rows.json", "report.html", "result.json", "rows.jsonl"} <= artifacts(run.info.run_id)
    # the rows table holds every record's value, as the journal the run wrote
    table = mlflow.load_table("rows.json", run_ids=[run.info.run_id])
    rows = [json.loads(line) for line in (tmp_path / "result.rows.jsonl").read_text().splitlines()]
    rows = {row["id"]: row["scores"]["retrieval/ndcg@10"]["value"] for row in rows if "id" in row}
    # (MLflow reads the table back through pandas, which turns the ids "301", ... into numbers)
    assert {str(i): v for i, v in zip(table["id"], table["retrieval/ndcg@10"])} == pytest.approx(rows)
    html = pathlib.Path(mlflow.artifacts.download_artifacts(run_id=run.info.run_id, artifact_path="report.html",
                                                            dst_path=str(tmp_path / "down")))
    assert html.read_text().startswith("<!DOCTYPE html>") and "retrieval/ndcg@10" in html.read_text()


def test_evaluate_logs_under_the_active_run_and_a_compare_logs_nested_runs(store, tmp_path):
    with mlflow.start_run(run_name="pipeline") as parent:
        result = evalcore.evaluate(EXAMPLES / "rag.jsonl", OVERLAP, output=tmp_path / "a.json", log_to="mlflow")
    [child] = runs(filter_string=f"tags.mlflow.parentRunId = '{parent.info.run_id}'")
    assert child.info.run_name == "rag.jsonl"
    assert_aggregates_logged(child.data, result.to_dict())
    assert child.data.params["input.sha256"] == hashlib.sha256((EXAMPLES / "rag.jsonl").read_bytes()).hexdigest()
    # the downloaded result.json and rows.jsonl are a saved run that compare reads as the original
    folder = mlflow.artifacts.download_artifacts(run_id=child.info.run_id, dst_path=str(tmp_path / "down"))
    again = evalcore.compare(tmp_path / "a.json", pathlib.Path(folder) / "result.json", tests=["bootstrap"])
    assert all(entry.difference == 0 for entry in again.entries)

    evalcore.evaluate(EXAMPLES / "rag_b.jsonl", OVERLAP, output=tmp_path / "b.json")
    proc = run_evalcore("compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json", "--log-to", "mlflow",
                        env=store)
    comparison = json.loads(proc.stdout)
    [top] = runs(filter_string="tags.`evalcore.command` = 'compare'", order_by=["start_time ASC"], max_results=1)
    assert top.info.run_name == "a vs b" and "mlflow.parentRunId" not in top.data.tags
    assert {"report.html", "comparison.json"} <= artifacts(top.info.run_id)
    assert top.data.params["options.correction"] == "holm"
    [system] = runs(filter_string=f"tags.mlflow.parentRunId = '{top.info.run_id}'")
    assert system.info.run_name == "b" and system.data.params["baseline"] == "a"
    for entry in comparison["comparisons"]:
        key, logged = mlflow_key(entry["metric"]), system.data.metrics
        assert logged[f"{key}.delta"] == pytest.approx(entry["difference"])
        assert logged[f"{key}.delta_ci_low"] == pytest.approx(entry["ci"][0])
        assert logged[f"{key}.delta_ci_high"] == pytest.approx(entry["ci"][1])
        assert logged[f"{key}.baseline"] == pytest.approx(entry["baseline_value"])
        assert logged[f"{key}"] == pytest.approx(entry["system_value"])
        assert logged[f"{key}.p_value"] == pytest.approx(entry["tests"][entry["decided_by"]]["p_adjusted"])
        assert logged[f"{key}.ttest.p_value"] == pytest.approx(entry["tests"]["ttest"]["p_value"])
        assert logged[f"{key}.significant"] == int(entry["significant"])
        assert system.data.tags[f"evalcore.winner.{key}"] == (entry["winner"] or "none")


RECORDS = [{"id": "a", "example": {"reference_answer": "Paris"}, "prediction": {"response": "Paris"}},
           {"id": "b", "example": {"reference_answer": "Rome"}, "prediction": {"response": "in Rome"}}]


def test_aevaluate_logs_too(store):
    result = asyncio.run(evalcore.aevaluate(RECORDS, ["overlap/exact_match"], log_to="mlflow"))
    [run] = runs()
    # one of two responses is exactly the reference ("in Rome" is not "Rome"): 1/2
    assert run.data.metrics["overlap/exact_match"] == result.metrics["overlap/exact_match"].value == 0.5
    assert run.data.params["metric.overlap/exact_match.id"] == "overlap/exact_match"


def test_compare_in_python_logs_nested_runs(store):
    better = [{**r, "prediction": {"response": r["example"]["reference_answer"]}} for r in RECORDS]
    base, new = (evalcore.evaluate(data, ["overlap/exact_match"]) for data in (RECORDS, better))
    comparison = evalcore.compare(base, new, tests=["bootstrap"], log_to="mlflow")
    [top] = runs(filter_string="tags.`evalcore.command` = 'compare'", order_by=["start_time ASC"], max_results=1)
    [child] = runs(filter_string=f"tags.mlflow.parentRunId = '{top.info.run_id}'")
    assert (top.info.run_name, child.info.run_name) == ("baseline vs system 1", "system 1")
    entry = comparison.entry("overlap/exact_match", "system 1")
    assert child.data.metrics["overlap/exact_match.delta"] == entry.difference == 0.5  # 2/2 - 1/2
    logged = child.data.metrics["overlap/exact_match.bootstrap.p_value"]
    assert logged == pytest.approx(entry.tests["bootstrap"].p_value)


def test_a_store_that_cannot_open_stops_the_command_before_the_run(tmp_path):
    (tmp_path / "taken").write_text("a file where the store's folder would go")
    env = {"MLFLOW_TRACKING_URI": (tmp_path / "taken" / "mlruns").as_uri(), "MLFLOW_ALLOW_FILE_STORE": "true"}
    output = tmp_path / "result.json"
    proc = run_evalcore("evaluate", str(EXAMPLES / "rag.jsonl"), "-m", "overlap/token_f1", "-o", str(output),
                        "--log-to", "mlflow", env=env, check=False)
    assert proc.returncode != 0
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: MLflow at {env['MLFLOW_TRACKING_URI']}: ")
    assert not output.exists() and not (tmp_path / "result.rows.jsonl").exists()


def test_without_mlflow_the_error_names_the_extension(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)  # `import mlflow` fails as where it is not installed
    with pytest.raises(evalcore.TrackingError, match=r"logging to MLflow needs mlflow: pip install evalcore-mlflow"):
        evalcore.evaluate(EXAMPLES / "rag.jsonl", ["overlap/token_f1"], output=tmp_path / "r.json", log_to="mlflow")
    assert not (tmp_path / "r.json").exists()  # refused before the run
    unknown = r"log_to: no tracker named 'neptune' is installed \(trackers: .*mlflow"
    with pytest.raises(evalcore.TrackingError, match=unknown):
        evalcore.evaluate(EXAMPLES / "rag.jsonl", ["overlap/token_f1"], log_to="neptune")


def test_a_judged_run_logs_every_setting_that_changes_its_number(store, monkeypatch):
    from evalcore.testing import ScriptedServer

    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedServer() as server:
        asked = [{**r, "example": {**r["example"], "query": "capital of France?"}} for r in RECORDS]
        result = evalcore.evaluate(asked, ["judge/answer_quality"], log_to="mlflow", cache_mode="off",
                                   judge={"base_url": server.base_url, "model": "judge-a"})
    [run] = runs()
    logged = json.loads(run.data.params["metric.judge/answer_quality.params"])
    hashes = {h for row in result.samples for h in row["scores"]["judge/answer_quality"]["details"]
              ["template_hash"].values()}
    assert {k: logged[k] for k in ("backend", "model", "base_url", "temperature", "response_format")} == {
        "backend": "http", "model": "judge-a", "base_url": server.base_url, "temperature": 0.0,
        "response_format": "json_schema"}
    assert logged["prompt_hash"] == ",".join(sorted(hashes))


def test_a_judged_run_logs_its_usage_and_its_stopping_verdict(store, monkeypatch):
    from evalcore.testing import Reply, ScriptedServer, requested_schema, schema_instance

    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)

    def answer(request):
        text = json.dumps(schema_instance(requested_schema(request), number=1))
        return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})

    with ScriptedServer(answer) as server:
        asked = [{**r, "example": {**r["example"], "query": "capital?"}} for r in RECORDS]
        result = evalcore.evaluate(asked, ["judge/answer_quality"], log_to="mlflow", cache_mode="off",
                                   max_errors=1, judge={"base_url": server.base_url, "model": "judge-a"})
    [run] = runs()
    metrics, key = run.data.metrics, mlflow_key("judge/answer_quality")
    # one call per record, each answered with 10 prompt and 5 completion tokens, none from the cache
    expected = {"calls": 2, "cached_calls": 0, "prompt_tokens": 20, "completion_tokens": 10}
    assert {f: metrics[f"usage.{f}"] for f in expected} == expected
    assert {f: metrics[f"{key}.usage.{f}"] for f in expected} == expected
    assert metrics["usage.cost_msats"] == result.usage["cost_msats"] == metrics[f"{key}.usage.cost_msats"]
    # max_errors=1 with no error: the rule's outcome and its text are tags
    assert run.data.tags["evalcore.verdict.max_errors"] == "within"
    assert run.data.tags["evalcore.verdict.max_errors.text"] == "error limit not reached: 0 errors (max_errors=1)"
    assert not any(name.startswith("evalcore.verdict.budget") for name in run.data.tags)
