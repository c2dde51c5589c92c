"""A third party's executor, tracker and command (plugin API 2), built as a wheel, installed and used
through the command line exactly as evalcore's own."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "evalcore-acme-ops"


@pytest.fixture(scope="module")
def acme_ops(install_fixture):
    """evalcore-acme-ops installed into a folder of its own: ``{"PYTHONPATH": folder}``."""
    return install_fixture("evalcore-acme-ops")


@pytest.fixture
def data(tmp_path):
    records = [{"id": str(i), "example": {"reference_answer": "Paris"},
                "prediction": {"response": "Paris" if i % 3 else "Lyon"}} for i in range(7)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_plugin_lists_its_components(acme_ops, evalcore_cli):
    plugins = {p["name"]: p for p in json.loads(evalcore_cli("plugins", "--json", env=acme_ops).stdout)}
    ops = plugins["acme_ops"]
    assert (ops["status"], ops["api_version"]) == ("loaded", 2)
    assert (ops["executors"], ops["trackers"], ops["commands"]) == (["serial"], ["ledger"], ["ledger"])
    assert plugins["overlap"]["api_version"] == 1  # a version-1 plugin loads beside it, unchanged
    shown = evalcore_cli("plugins", env=acme_ops).stdout
    assert "1 executor, 1 tracker, 1 command" in shown
    assert "ledger" in evalcore_cli("--help", env=acme_ops).stdout


def test_its_executor_tracker_and_command_work_through_the_cli(acme_ops, evalcore_cli, data, tmp_path):
    local = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", "--chunk-size", "2", "--json")
    assert local.returncode == 0, local.stderr
    ledger = tmp_path / "ledger.jsonl"
    proc = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", "--chunk-size", "2", "--json",
                        "--executor", "serial", "--serial-workers", "2", "--log-to", "ledger", "--ledger-file",
                        str(ledger), env=acme_ops)
    assert proc.returncode == 0, proc.stderr
    report, expected = json.loads(proc.stdout), json.loads(local.stdout)
    assert report["provenance"]["executor"] == "serial"
    assert report["metrics"]["overlap/exact_match"] == expected["metrics"]["overlap/exact_match"]
    assert report["metrics"]["overlap/exact_match"]["value"] == pytest.approx(4 / 7)  # ids 1, 2, 4, 5 say Paris
    assert f"logged to the ledger {ledger}" in proc.stderr
    [entry] = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert entry == {"input": str(data), "executor": "serial", "metrics": {"overlap/exact_match": 4 / 7}}

    listed = evalcore_cli("ledger", str(ledger), env=acme_ops)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == "run 1 (serial): overlap/exact_match=0.5714\n"


def test_the_python_api_reaches_the_same_components(acme_ops, data, tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    script = (
        "import evalcore, sys\n"
        f"r = evalcore.evaluate({str(data)!r}, ['overlap/exact_match'], executor='serial', serial_workers=1,\n"
        f"                      log_to='ledger', tracker_options={{'file': {str(ledger)!r}}})\n"
        "print(r.metrics['overlap/exact_match'].value, r.provenance['executor'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **acme_ops}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(4 / 7), "serial"]
    assert json.loads(ledger.read_text())["executor"] == "serial"


@pytest.mark.parametrize(("args", "message"), [
    (["--executor", "nowhere"], "error: executor: no executor named 'nowhere' is installed (executors: serial)"),
    (["--log-to", "nowhere"], "error: log_to: no tracker named 'nowhere' is installed (trackers: ledger)"),
    (["--serial-workers", "2"], "error: --serial-workers is an option of the serial executor (--executor serial)"),
    (["--ledger-file", "x.jsonl"], "error: --ledger-file is an option of the ledger tracker (--log-to ledger)"),
    (["--log-to", "ledger"], "error: the ledger tracker needs --ledger-file"),
])
def test_a_wrong_component_or_option_is_one_line_before_any_scoring(acme_ops, evalcore_cli, data, args, message):
    proc = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", *args, env=acme_ops)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [message]


def test_the_plugin_passes_the_conformance_kit(acme_ops, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:deepeval",
                           str(FIXTURE / "tests")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, **acme_ops})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "6 passed" in proc.stdout


def test_new_plugin_refuses_an_installed_plugins_namespace(tmp_path, evalcore_cli):
    taken = evalcore_cli("new-plugin", "retrieval", "--dir", str(tmp_path))
    assert taken.returncode == 2
    assert taken.stderr.strip() == ("error: new-plugin: the namespace 'retrieval' belongs to an installed plugin; "
                                    "choose another name")
    assert not (tmp_path / "evalcore-retrieval").exists()
