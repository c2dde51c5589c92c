"""The files of a run: rows always kept beside the report, never written over another run's journal,
an input or a special file; outputs whole or not at all; journals checked when read."""

from __future__ import annotations

import fcntl
import gc
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import time
import warnings

import attrs
import evalcore
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.testing import write_journal

METRIC = "overlap/exact_match"
SLOW = '''
import time

def predict(example):
    time.sleep(0.02)
    return {"response": example["reference_answer"]}
'''


def _records(path, n=30, *, right_every=3, start=0):
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(start, start + n):
            handle.write(json.dumps({"id": f"r{i}", "example": {"query": "q", "reference_answer": "yes"},
                                     "prediction": {"response": "yes" if i % right_every else "no"}}) + "\n")
    return path


def cli(folder, *args, expect=0, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "evalcore", *map(str, args)], cwd=folder, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(folder)})
    assert proc.returncode == expect, proc.stdout + proc.stderr
    return proc


def _ids(journal):
    return [json.loads(line)["id"] for line in journal.read_text().splitlines() if line.startswith('{"id"')]


@pytest.fixture
def data(tmp_path):
    _records(tmp_path / "a.jsonl")
    _records(tmp_path / "b.jsonl", right_every=2)
    return tmp_path


# -- every run keeps its rows ------------------------------------------------------------


def test_the_journal_goes_beside_the_report_and_compare_and_report_read_it(data):
    out = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "a.json", "--no-progress").stdout
    cli(data, "evaluate", "b.jsonl", "-m", METRIC, "-o", "b.json", "--no-progress")
    assert "30 records from a.jsonl; rows in a.rows.jsonl" in out
    report = json.loads((data / "a.json").read_text())
    assert report["samples_file"] == "a.rows.jsonl" and len(_ids(data / "a.rows.jsonl")) == 30
    compared = json.loads(cli(data, "compare", "a.json", "b.json", "--json").stdout)
    assert compared["records"]["systems"]["b"] == {"n": 30, "only_in_baseline": 0, "only_in_system": 0}
    cli(data, "report", "a.json", "--compare", "b.json", "-o", "page.html")
    assert "30 records from a.json" in (data / "page.html").read_text()


def test_python_callers_get_the_journal_beside_the_report_or_a_temporary_one(data):
    result = evalcore.evaluate(data / "a.jsonl", [METRIC], output=data / "r.json", progress=False)
    assert result.samples_path == data / "r.rows.jsonl" and len(_ids(data / "r.rows.jsonl")) == 30
    assert json.loads((data / "r.json").read_text())["samples_file"] == "r.rows.jsonl"
    only_csv = evalcore.evaluate(data / "a.jsonl", [METRIC], csv=data / "values.csv", progress=False)
    assert only_csv.samples_path == data / "values.rows.jsonl"
    temporary = evalcore.evaluate(data / "a.jsonl", [METRIC], progress=False)
    path = temporary.samples_path
    assert len(temporary.samples) == 30 and path.exists() and path.parent != data
    copy = attrs.evolve(temporary, logged_to="somewhere")  # as a tracker's result is returned
    del temporary
    gc.collect()
    assert path.exists() and len(copy.samples) == 30  # the copy still reads its rows
    del copy
    gc.collect()
    assert not path.exists()


# -- another run's journal ---------------------------------------------------------------


def test_another_runs_journal_is_refused_then_replaced_with_overwrite(data):
    cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--no-progress")
    before = (data / "r.rows.jsonl").read_bytes(), (data / "r.json").read_bytes()
    refused = cli(data, "evaluate", "b.jsonl", "-m", METRIC, "-o", "r.json", "--no-progress", expect=2)
    message = refused.stderr.strip()
    assert message.count("\n") == 0 and message.startswith("error: r.rows.jsonl holds the rows of another run")
    assert "input.sha256 was" in message and "--overwrite" in message and "--resume" in message
    assert "another path" in message
    assert ((data / "r.rows.jsonl").read_bytes(), (data / "r.json").read_bytes()) == before
    cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--no-progress")  # the same run again: allowed
    cli(data, "evaluate", "b.jsonl", "-m", METRIC, "-o", "r.json", "--no-progress", "--overwrite")
    header = json.loads((data / "r.rows.jsonl").read_text().splitlines()[0])
    assert header["fingerprint"]["input"]["path"].endswith("b.jsonl")
    assert json.loads((data / "r.json").read_text())["metrics"][METRIC]["value"] == pytest.approx(0.5)


