"""compare and report over runs the engine really wrote: results, reports and journals agree."""

import json
import pathlib

import pytest
from click.testing import CliRunner
from evalcore import compare, evaluate
from evalcore._cli.main import main

METRICS = ["retrieval/ndcg@10", "overlap/bleu(variable_references=True)", "overlap/token_f1"]


EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def runs(tmp_path):
    records = [json.loads(line) for line in (EXAMPLES / "rag.jsonl").read_text().splitlines()]
    worse = [{**r, "prediction": {**r["prediction"], "response": r["prediction"]["response"] + " indeed",
                                  "retrieved": list(reversed(r["prediction"]["retrieved"]))}} for r in records]
    results = []
    for name, data in (("base", records), ("worse", worse)):
        results.append(evaluate(data, METRICS, output=tmp_path / f"{name}.json", samples=tmp_path / f"{name}.jsonl"))
    return results, tmp_path


def test_results_reports_and_journals_give_one_comparison(runs):
    (base, worse), folder = runs
    options = {"n_resamples": 300, "seed": 3}
    from_results = compare(base, worse, names=["base", "worse"], **options).to_dict()
    from_reports = compare(str(folder / "base.json"), str(folder / "worse.json"), **options).to_dict()
    from_journals = compare(str(folder / "base.jsonl"), str(folder / "worse.jsonl"), **options).to_dict()
    assert from_results["comparisons"] == from_reports["comparisons"] == from_journals["comparisons"]
    bleu = next(c for c in from_reports["comparisons"] if c["metric"] == "overlap/bleu")
    assert bleu["granularity"] == "corpus" and bleu["n"] == 12
    assert bleu["baseline_value"] == pytest.approx(base.metrics["overlap/bleu"].value)
    assert bleu["system_value"] == pytest.approx(worse.metrics["overlap/bleu"].value)
    f1 = next(c for c in from_reports["comparisons"] if c["metric"] == "overlap/token_f1")
    assert f1["baseline_value"] == pytest.approx(base.metrics["overlap/token_f1"].value)
    assert f1["winner"] == "baseline"


def test_cli_compare_and_report_on_engine_output(runs):
    _, folder = runs
    runner = CliRunner()
    table = runner.invoke(main, ["compare", str(folder / "base.json"), str(folder / "worse.json"),
                                 "--resamples", "300"])
    assert table.exit_code == 0, table.output
    assert "overlap/bleu" in table.output and "worse: better on 0" in table.output
    out = folder / "report.html"
    report = runner.invoke(main, ["report", str(folder / "base.json"), "--compare", str(folder / "worse.json"),
                                  "-o", str(out), "--resamples", "300"])
    assert report.exit_code == 0, report.output
    html = out.read_text(encoding="utf-8")
    assert "Comparison with base" in html and "▼ worse" in html and "evalcore_version" in html
