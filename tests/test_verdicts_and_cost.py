"""Every stopping rule ends with a verdict, and a run shows what it paid: through ``evalcore evaluate``
(a scripted OpenAI-compatible judge on 127.0.0.1, with a price table) and through ``evalcore.evaluate``.

Expected figures are worked out by hand from the script: every judge answer reports 10 prompt and
5 completion tokens, and the price of model ``m`` is 1000 msats per 1000 prompt tokens and 2000 per
1000 completion tokens, so one call costs 10 + 10 = 20 msats ($0.00002 at the rate prices are written in).
"""

from __future__ import annotations

import json
import math
import pathlib

import evalcore
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.plugin import EvalcoreError
from evalcore.testing import Reply, ScriptedServer

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRICES = json.dumps({"m": [1000, 2000]})
PER_CALL_MSATS = 20


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def evalcore_cli(tmp_path, monkeypatch):
    """``evalcore ARGS`` in this process, in ``tmp_path``: the exit status as ``returncode``, ``stdout``, ``stderr``."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str, env: dict[str, str] | None = None):
        result = CliRunner().invoke(main, [*args], env=env, catch_exceptions=False)
        result.returncode = result.exit_code
        return result

    return run


@pytest.fixture
def rag(tmp_path) -> pathlib.Path:
    """The bundled RAG example's 12 records, five times over under new ids (60 records)."""
    records = [json.loads(line) for line in (ROOT / "examples" / "rag.jsonl").read_text().splitlines()]
    path = tmp_path / "rag60.jsonl"
    path.write_text("".join(json.dumps({**records[i % 12], "id": f"r{i}"}) + "\n" for i in range(60)))
    return path


def judged(cli, server, data, *args):
    return cli("evaluate", str(data), "-m", "judge/faithfulness", "--judge-base-url", server.base_url,
               "--judge-model", "m", *args, env={"EVALCORE_PRICES": PRICES})


def test_cost_footer_json_and_budget_agree_and_a_cached_run_says_so(evalcore_cli, server, tmp_path):
    data = ROOT / "examples" / "rag.jsonl"
    args = ("-m", "judge/answer_quality", "-m", "overlap/token_f1", "--cache-dir", str(tmp_path / "cache"))
    first = judged(evalcore_cli, server, data, *args, "-o", str(tmp_path / "first.json"))
    assert first.returncode == 0, first.stderr
    assert len(server.requests) == 24  # 12 records, one call each for two judged metrics
    lines = first.stdout.splitlines()
    assert "cost  judge/faithfulness    12 calls, 120 prompt + 60 completion tokens, $0.00024" in lines
    assert "cost  judge/answer_quality  12 calls, 120 prompt + 60 completion tokens, $0.00024" in lines
    assert "cost  run                   24 calls, 240 prompt + 120 completion tokens, $0.00048" in lines
    assert not any("overlap/token_f1" in line for line in lines if line.startswith("cost"))  # it called nothing
    report = json.loads((tmp_path / "first.json").read_text())
    faithfulness = report["metrics"]["judge/faithfulness"]
    assert faithfulness["usage"] == {"calls": 12, "cached_calls": 0, "prompt_tokens": 120, "completion_tokens": 60,
                                     "cost_msats": 12 * PER_CALL_MSATS}
    assert faithfulness["cost_msats"] == 12 * PER_CALL_MSATS
    assert report["metrics"]["overlap/token_f1"]["usage"] is None
    assert report["usage"] == {"calls": 24, "cached_calls": 0, "prompt_tokens": 240, "completion_tokens": 120,
                               "cost_msats": 24 * PER_CALL_MSATS}
    spent = report["provenance"]["budget"]["spent_msats"]
    assert spent == sum(m["cost_msats"] for m in report["metrics"].values()) == 24 * PER_CALL_MSATS
    assert report["verdict"] is None  # no stopping rule asked for

    again = judged(evalcore_cli, server, data, *args, "-o", str(tmp_path / "again.json"))
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == 24  # every answer came from the cache
    assert "cost  judge/faithfulness    12 calls (12 cached), $0" in again.stdout.splitlines()
    assert "cost  run                   24 calls (24 cached), $0" in again.stdout.splitlines()
    assert "0 prompt + 0 completion" not in again.stdout
    cached = json.loads((tmp_path / "again.json").read_text())
    assert cached["usage"]["calls"] == cached["usage"]["cached_calls"] == 24
    assert cached["usage"]["cost_msats"] == cached["provenance"]["budget"]["spent_msats"] == 0