def test_a_file_that_is_not_a_journal_is_not_written_over(data):
    notes = data / "notes.jsonl"
    notes.write_text('{"my": "own data"}\n')
    refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "--samples", "notes.jsonl", "--no-progress", expect=2)
    assert "notes.jsonl exists and is not an evalcore journal; --overwrite replaces it" in refused.stderr
    assert notes.read_text() == '{"my": "own data"}\n'
    with pytest.raises(evalcore.EvalcoreError, match="is not an evalcore journal"):
        evalcore.evaluate(data / "a.jsonl", [METRIC], samples=notes, progress=False)
    evalcore.evaluate(data / "a.jsonl", [METRIC], samples=notes, overwrite=True, progress=False)
    assert len(_ids(notes)) == 30


def test_two_writers_of_one_journal_the_second_fails_at_once(data):
    _records(data / "many.jsonl", 400)
    (data / "slow.py").write_text(SLOW)
    command = [sys.executable, "-m", "evalcore", "evaluate", "many.jsonl", "-m", METRIC, "--program", "slow:predict",
               "--samples", "rows.jsonl", "--chunk-size", "20", "--concurrency", "1", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(data)}
    first = subprocess.Popen(command, cwd=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    journal, deadline = data / "rows.jsonl", time.monotonic() + 60
    while time.monotonic() < deadline and not (journal.exists() and b'{"id"' in journal.read_bytes()):
        time.sleep(0.02)
    second = subprocess.run(command, cwd=data, capture_output=True, text=True, env=env, timeout=60)
    still_running = first.poll() is None
    out, err = first.communicate(timeout=120)
    assert second.returncode == 2 and still_running, (second.stderr, err)
    assert second.stderr.strip() == ("error: rows.jsonl is being written by another evalcore run; wait for it to "
                                     "finish, or give another path (--samples, -o)")
    assert first.returncode == 0, err
    ids = _ids(data / "rows.jsonl")
    assert len(ids) == len(set(ids)) == 400


def test_a_locked_journal_is_refused_through_the_python_api(data):
    (data / "rows.jsonl").touch()
    with open(data / "rows.jsonl", "rb") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        with pytest.raises(evalcore.EvalcoreError, match="being written by another evalcore run"):
            evalcore.evaluate(data / "a.jsonl", [METRIC], samples=data / "rows.jsonl", progress=False)
    evalcore.evaluate(data / "a.jsonl", [METRIC], samples=data / "rows.jsonl", progress=False)  # released


# -- outputs never over inputs or special files ------------------------------------------


def test_report_refuses_to_write_over_its_inputs_and_their_journal(data):
    cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--no-progress")
    cli(data, "evaluate", "b.jsonl", "-m", METRIC, "-o", "s.json", "--no-progress")
    before = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
    cases = [(["r.json", "-o", "r.json"], "-o r.json is an input of this report (the run r.json)"),
             (["r.json", "-o", "r.rows.jsonl"],
              "-o r.rows.jsonl is an input of this report (the journal r.json names)"),
             (["r.json", "--compare", "s.json", "-o", "s.rows.jsonl"], "(the journal s.json names)"),
             (["r.rows.jsonl", "-o", "./r.rows.jsonl"], "(the run r.rows.jsonl)")]
    for args, message in cases:
        refused = cli(data, "report", *args, expect=2)
        assert message in refused.stderr and "it would be overwritten" in refused.stderr
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} == before
    from evalcore import write_report

    with pytest.raises(evalcore.EvalcoreError, match="is an input of this report"):
        write_report(str(data / "r.json"), data / "r.rows.jsonl")


@pytest.mark.parametrize("flag", ["-o", "--csv", "--samples", "--per-query"])
def test_special_files_are_refused_as_outputs(data, flag):
    os.mkfifo(data / "fifo")
    for target in ("/dev/null", "fifo"):
        refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, flag, target, "--no-progress", expect=2, timeout=60)
        assert f"{flag if flag != '-o' else '--output'} {target} is not a regular file" in refused.stderr
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    write_journal(data / "j.jsonl", {"r0": {METRIC: 1.0}})
    report = cli(data, "report", "j.jsonl", "-o", "fifo", expect=2, timeout=60)
    assert "-o fifo is not a regular file" in report.stderr


def test_an_output_in_a_folder_that_holds_no_files_is_refused_before_scoring(data):
    refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "/proc/x.json", "--no-progress", expect=2)
    assert "--output /proc/x.json" in refused.stderr and "/proc" in refused.stderr
    assert "records from" not in refused.stdout


