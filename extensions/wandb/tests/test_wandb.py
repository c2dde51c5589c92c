"""Runs logged to W&B offline by evalcore-wandb's tracker (``--log-to wandb``, ``evaluate(..., log_to="wandb")``),
read back from the run folder W&B wrote: its ``.wandb`` file (the records W&B would upload, read
with W&B's own protobuf messages) and the rows table beside it.

The numbers W&B holds are checked against what the same run wrote itself (its JSON report and its
rows journal), and the input fingerprint against the file's SHA-256.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import struct

import evalcore
import pytest
from evalcore.testing import run_evalcore

wandb = pytest.importorskip("wandb")
pytestmark = pytest.mark.wandb

from wandb.proto import wandb_internal_pb2  # noqa: E402 - only where wandb is installed

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
OVERLAP = ["overlap/token_f1", "overlap/exact_match"]
RECORDS = [{"id": "a", "example": {"reference_answer": "Paris"}, "prediction": {"response": "Paris"}},
           {"id": "b", "example": {"reference_answer": "Rome"}, "prediction": {"response": "in Rome"}}]
BLOCK, HEADER = 32768, 7  # the .wandb file is a LevelDB log: 32 KiB blocks of records with 7-byte headers


@pytest.fixture(autouse=True)
def wandb_folders(tmp_path, monkeypatch) -> None:
    """W&B's cache, staging and settings folders in ``tmp_path`` (for this process and the commands)."""
    for name in ("WANDB_CACHE_DIR", "WANDB_DATA_DIR", "WANDB_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))


def records(run_folder: pathlib.Path) -> list:
    """The records of the run's ``.wandb`` file (after its header ``:W&B`` + magic + version)."""
    [path] = run_folder.glob("run-*.wandb")
    data = path.read_bytes()
    assert data[:4] == b":W&B"
    found, pending, pos = [], b"", HEADER
    while pos + HEADER <= len(data):
        room = BLOCK - pos % BLOCK
        _, length, kind = struct.unpack("<IHB", data[pos:pos + HEADER])
        if room < HEADER or (kind, length) == (0, 0):  # the rest of a block is padding
            pos += room
            continue
        pending += data[pos + HEADER:pos + HEADER + length]
        pos += HEADER + length
        if kind in (1, 4):  # a full record, or the last piece of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            found.append(record)
            pending = b""
    return found


def logged(run_folder: pathlib.Path) -> dict:
    """The run as W&B recorded it: ``run`` (its record), ``config``, ``summary``, ``artifacts``."""
    run, config, summary, artifacts = None, {}, {}, {}
    for record in records(run_folder):
        kind = record.WhichOneof("record_type")
        if kind == "run":
            run = record.run
            config |= {item.key: json.loads(item.value_json) for item in record.run.config.update}
        elif kind == "summary":
            for item in record.summary.update:
                key = item.key or "/".join(item.nested_key)
                summary[key] = json.loads(item.value_json)
        elif kind == "artifact":
            artifacts[record.artifact.type] = record.artifact
    return {"run": run, "config": config, "summary": summary, "artifacts": artifacts}


def the_run(folder: pathlib.Path) -> pathlib.Path:
    [run_folder] = (folder / "wandb").glob("offline-run-*")
    return run_folder


def assert_aggregates_logged(summary: dict, report: dict) -> None:
    """Each aggregate of a JSON report is in the run's summary: value, interval bounds, error, counts."""
    for metric_id, aggregate in report["metrics"].items():
        metric = summary[metric_id]
        assert metric["value"] == pytest.approx(aggregate["value"])
        assert [metric["ci_low"], metric["ci_high"]] == pytest.approx(aggregate["ci"])
        assert metric["stderr"] == pytest.approx(aggregate["stderr"])
        assert (metric["n"], metric["n_errors"]) == (aggregate["n"], aggregate["n_errors"])


def test_the_command_logs_an_evaluation_offline(tmp_path):
    output, folder = tmp_path / "result.json", tmp_path / "wb"
    proc = run_evalcore("evaluate", str(EXAMPLES / "rag.jsonl"), *(f"-m{m}" for m in OVERLAP), "-o", str(output),
                        "--log-to", "wandb", "--wandb-dir", str(folder), "--wandb-project", "nightly")
    run_folder = the_run(folder)
    found = logged(run_folder)
    run = found["run"]
    assert proc.stderr.strip().splitlines()[-1] == f"logged to W&B run {run.run_id} (offline) in {run_folder}"
    assert (run.project, run.display_name) == ("nightly", "rag.jsonl")
    report = json.loads(output.read_text())
    assert_aggregates_logged(found["summary"], report)
    assert found["summary"]["n_records"] == report["provenance"]["n_records"] == 12
    config = found["config"]
    assert config["evalcore_version"] == evalcore.__version__
    assert config["input"] == str(EXAMPLES / "rag.jsonl")
    assert config["input_fingerprint"]["sha256"] == hashlib.sha256((EXAMPLES / "rag.jsonl").read_bytes()).hexdigest()
    assert (config["options"]["seed"], config["options"]["n_boot"]) == (0, 1000)
    for metric_id, aggregate in report["metrics"].items():
        about, provenance = config["metrics"][metric_id], report["provenance"]["metrics"][metric_id]
        assert about["version"] == aggregate["metric_version"]
        assert about["distribution"] == f"evalcore-overlap=={provenance['distribution_version']}"
        assert isinstance(about["params"], dict)
    # the rows table holds every record's value, as the journal the run wrote
    [table_file] = (run_folder / "files" / "media" / "table").glob("rows_*.table.json")
    table = json.loads(table_file.read_text())
    column = table["columns"].index("overlap/token_f1")
    values = {row[0]: row[column] for row in table["data"]}
    journal = [json.loads(line) for line in (tmp_path / "result.rows.jsonl").read_text().splitlines()]
    assert values == pytest.approx({row["id"]: row["scores"]["overlap/token_f1"]["value"]
                                    for row in journal if "id" in row})
    # the HTML report is an artifact file, staged for `wandb sync`
    [entry] = found["artifacts"]["evalcore-report"].manifest.contents
    assert entry.path == "report.html"
    html = pathlib.Path(entry.local_path).read_text()
    assert html.startswith("<!DOCTYPE html>") and "overlap/token_f1" in html


def test_evaluate_in_python_takes_the_tracker_options(tmp_path):
    result = evalcore.evaluate(RECORDS, ["overlap/exact_match"], log_to="wandb", tracker_options={"dir": str(tmp_path)})
    summary = logged(the_run(tmp_path))["summary"]
    # one of two responses is exactly the reference ("in Rome" is not "Rome"): 1/2
    assert summary["overlap/exact_match"]["value"] == result.metrics["overlap/exact_match"].value == 0.5


def test_a_folder_that_cannot_be_made_stops_the_command_before_the_run(tmp_path):
    (tmp_path / "taken").write_text("a file where the run's folder would go")
    output = tmp_path / "result.json"
    proc = run_evalcore("evaluate", str(EXAMPLES / "rag.jsonl"), "-m", "overlap/token_f1", "-o", str(output),
                        "--log-to", "wandb", "--wandb-dir", str(tmp_path / "taken" / "wb"), check=False)
    assert proc.returncode != 0
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: W&B folder {tmp_path / 'taken' / 'wb'}: ")
    assert not output.exists() and not (tmp_path / "result.rows.jsonl").exists()


def test_a_mode_w_and_b_has_not_is_refused_before_the_run():
    with pytest.raises(evalcore.TrackingError, match="--wandb-mode: offline or online; got 'cloud'"):
        evalcore.evaluate(RECORDS, ["overlap/exact_match"], log_to="wandb", tracker_options={"mode": "cloud"})


def test_a_judged_run_logs_its_usage_and_its_stopping_verdict(tmp_path, monkeypatch):
    from evalcore.testing import Reply, ScriptedServer, requested_schema, schema_instance

    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)

    def answer(request):
        text = json.dumps(schema_instance(requested_schema(request), number=1))
        return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})

    with ScriptedServer(answer) as server:
        asked = [{**r, "example": {**r["example"], "query": "capital?"}} for r in RECORDS]
        result = evalcore.evaluate(asked, ["judge/answer_quality"], log_to="wandb", cache_mode="off", max_errors=1,
                                   tracker_options={"dir": str(tmp_path)},
                                   judge={"base_url": server.base_url, "model": "judge-a"})
    summary = logged(the_run(tmp_path))["summary"]
    # one call per record, each answered with 10 prompt and 5 completion tokens, none from the cache
    expected = {"calls": 2, "cached_calls": 0, "prompt_tokens": 20, "completion_tokens": 10,
                "cost_msats": result.usage["cost_msats"]}
    assert summary["usage"] == expected
    assert summary["judge/answer_quality"]["usage"] == expected
    # max_errors=1 with no error: the rule's outcome and its text
    assert summary["verdict"] == {"max_errors": {"outcome": "within",
                                                 "text": "error limit not reached: 0 errors (max_errors=1)"}}