def test_the_report_shows_the_cost_and_the_verdict(evalcore_cli, server, tmp_path):
    data = ROOT / "examples" / "rag.jsonl"
    run = judged(evalcore_cli, server, data, "--cache-mode", "off", "--max-errors", "5", "-o", str(tmp_path / "r.json"))
    assert run.returncode == 0, run.stderr
    page = evalcore_cli("report", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html"))
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "r.html").read_text()
    assert "verdict: error limit not reached: 0 errors (max_errors=5)" in html
    aggregates = html.split('id="aggregates"', 1)[1].split("</section>", 1)[0]
    assert "12 calls, 120 prompt + 60 completion tokens, $0.00024" in aggregates


def test_chunks_in_flight_at_the_stop_are_counted(evalcore_cli, server, rag, tmp_path):
    """Two chunks of 5 are scored at once; when the rule is met, the other one's calls are paid for:
    its records are reported, so every request the judge received is in the run's figures."""
    run = judged(evalcore_cli, server, rag, "--cache-mode", "off", "--chunk-size", "5", "--target-ci-width", "0.5",
                 "-o", str(tmp_path / "r.json"))
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    rule = report["provenance"]["stopping"]  # met after 15 records unless a slow chunk held the sequence back
    received = len(server.requests)
    assert report["usage"]["calls"] == received == report["provenance"]["n_finished"]
    assert report["provenance"]["budget"]["spent_msats"] == received * PER_CALL_MSATS
    (verdict,) = report["verdict"]
    assert verdict["rule"] == "target_ci_width" and verdict["outcome"] == "reached"
    assert report["stopped"] == verdict["text"] == rule["reason"]
    assert f"verdict: {verdict['text']}" in run.stdout


def test_budget_verdicts(evalcore_cli, server, rag, tmp_path):
    # a call reserves its worst case (its prompt's estimated tokens and max_tokens of completion, about
    # 700 msats here) and is charged 20: a budget of 1000 msats ($0.001) admits a few calls, then skips
    run = judged(evalcore_cli, server, rag, "--cache-mode", "off", "--budget-msats", "1000",
                 "-o", str(tmp_path / "r.json"))
    report = json.loads((tmp_path / "r.json").read_text())
    summary = report["metrics"]["judge/faithfulness"]
    assert 0 < summary["n"] < 60 and summary["n_budget_skipped"] == 60 - summary["n"]
    (verdict,) = report["verdict"]
    spent = report["provenance"]["budget"]["spent_msats"]
    assert spent == summary["cost_msats"] == len(server.requests) * PER_CALL_MSATS <= 1000
    assert verdict == {"rule": "budget", "outcome": "exhausted",
                       "text": f"budget exhausted: spent ${spent * 1e-6:.6f}".rstrip("0")
                               + f" of $0.001; {60 - summary['n']} samples skipped for the budget"}
    assert f"verdict: {verdict['text']}" in run.stdout

    ample = judged(evalcore_cli, server, rag, "--cache-mode", "off", "--budget-msats", "10000000", "--json")
    (verdict,) = json.loads(ample.stdout)["verdict"]
    assert verdict == {"rule": "budget", "outcome": "within",
                       "text": f"budget not exhausted: spent ${60 * PER_CALL_MSATS * 1e-6:.6f}".rstrip("0")
                               + " of $10"}  # whole dollars without a point