def test_samples_onto_an_input_is_refused_through_a_link_too(data):
    original = (data / "a.jsonl").read_bytes()
    os.link(data / "a.jsonl", data / "hard.jsonl")
    os.symlink(data / "a.jsonl", data / "soft.jsonl")
    for target in ("a.jsonl", "./a.jsonl", "hard.jsonl", "soft.jsonl"):
        refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "--samples", target, "--no-progress", expect=2)
        assert f"--samples {os.path.normpath(target)} is an input file; it would be overwritten" in refused.stderr
    (data / "x.rows.jsonl").write_bytes(original)
    journal_on_input = cli(data, "evaluate", "x.rows.jsonl", "-m", METRIC, "-o", "x.json", expect=2)
    assert ("the rows journal (beside --output) x.rows.jsonl is an input file; it would be overwritten"
            in journal_on_input.stderr)
    per_query = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "--per-query", "hard.jsonl", expect=2)
    assert "--per-query hard.jsonl is an input file" in per_query.stderr
    assert (data / "a.jsonl").read_bytes() == (data / "x.rows.jsonl").read_bytes() == original


def test_a_failing_output_keeps_the_journal_and_says_where(data, monkeypatch):
    import evalcore._engine.run as run

    (data / "r.csv").write_text("the previous csv\n")

    def full_disk(path, metric_ids, rows):
        from evalcore._engine.files import replacing

        with replacing(path, "w") as handle:
            handle.write("id\n")
            raise OSError(28, "No space left on device")

    monkeypatch.chdir(data)
    monkeypatch.setattr(run, "write_csv", full_disk)
    result = CliRunner().invoke(main, ["evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--csv", "r.csv",
                                       "--no-progress"])
    assert result.exit_code == 2
    assert result.output.strip() == ("error: could not write r.csv (No space left on device); the run's rows are "
                                     "kept in r.rows.jsonl")
    assert len(_ids(data / "r.rows.jsonl")) == 30 and json.loads((data / "r.json").read_text())["samples_file"]
    assert (data / "r.csv").read_text() == "the previous csv\n"
    assert not [p for p in data.iterdir() if p.name.endswith(".tmp")]
    page = CliRunner().invoke(main, ["report", "r.json", "-o", "page.html"])  # the rows are there to report
    assert page.exit_code == 0 and "30 records" in (data / "page.html").read_text()


# -- journals are checked when read ------------------------------------------------------


def _complete_run(data):
    cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--chunk-size", "10", "--no-progress")
    return (data / "r.rows.jsonl").read_text().splitlines(keepends=True)


def _edited(lines):
    at = next(k for k, line in enumerate(lines) if line.startswith('{"id":"r4"'))
    value = json.loads(lines[at])
    value["scores"][METRIC]["value"] = 1.0 - value["scores"][METRIC]["value"]
    return [*lines[:at], json.dumps(value, separators=(",", ":")) + "\n", *lines[at + 1:]], at + 1


def _duplicated(lines):
    at = next(k for k, line in enumerate(lines) if line.startswith('{"id":"r4"'))
    return [*lines[:at + 1], lines[at], *lines[at + 1:]], at + 2


def _foreign(lines):
    at = next(k for k, line in enumerate(lines) if line.startswith('{"id":"r14"'))
    return [*lines[:at + 1], lines[at].replace('"r14"', '"stranger"'), *lines[at + 1:]], at + 2


@pytest.mark.parametrize(("change", "message"), [
    (_edited, r"r\.rows\.jsonl:12: the checksum of lines 2-11 does not match"),
    (_duplicated, r"r\.rows\.jsonl:7: record 'r4' again \(first on line 6\)"),
    (_foreign, r"r\.rows\.jsonl:24: the checksum of lines 13-23 does not match"),
])
def test_a_changed_journal_is_refused_on_resume_with_its_line(data, change, message):
    lines = _complete_run(data)
    changed, line = change(lines)
    (data / "r.rows.jsonl").write_text("".join(changed))
    refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--chunk-size", "10", "--resume",
                  "--no-progress", expect=2)
    assert refused.stderr.count("\n") == 1 and "cannot resume from it" in refused.stderr

    assert re.search(message, refused.stderr), refused.stderr
    lines_named = re.search(r"lines (\d+)-(\d+)", refused.stderr)
    first, last = (int(n) for n in lines_named.groups()) if lines_named else (line, line)
    assert first <= line <= last  # the changed line is the one named, or among those named
    assert (data / "r.rows.jsonl").read_text() == "".join(changed)  # left as it was
    with pytest.raises(evalcore.EvalcoreError, match=message):  # compare and report refuse it too
        evalcore.compare(str(data / "r.json"), str(data / "r.json"))


