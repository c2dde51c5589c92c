"""The engine's guarantees: time limits, isolation of metric failures, per-line damage,
checks before work, bounded memory."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time

import evalcore
import pytest
from evalcore import EvalcoreError, MetricSpec, SampleMetric
from evalcore._contract.records import read_records


def build(cls, name, **fields):
    return cls(MetricSpec(name=name, namespace="t", implementation="tests:x", summary=name, **fields))


def records(n):
    return [{"id": f"r{i}", "example": {}, "prediction": {"value": i}} for i in range(n)]


class Hangs(SampleMetric):
    """Hangs on record r1, answers the others at once."""

    def score(self, example, prediction):
        if example["id"] == "r1":
            time.sleep(30)
        return 1.0


class AsyncHangs(SampleMetric):
    async def ascore(self, example, prediction):
        if example["id"] == "r1":
            await asyncio.sleep(30)
        return 1.0


@pytest.mark.parametrize("cls", [Hangs, AsyncHangs])
def test_a_hung_sample_is_cut_off_and_the_run_goes_on(cls):
    started = time.monotonic()
    result = evalcore.evaluate(records(4), [build(cls, "hangs")], timeout_s=0.3, concurrency=1)
    assert time.monotonic() - started < 20
    rows = {row["id"]: row["scores"]["t/hangs"] for row in result.samples}
    assert rows["r1"]["status"] == "error" and rows["r1"]["error"]["type"] == "TimeoutError"
    assert "timeout_s=0.3" in rows["r1"]["error"]["message"]
    assert [rows[r]["value"] for r in ("r0", "r2", "r3")] == [1.0, 1.0, 1.0]


def test_a_metric_default_timeout_applies_when_the_run_sets_none():
    class SlowByDefault(Hangs):
        default_timeout_s = 0.2

    result = evalcore.evaluate(records(3), [build(SlowByDefault, "slow")], concurrency=1)
    assert result.metrics["t/slow"].n_errors == 1 and result.metrics["t/slow"].n == 2


def test_system_exit_inside_a_metric_is_that_samples_error():
    class Exits(SampleMetric):
        def score(self, example, prediction):
            if example["id"] == "r2":
                sys.exit(3)
            return 0.5

    result = evalcore.evaluate(records(4), [build(Exits, "exits")])
    rows = {row["id"]: row["scores"]["t/exits"] for row in result.samples}
    assert rows["r2"]["error"]["type"] == "SystemExit"
    assert result.metrics["t/exits"].n == 3 and result.metrics["t/exits"].value == 0.5


def test_damaged_lines_are_errors_of_their_line_only(tmp_path):
    good = [json.dumps({"id": f"g{i}", "example": {}, "prediction": {"value": 1}}).encode() for i in range(3)]
    lines = [
        b"\xef\xbb\xbf" + good[0],                                        # a BOM before the first line
        b'{"id": "bad-utf8", "example": {"q": "\xff\xfe"}, "prediction": {}}',  # invalid UTF-8
        json.dumps({"id": "sep", "example": {"q": "a\u2028b\u2029c\x85d"}, "prediction": {"value": 1}},
                   ensure_ascii=False).encode(),                          # line separators inside a string
        b"[" * 100_000 + b"]" * 100_000,                                  # nested too deeply
        b'{"id": "bigint", "example": {"n": ' + b"9" * 5000 + b'}, "prediction": {}}',  # an integer too large
        b'{"id": "surrogate\\ud800", "example": {}, "prediction": {}}',  # a lone surrogate: valid JSON, read
        good[1], good[2],
    ]
    path = tmp_path / "data.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    class Reads(SampleMetric):
        def score(self, example, prediction):
            return prediction["value"]

    result = evalcore.evaluate(path, [build(Reads, "reads")], output=tmp_path / "out.json")
    assert sorted(row["id"] for row in result.samples) == ["g0", "g1", "g2", "sep", "surrogate\ud800"]
    rejected = sorted(error.source for error in result.rejected)
    assert rejected == [f"{path}:{n}" for n in (2, 4, 5)]
    assert json.loads((tmp_path / "out.json").read_text())["metrics"]["t/reads"]["n"] == 4
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(("options", "message"), [
    ({"seed": -1}, "seed must be >= 0"),
    ({"failure_score": float("nan")}, "failure_score must be a finite number"),
    ({"concurrency": 0}, "concurrency must be >= 1"),
    ({"timeout_s": -2}, "timeout_s must be >= 0"),
    ({"budget_msats": -5}, "budget_msats must be a whole number"),
    ({"resume": True}, "resume needs the samples file"),
    ({"unknown_knob": 1}, "unknown option: unknown_knob"),
])
def test_options_are_checked_before_any_work(options, message):
    calls = []

    class Counts(SampleMetric):
        def score(self, example, prediction):
            calls.append(1)
            return 1.0

    with pytest.raises(EvalcoreError, match=message):
        evalcore.evaluate(records(3), [build(Counts, "counts")], **options)
    assert calls == []


def test_output_paths_are_checked_before_any_work(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records(2)))
    calls = []

    class Counts(SampleMetric):
        def score(self, example, prediction):
            calls.append(1)
            return 1.0

    cases = [
        ({"output": data}, "is an input file"),
        ({"output": tmp_path / "a.json", "csv": tmp_path / "a.json"}, "are the same file"),
        ({"samples": tmp_path / "missing" / "rows.jsonl"}, "does not exist"),
        ({"output": tmp_path}, "is a folder"),
    ]
    for options, message in cases:
        with pytest.raises(EvalcoreError, match=message):
            evalcore.evaluate(data, [build(Counts, "counts")], **options)
    assert calls == [] and data.read_text().count("\n") == 2


def _peak_rss_mb(path, n):
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": f"record-{i}", "example": {"reference_answer": "x" * 200},
                                     "prediction": {"response": "y" * 200, "value": i % 7}}) + "\n")
    code = textwrap.dedent(f"""
        import resource, evalcore
        def seven(gold, pred, trace=None):
            return pred.value / 7
        result = evalcore.evaluate({str(path)!r}, [seven], progress=False)
        assert result.metrics["local/seven"].n == {n}
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.split()[-1])