def test_error_limit_verdict_counts_what_was_paid(evalcore_cli, rag, tmp_path):
    """A judge that refuses every request: the run stops after max_errors + 1 errors and says so."""
    with ScriptedServer(default=lambda request: Reply(400, {"error": "bad request"})) as refusing:
        run = judged(evalcore_cli, refusing, rag, "--cache-mode", "off", "--max-errors", "2", "--chunk-size", "5",
                     "-o", str(tmp_path / "r.json"))
    assert run.returncode == 1
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["verdict"] == [{"rule": "max_errors", "outcome": "stopped",
                                  "text": "stopped after 3 errors (max_errors=2)"}]
    assert "verdict: stopped after 3 errors (max_errors=2)" in run.stdout
    assert report["metrics"]["judge/faithfulness"]["n_errors"] == 3


# -- sequential rules, through the Python API and the command line, on exact match ------------------------


def _system(path: pathlib.Path, hits: list[bool]) -> pathlib.Path:
    path.write_text("".join(json.dumps({"id": f"r{i}", "example": {"reference_answer": "yes"},
                                        "prediction": {"response": "yes" if hit else "no"}}) + "\n"
                            for i, hit in enumerate(hits)))
    return path


def test_undecided_run_says_so_with_its_interval(evalcore_cli, tmp_path):
    hits = [i % 2 == 0 for i in range(40)]
    base = _system(tmp_path / "base.jsonl", hits)
    new = _system(tmp_path / "new.jsonl", hits[1:] + hits[:1])  # the same share of hits: nothing to decide
    assert evalcore_cli("evaluate", str(base), "-m", "overlap/exact_match", "-o", "base.json").returncode == 0
    run = evalcore_cli("evaluate", str(new), "-m", "overlap/exact_match", "--baseline", "base.json",
                       "--until-decided", "-o", "new.json")
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "new.json").read_text())
    assert report["provenance"]["n_finished"] == 40 and report["stopped"] is None
    interval = report["provenance"]["stopping"]["intervals"]["overlap/exact_match"]
    assert interval["low"] < 0 < interval["high"]
    (verdict,) = report["verdict"]
    assert verdict["rule"] == "until_decided" and verdict["outcome"] == "undecided"
    assert verdict["text"] == (
        "undecided after 40 of 40 records: the difference from the baseline does not exclude 0 "
        f"(95% confidence sequence: overlap/exact_match {interval['estimate']:+.4g} "
        f"[{interval['low']:.4g}, {interval['high']:.4g}] width {interval['high'] - interval['low']:.4g})")
    assert f"verdict: {verdict['text']}" in run.stdout

    baseline = evalcore.evaluate(str(base), ["overlap/exact_match"])
    result = evalcore.evaluate(str(new), ["overlap/exact_match"], baseline=baseline, until_decided=True)
    assert result.verdict == report["verdict"]
    assert result.table().splitlines()[-1] == f"verdict: {verdict['text']}"


def test_width_not_reached(evalcore_cli, tmp_path):
    data = _system(tmp_path / "data.jsonl", [i % 3 == 0 for i in range(30)])
    run = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", "--target-ci-width", "0.01", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    (verdict,) = report["verdict"]
    interval = report["provenance"]["stopping"]["intervals"]["overlap/exact_match"]
    assert interval["low"] < 10 / 30 < interval["high"] and interval["high"] - interval["low"] > 0.01  # 10 hits of 30
    assert verdict == {"rule": "target_ci_width", "outcome": "not_reached", "text": (
        "target CI width 0.01 not reached after 30 of 30 records (95% confidence sequence: overlap/exact_match "
        f"{interval['estimate']:.4g} [{interval['low']:.4g}, {interval['high']:.4g}] "
        f"width {interval['high'] - interval['low']:.4g})")}
    assert report["stopped"] is None


def test_baseline_sharing_no_record_is_refused(evalcore_cli, tmp_path):
    _system(tmp_path / "base.jsonl", [True] * 10)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({"id": f"x{i}", "example": {"reference_answer": "yes"},
                                         "prediction": {"response": "no"}}) + "\n" for i in range(10)))
    assert evalcore_cli("evaluate", "base.jsonl", "-m", "overlap/exact_match", "-o", "base.json").returncode == 0
    run = evalcore_cli("evaluate", str(other), "-m", "overlap/exact_match", "--baseline", "base.json",
                       "--until-decided", "-o", "other.json")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert "the baseline shares no record id with this run for overlap/exact_match" in line
    assert "'r0'" in line and "'x0'" in line
    assert not (tmp_path / "other.json").exists()
    baseline = evalcore.evaluate(str(tmp_path / "base.jsonl"), ["overlap/exact_match"])
    with pytest.raises(EvalcoreError, match="shares no record id"):
        evalcore.evaluate(str(other), ["overlap/exact_match"], baseline=baseline, until_decided=True)