def test_a_resumed_run_equals_the_whole_and_the_chain_continues(data):
    lines = _complete_run(data)
    whole = json.loads((data / "r.json").read_text())["metrics"]
    (data / "r.rows.jsonl").write_text("".join(lines[:13]) + lines[13][:20])  # two chunks and a cut-off line
    cli(data, "evaluate", "a.jsonl", "-m", METRIC, "-o", "r.json", "--chunk-size", "10", "--resume", "--no-progress")
    assert json.loads((data / "r.json").read_text())["metrics"] == whole
    again = (data / "r.rows.jsonl").read_bytes().splitlines(keepends=True)
    for k, line in enumerate(again):
        if line.startswith(b'{"chunk"'):
            assert json.loads(line)["sha256"] == hashlib.sha256(b"".join(again[:k])).hexdigest()
    assert sorted(_ids(data / "r.rows.jsonl")) == sorted(f"r{i}" for i in range(30))


def test_a_damaged_line_is_an_error_with_its_line_in_report_and_compare(data):
    lines = _complete_run(data)
    at = next(k for k, line in enumerate(lines) if line.startswith('{"id":"r3"'))
    for name, damaged in (("nan", lines[at].replace('"value":0.0', '"value":NaN')),
                          ("cut", lines[at][:25] + "\n")):
        (data / "r.rows.jsonl").write_text("".join([*lines[:at], damaged, *lines[at + 1:]]))
        report = cli(data, "report", "r.json", "-o", f"{name}.html", expect=2)
        compared = cli(data, "compare", "r.json", "r.rows.jsonl", expect=2)
        where = "r.rows.jsonl:12" if name == "nan" else f"r.rows.jsonl:{at + 1}"
        assert where in report.stderr and where in compared.stderr, (report.stderr, compared.stderr)
        assert not (data / f"{name}.html").exists()


def test_nan_and_infinity_round_trip_through_a_journal(tmp_path):
    from evalcore._engine.journal import JournalWarning
    from evalcore._engine.saved import read_journal

    values = {"r0": 0.5, "r1": float("nan"), "r2": float("inf"), "r3": 1.0}
    for checksums in (True, False):
        path = write_journal(tmp_path / f"j{checksums}.jsonl", {k: {METRIC: v} for k, v in values.items()},
                             metrics={METRIC: {"granularity": "sample"}}, checksums=checksums)
        assert b"NaN" in path.read_bytes() and b"Infinity" in path.read_bytes()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, rows = read_journal(str(path))
        assert [w.category for w in caught] == ([] if checksums else [JournalWarning])
        read = {k: row["scores"][METRIC]["value"] for k, row in rows.items()}
        assert list(read) == list(values) and math.isnan(read["r1"]) and read["r2"] == math.inf
        assert read["r0"] == 0.5 and read["r3"] == 1.0


def test_the_engine_never_writes_a_value_it_cannot_read_back(tmp_path):
    from evalcore import MetricSpec, SampleMetric, Score

    class Odd(SampleMetric):
        def score(self, example, prediction):
            return Score([0.5, float("inf"), 0.25][example["k"]], details={"ratio": float("nan")})

    spec = MetricSpec(name="odd", namespace="t", implementation="tests:x", summary="odd", value_range=(None, None))
    records = [{"id": f"r{k}", "example": {"k": k}, "prediction": {}} for k in range(3)]
    result = evalcore.evaluate(records, [Odd(spec)], samples=tmp_path / "rows.jsonl", progress=False)
    rows = {row["id"]: row["scores"]["t/odd"] for row in result.samples}
    assert rows["r1"]["status"] == "error" and "not a finite number" in rows["r1"]["error"]["message"]
    assert rows["r2"]["details"] == {"ratio": None}  # JSON has no NaN: written as null
    again = evalcore.evaluate(records, [Odd(spec)], samples=tmp_path / "rows.jsonl", resume=True, progress=False)
    summary, resumed = result.metrics["t/odd"], again.metrics["t/odd"]
    assert (resumed.value, resumed.n, resumed.n_errors) == (summary.value, summary.n, summary.n_errors) == (0.375, 2, 1)


def test_an_old_journal_loads_with_a_warning_and_is_not_resumed(data):
    rows = {f"r{i}": {METRIC: float(i % 2)} for i in range(10)}
    write_journal(data / "old.jsonl", rows, metrics={METRIC: {"granularity": "sample"}}, checksums=False)
    write_journal(data / "new.jsonl", rows, metrics={METRIC: {"granularity": "sample"}})
    compared = cli(data, "compare", "old.jsonl", "new.jsonl")
    assert "warning: old.jsonl has no checksums (journal format 1); its rows are read unchecked" in compared.stderr
    assert "new.jsonl has no checksums" not in compared.stderr
    report = cli(data, "report", "old.jsonl", "-o", "old.html")
    assert "has no checksums" in report.stderr and "10 records" in (data / "old.html").read_text()
    refused = cli(data, "evaluate", "a.jsonl", "-m", METRIC, "--samples", "old.jsonl", "--resume", expect=2)
    assert "old.jsonl has no checksums (journal format 1" in refused.stderr and "--overwrite" in refused.stderr