def test_memory_grows_by_a_few_numbers_per_record_not_by_rows(tmp_path):
    """Rows go to the journal, not to memory: ten times the records (each about 0.5 KB of JSON,
    about 1.5 KB as Python objects) must add far less than holding them would."""
    small = _peak_rss_mb(tmp_path / "small.jsonl", 20_000)
    large = _peak_rss_mb(tmp_path / "large.jsonl", 200_000)
    # holding the extra 180k records would add about 270 MB; a few numbers per record add about 20 MB
    assert large - small < 60, (small, large)


@pytest.mark.parametrize("concurrency", [1, 8, 32])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_budget_admits_the_same_samples_at_any_concurrency(concurrency, asynchronous):
    """Estimates 300, actual costs 100..290 by record: by hand, one at a time, a sample starts while
    spent + 300 <= 1000, so r0..r3 run (spent 100+150+200+250 = 700), r4 (700+300 = 1000) runs and
    spends 290 -> 990; every later sample is refused."""
    costs = [100, 150, 200, 250, 290, 120, 130, 140, 160, 170]

    class Paid(SampleMetric):
        def estimate(self, example, prediction):
            return {"calls": 1, "cost_msats": 300}

        def score(self, example, prediction):
            time.sleep(0.01)
            return evalcore.Score(1.0, cost_msats=costs[prediction["value"]])

    class AsyncPaid(Paid):
        async def ascore(self, example, prediction):
            await asyncio.sleep(0.01)
            return evalcore.Score(1.0, cost_msats=costs[prediction["value"]])

    metric = build(AsyncPaid if asynchronous else Paid, "paid", tier="truth", cost_msats=300)
    result = evalcore.evaluate(records(10), [metric], budget_msats=1000, concurrency=concurrency)
    ran = [row["id"] for row in result.samples if row["scores"]["t/paid"]["status"] == "ok"]
    assert ran == ["r0", "r1", "r2", "r3", "r4"]
    assert result.provenance["budget"]["spent_msats"] == 990


def test_read_records_splits_lines_as_the_evaluator_does(tmp_path):
    """read_records (used by calibrate and the tool-call loader) shares the reader: a line
    separator inside a string is text, and an invalid byte spoils only its own line."""
    path = tmp_path / "labels.jsonl"
    good = json.dumps({"id": "a", "example": {"q": "x\u2028y"}, "prediction": {}, "label": 1}, ensure_ascii=False)
    path.write_bytes(good.encode() + b"\n" + b'{"id": "b", "example": {"q": "\xff"}, "prediction": {}}\n')
    record_set = read_records(path)
    assert [r.id for r in record_set.records] == ["a"] and record_set.records[0].example["q"] == "x\u2028y"
    assert [e.source for e in record_set.errors] == [f"{path}:2"]