def test_baseline_with_missing_or_nan_values(tmp_path):
    data = _system(tmp_path / "new.jsonl", [True] * 20)
    half = {"overlap/exact_match": {f"r{i}": 0.0 for i in range(10)}}  # no value for r10 … r19
    result = evalcore.evaluate(str(data), ["overlap/exact_match"], baseline=half, until_decided=True)
    (verdict,) = result.verdict
    assert verdict["text"].endswith("; paired with the baseline on overlap/exact_match 10 of 20 records "
                                    "(the rest have no baseline value)")
    broken = {"overlap/exact_match": {"r0": 1.0, "r1": math.nan}}
    with pytest.raises(EvalcoreError, match=r"baseline: overlap/exact_match of record 'r1' is nan, not a number"):
        evalcore.evaluate(str(data), ["overlap/exact_match"], baseline=broken, until_decided=True)


def test_dry_run_shows_dollars_and_keeps_msats_in_json(evalcore_cli, server):
    data = ROOT / "examples" / "rag.jsonl"
    table = judged(evalcore_cli, server, data, "--cache-mode", "off", "--dry-run")
    planned = json.loads(judged(evalcore_cli, server, data, "--cache-mode", "off", "--dry-run", "--json").stdout)
    assert not server.requests  # nothing was called
    (row,) = planned
    assert row["cost_msats"] > 0
    header, _, line, total = table.stdout.splitlines()[:4]
    assert header.split()[-1] == "cost" and "msats" not in table.stdout
    dollars = f"${row['cost_msats'] * 1e-6:.6f}".rstrip("0")
    assert line.split()[-1] == total.split()[-1] == dollars


def test_a_metric_object_reused_by_two_runs_reports_each_run_alone(server, monkeypatch):
    monkeypatch.setenv("EVALCORE_PRICES", PRICES)
    metric = evalcore.get_metric("judge/faithfulness", base_url=server.base_url, model="m", cache_mode="off")
    first = evalcore.evaluate(str(ROOT / "examples" / "rag.jsonl"), [metric])
    second = evalcore.evaluate(str(ROOT / "examples" / "rag.jsonl"), [metric])
    assert len(server.requests) == 24
    for result in (first, second):
        assert result.usage == {"calls": 12, "cached_calls": 0, "prompt_tokens": 120, "completion_tokens": 60,
                                "cost_msats": 12 * PER_CALL_MSATS}
        assert result.provenance["budget"]["spent_msats"] == 12 * PER_CALL_MSATS


def test_an_error_share_of_a_streamed_file_is_of_its_records(evalcore_cli, tmp_path):
    """--max-errors 0.5 on a JSONL file (whose number of records is known only once read): 3 errors in 10
    records stay within half of them; 0.2 allows 2 errors, so the third stops the run."""
    data = tmp_path / "some_fail.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "example": {"reference_answer": "yes"},
                                        "prediction": {"response": "yes" if i >= 3 else 5}}) + "\n"
                            for i in range(10)))
    within = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", "--max-errors", "0.5", "--json")
    assert within.returncode == 0
    report = json.loads(within.stdout)
    assert report["verdict"] == [{"rule": "max_errors", "outcome": "within",
                                  "text": "error limit not reached: 3 errors (max_errors=5)"}]
    assert report["provenance"]["n_finished"] == 10 and report["stopped"] is None
    stopped = evalcore_cli("evaluate", str(data), "-m", "overlap/exact_match", "--max-errors", "0.2", "--json")
    assert stopped.returncode == 1
    assert json.loads(stopped.stdout)["verdict"][0]["text"] == "stopped after 3 errors (max_errors=2)"
