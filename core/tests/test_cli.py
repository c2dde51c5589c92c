"""The CLI end to end, in a subprocess that discovers a plugin through its distribution."""

import hashlib
import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def cli(make_distribution, toy_plugin, site, tmp_path):
    make_distribution("evalcore-toy", "1.2", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))

    def run(*args, expect=0, **environ):
        env = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": "", **environ}
        proc = subprocess.run([sys.executable, "-m", "evalcore", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=60)
        assert proc.returncode == expect, proc.stdout + proc.stderr
        return proc

    return run


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


GOOD = json.dumps({"id": "q1", "example": {"reference_answer": "paris is nice"},
                   "prediction": {"response": "paris is big"}})


def test_list_describe_plugins(cli):
    listed = json.loads(cli("list", "--json").stdout)
    [entry] = [e for e in listed if e["namespace"] == "toy"]
    assert {k: entry[k] for k in ("id", "name", "distribution", "version", "family")} == \
        {"id": "toy/overlap@3", "name": "overlap", "distribution": "evalcore-toy", "version": "1.2",
         "family": "toy"}
    assert {"summary", "direction", "range", "params"} <= set(entry)
    assert "toy/overlap@3" in cli("list").stdout
    described = json.loads(cli("describe", "overlap", "--json").stdout)
    assert described["params"][0]["name"] == "k"
    plugins = json.loads(cli("plugins", "--json").stdout)
    toy = next(p for p in plugins if p["name"] == "toy")
    assert (toy["distribution"], toy["version"], toy["status"], toy["error"]) == ("evalcore-toy", "1.2", "loaded", None)


def test_evaluate_writes_json_samples_and_csv(cli, tmp_path):
    data = write(tmp_path, "data.jsonl", [GOOD])
    proc = cli("evaluate", data, "-m", "toy/overlap", "-o", "out.json", "--samples", "rows.jsonl", "--csv", "rows.csv")
    assert "toy/overlap@3" in proc.stdout and "95% CI" in proc.stdout
    report = json.loads((tmp_path / "out.json").read_text())
    summary = report["metrics"]["toy/overlap@3"]
    # by hand: first 3 response words "paris is big", two of them in the reference -> 2/3
    assert summary["value"] == pytest.approx(2 / 3) and summary["n"] == 1
    assert {"n_skipped", "n_errors", "stderr", "ci"} <= set(summary)
    assert report["samples_file"] == "rows.jsonl"
    assert report["provenance"]["metrics"]["toy/overlap@3"]["distribution"] == "evalcore-toy"
    lines = (tmp_path / "rows.jsonl").read_bytes().splitlines(keepends=True)
    header, row, checkpoint = (json.loads(line) for line in lines)
    assert header["fingerprint"]["metrics"] == {"toy/overlap@3": "1"} and header["evalcore_journal"] == 2
    # the checkpoint holds the SHA-256 of every byte before it
    assert checkpoint == {"chunk": 0, "rows": 1, "sha256": hashlib.sha256(b"".join(lines[:2])).hexdigest()}
    assert row["id"] == "q1" and row["scores"]["toy/overlap@3"]["status"] == "ok"


def test_plugin_failures_are_listed_and_strict_mode_fails(cli, make_distribution):
    make_distribution("evalcore-broken", plugins={"broken": "broken_pkg._register"},
                      modules={"broken_pkg._register": "raise ImportError('missing dependency foo')"})
    assert "toy/overlap@3" in cli("list").stdout
    plugins = {p["name"]: p for p in json.loads(cli("plugins", "--json").stdout)}
    assert plugins["broken"]["status"] == "import_error"
    assert plugins["broken"]["error"] == "ImportError: missing dependency foo"
    proc = cli("--strict", "list", expect=2)
    assert "plugin 'broken' from evalcore-broken: import_error" in proc.stderr


BAD_INPUTS = [
    ("malformed JSON line", [GOOD, '{"id": "q2", "example": '], "data.jsonl:2", "malformed JSON"),
    ("missing example", [GOOD, '{"id": "q2", "prediction": {}}'], "data.jsonl:2 (record 'q2'): example",
     "missing field 'example'"),
    ("missing prediction", [GOOD, '{"id": "q2", "example": {}}'], "data.jsonl:2 (record 'q2'): prediction",
     "missing field 'prediction'"),
    ("retrieved not a list", [GOOD, '{"id": "q2", "example": {}, "prediction": {"retrieved": "d1"}}'],
     "(record 'q2'): prediction.retrieved", "must be a list"),
    ("doc without doc_id", [GOOD, '{"id": "q2", "example": {}, "prediction": {"retrieved": [{"score": 1}]}}'],
     "(record 'q2'): prediction.retrieved[0].doc_id", "missing doc_id"),
    ("non-numeric score",
     [GOOD, '{"id": "q2", "example": {}, "prediction": {"retrieved": [{"doc_id": "d", "score": "high"}]}}'],
     "(record 'q2'): prediction.retrieved[0].score", "must be a number, got 'high'"),
]


@pytest.mark.parametrize(("case", "lines", "where", "message"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_records_are_named_and_the_rest_still_evaluated(cli, tmp_path, case, lines, where, message):
    data = write(tmp_path, "data.jsonl", lines)
    proc = cli("evaluate", data, "-m", "toy/overlap", "-o", "out.json", "--samples", "rows.jsonl", expect=1)
    assert where in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows if "id" in r] == ["q1"] and len(report["rejected"]) == 1


def test_malformed_trec_line(cli, tmp_path):
    qrels = write(tmp_path, "qrels", ["q1 0 d1 1", "q1 0 d2"])
    run = write(tmp_path, "run", ["q1 Q0 d1 1 2.5 tag"])
    proc = cli("evaluate", "--qrels", qrels, "--run", run, "-m", "toy/overlap", expect=2)
    assert f"{qrels}:2" in proc.stderr and "columns" in proc.stderr and "expected 4 columns" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("metric", "message"), [
    ("toy/overlop", "unknown metric 'toy/overlop'; did you mean 'toy/overlap'?"),
    ("toy/overlap@0", "parameter 'k' of toy/overlap must be >= 1; got 0"),
    ("toy/overlap(k='ten')", "parameter 'k' of toy/overlap must be an integer; got 'ten'"),
    ("toy/overlap@ten", "must be a literal"),
])
def test_bad_metric_ids_and_parameters(cli, tmp_path, metric, message):
    data = write(tmp_path, "data.jsonl", [GOOD])
    proc = cli("evaluate", data, "-m", metric, expect=2)
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_empty_input_file(cli, tmp_path):
    data = write(tmp_path, "empty.jsonl", [])
    proc = cli("evaluate", data, "-m", "toy/overlap", expect=2)
    assert f"{data}: no records: the file is empty" in proc.stderr


def test_without_o_the_rows_are_kept_in_the_temporary_folder_and_named(cli, tmp_path):
    """Without -o or --samples the command keeps its rows in a new journal in the temporary folder and
    says where; a run that fails before any record is scored leaves nothing behind."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    empty = write(tmp_path, "empty.jsonl", [])
    bad = write(tmp_path, "bad.jsonl", ["{not json"])
    cli("evaluate", empty, "-m", "toy/overlap", expect=2, TMPDIR=str(scratch))
    cli("evaluate", bad, "-m", "toy/overlap", expect=2, TMPDIR=str(scratch))
    assert [p.name for p in scratch.iterdir()] == []
    proc = cli("evaluate", write(tmp_path, "data.jsonl", [GOOD]), "-m", "toy/overlap", TMPDIR=str(scratch))
    (journal,) = scratch.iterdir()
    assert journal.name.startswith("evalcore-run-") and journal.name.endswith(".rows.jsonl")
    assert f"1 records from {tmp_path / 'data.jsonl'}; rows in {journal}" in proc.stdout
    report = json.loads(cli("evaluate", str(tmp_path / "data.jsonl"), "-m", "toy/overlap", "--json",
                            TMPDIR=str(scratch)).stdout)
    assert report["samples_file"] != str(journal) and os.path.isfile(report["samples_file"])
    cli("report", report["samples_file"], "-o", "page.html", TMPDIR=str(scratch))
    assert "1 records from" in (tmp_path / "page.html").read_text()


def test_debug_shows_the_traceback(cli, tmp_path):
    data = write(tmp_path, "data.jsonl", [GOOD])
    proc = cli("--debug", "evaluate", data, "-m", "toy/overlop", expect=1)
    assert "Traceback" in proc.stderr and "UnknownMetricError" in proc.stderr


def test_dry_run_calls_nothing(cli, tmp_path):
    data = write(tmp_path, "data.jsonl", [GOOD])
    proc = cli("evaluate", data, "-m", "toy/overlap", "--dry-run", "--json")
    [row] = json.loads(proc.stdout)
    assert row == {"metric": "toy/overlap@3", "records": 1, "calls": 0, "prompt_tokens": 0,
                   "completion_tokens": 0, "cost_msats": 0}


def test_calibrate_against_human_labels(cli, tmp_path):
    def record(rid, response, label):
        return json.dumps({"id": rid, "example": {"reference_answer": "a b c"}, "prediction": {"response": response},
                           "label": label})

    data = write(tmp_path, "labels.jsonl", [record("1", "a b", True), record("2", "x y", False),
                                            record("3", "z", True)])
    report = json.loads(cli("calibrate", data, "-m", "toy/overlap", "--json").stdout)
    # metric pass/fail (value 1.0 passes): [True, False, False] vs human [True, False, True]
    # agreement 2/3; chance agreement 2/3*1/3 + 1/3*2/3 = 4/9; kappa = (2/3 - 4/9) / (1 - 4/9) = 0.4
    assert report["n"] == 3 and report["agreement"] == pytest.approx(2 / 3)
    assert report["kappa"] == pytest.approx(0.4)
    assert report["confusion"] == [[1, 0], [1, 1]]  # rows human False/True, columns metric False/True


@pytest.mark.parametrize(("records", "message"), [
    # a label that is neither true/false nor a number: named by file, line and field
    ([("1", {"response": "a b"}, True), ("2", {"response": "x"}, "good")],
     "labels.jsonl:2: label: 'good' is neither true/false nor a number"),
    # a metric that fails on every labelled pair (no response): its id and the first failure
    ([("1", {}, True), ("2", {}, False)],
     "toy/overlap@3 scored none of the 2 labelled samples (0 skipped, 2 errors; the first: KeyError: 'response')"),
])
def test_calibrate_errors_print_one_line(cli, tmp_path, records, message):
    lines = [json.dumps({"id": rid, "example": {"reference_answer": "a b c"}, "prediction": prediction, "label": label})
             for rid, prediction, label in records]
    data = write(tmp_path, "labels.jsonl", lines)
    proc = cli("calibrate", data, "-m", "toy/overlap", expect=2)
    [line] = proc.stderr.splitlines()
    assert line.startswith("error: ") and message in line
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_records_from_standard_input(make_distribution, toy_plugin, site, tmp_path):
    make_distribution("evalcore-toy", "1.2", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    env = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": ""}
    proc = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "-", "-m", "toy/overlap", "--json"],
                          input=GOOD + "\n", capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["metrics"]["toy/overlap@3"]["n"] == 1 and report["provenance"]["input"] == "<stdin>"


@pytest.mark.parametrize("args", [["list"], ["list", "--no-cache"], ["describe", "toy/overlap"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(make_distribution, toy_plugin, site, tmp_path, args):
    """``evalcore list | head``: a closed pipe ends the command as SIGPIPE ends Unix tools, no error text."""
    make_distribution("evalcore-toy", "1.2", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    env = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": ""}
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write of the command now fails with EPIPE
    try:
        proc = subprocess.run([sys.executable, "-m", "evalcore", *args], stdout=write_end, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=tmp_path, timeout=60)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, "")


@pytest.mark.parametrize("given", ["acme-bar", "acme_bar", "evalcore-acme-bar"])
def test_new_plugin_takes_a_dashed_name(cli, tmp_path, given):
    made = cli("new-plugin", given, "--dir", str(tmp_path))
    assert made.returncode == 0, made.stderr
    root = tmp_path / "evalcore-acme-bar"
    assert "namespace acme_bar" in made.stdout
    pyproject = (root / "pyproject.toml").read_text()
    assert 'name = "evalcore-acme-bar"' in pyproject and 'acme_bar = "evalcore_acme_bar._register"' in pyproject
    assert (root / "src" / "evalcore_acme_bar" / "_register.py").is_file()


@pytest.mark.parametrize(("metric", "message"), [
    ("overlap@", "parameter 'k' in metric id 'overlap@' must be a literal; got ''; did you mean 'toy/overlap'"),
    ("toy/overlap(k=", "cannot parse metric id 'toy/overlap(k='; expected"),
    ("overlap)", "cannot parse metric id 'overlap)'; expected"),
    ("Overlop", "unknown metric 'Overlop'; did you mean 'toy/overlap'"),
])
def test_an_id_that_does_not_parse_or_match_is_one_error_line_with_the_closest_ids(cli, tmp_path, metric, message):
    data = write(tmp_path, "data.jsonl", [GOOD])
    proc = cli("evaluate", data, "-m", metric, expect=2)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {message}"), lines
    assert "did you mean 'toy/overlap'" in lines[0]


def test_names_resolve_ignoring_case(cli, tmp_path):
    assert cli("describe", "TOY/Overlap@2").stdout.startswith("toy/overlap@2  ")
    data = write(tmp_path, "data.jsonl", [GOOD])
    report = json.loads(cli("evaluate", data, "-m", "OVERLAP", "--json").stdout)
    assert list(report["metrics"]) == ["toy/overlap@3"]


PROBE = """import atexit, gc, sys
atexit.register(lambda: print("collector on", gc.isenabled(), "frozen", gc.get_freeze_count() > 0, file=sys.stderr))
sys.argv = ["evalcore", *sys.argv[1:]]
from evalcore._cli.main import run
run()
"""


def test_the_script_pauses_the_collector_while_a_command_starts_and_resumes_it(cli, site, tmp_path):
    """The console script (``run``) pauses the garbage collector while a command loads; evaluate
    resumes it once it has loaded what it needs (kept out of the collector's sight), every other
    command before it runs; the results are those of the command with the collector left alone."""
    data = write(tmp_path, "data.jsonl", [GOOD])
    env = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": ""}

    def probe(*args):
        proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout, proc.stderr.splitlines()[-1]

    out, state = probe("evaluate", data, "-m", "toy/overlap", "-o", "probed.json")
    assert state == "collector on True frozen True"
    plain = "import sys; from evalcore._cli.main import main; main(sys.argv[1:])"  # the collector left alone
    subprocess.run([sys.executable, "-c", plain, "evaluate", data, "-m", "toy/overlap", "-o", "plain.json"],
                   check=True, capture_output=True, env=env, cwd=tmp_path, timeout=60)
    probed, plain = (json.loads((tmp_path / name).read_text())["metrics"] for name in ("probed.json", "plain.json"))
    assert probed == plain
    out, state = probe("list", "--json")
    assert state == "collector on True frozen False"
    assert json.loads(out) == json.loads(cli("list", "--json").stdout)
