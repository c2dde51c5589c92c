"""What `evalcore list` and `describe` show users: ids that evaluate as printed, scales, units, dollars."""

from __future__ import annotations

import json
import pathlib
import re

import evalcore
import pytest
from evalcore._contract.display import dollars, fit_rows, listing_id, scale

INTERNAL_NAMES = re.compile(r"\b[Ss]eeds? ?0\d\d|§|\b[Tt]he seeds?\b|\bseed's\b")


def _texts(info):
    spec = info.spec
    yield spec.summary
    yield spec.description
    for param in spec.params:
        yield param.description or ""


def test_no_metric_text_speaks_of_internal_document_names():
    offenders = [(info.key, text) for info in evalcore.list_metrics() for text in _texts(info)
                 if INTERNAL_NAMES.search(text)]
    assert not offenders


def test_every_listed_id_with_choices_filled_in_creates_its_metric():
    for info in evalcore.list_metrics():
        shown = listing_id(info.spec)
        if "=<" in shown:  # a required parameter without choices: the id says what to write
            assert all(p.required and not p.choices for p in info.spec.params if f"{p.name}=<" in shown)
            continue
        bound = info.spec.bind_params(evalcore._contract.identity.parse_metric_id(shown).params)
        assert evalcore._contract.identity.canonical_id(info.spec, bound) == shown


def test_list_shows_required_parameters_with_choices_scales_and_units(evalcore_cli):
    out = evalcore_cli("list").stdout
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert "overlap/rouge(variant='1')" in rows and "[variant: 1|2|3|4|5|6|7|8|9|L|Lsum]" in rows[
        "overlap/rouge(variant='1')"]
    assert "robustness/noise_robustness(metric=<str>)" in rows
    assert " 0–100 " in rows["overlap/bleu"] and " 0–100 " in rows["overlap/chrf"]
    assert " ≥0 ms " in rows["system/mean_latency"]
    assert " 0–1 " in rows["retrieval/ndcg"]  # trec_eval's ndcg: the whole ranking


def test_an_unknown_family_is_an_error(evalcore_cli):
    proc = evalcore_cli("list", "--family", "retreival")
    assert proc.returncode == 2
    assert "--family 'retreival': no installed metric has this family or namespace; known: " in proc.stderr
    assert "retrieval" in proc.stderr


@pytest.mark.parametrize(("given", "shown"), [
    ("retrieval/precision@5", "retrieval/precision@5"),
    ("retrieval/ndcg(k=3)", "retrieval/ndcg@3"),
    ("overlap/rouge(variant='L')", "overlap/rouge(variant='L')"),
])
def test_describe_reports_the_id_it_was_given(evalcore_cli, given, shown):
    assert evalcore_cli("describe", given).stdout.splitlines()[0].startswith(f"{shown}  (evalcore-")
    assert json.loads(evalcore_cli("describe", given, "--json").stdout)["id"] == shown


@pytest.mark.parametrize(("given", "message"), [
    ("retrieval/ndcg@0", "parameter 'k' of retrieval/ndcg must be >= 1; got 0"),
    ("overlap/rouge", "overlap/rouge needs parameter 'variant'"),
    ("retrieval/ndcg(gain='cubic')", "gain"),
])
def test_describe_validates_parameters_as_evaluate_does(evalcore_cli, given, message):
    proc = evalcore_cli("describe", given)
    assert proc.returncode == 2 and message in proc.stderr
    with pytest.raises(evalcore.EvalcoreError, match=re.escape(message)):
        evalcore.get_metric(given)


def test_describe_shows_the_scale_unit_and_cost_in_dollars(evalcore_cli):
    out = evalcore_cli("describe", "system/quantile_latency").stdout
    assert re.search(r"^  scale: +≥0 ms$", out, re.M)
    assert re.search(r"^  cost: +\$0 per sample \(estimate\)$", out, re.M)
    assert re.search(r"^  scale: +0–100$", evalcore_cli("describe", "overlap/bleu").stdout, re.M)


def test_display_helpers():
    assert dollars(0) == "$0" and dollars(150) == "$0.00015" and dollars(2_500_000) == "$2.5"
    spec = evalcore.describe("system/mean_latency").spec
    assert scale(spec) == "≥0 ms"
    lines = fit_rows(("id", "summary"), [("a", "x" * 50)], width=20)
    assert [len(line) for line in lines] == [len("id  summary"), 20, 20]
    assert lines[2].endswith("…")


def test_the_results_table_shows_each_metrics_scale_and_unit(tmp_path):
    """BLEU is on 0–100, F1 on 0–1, latency in milliseconds — and the bundled example data records
    its timings in milliseconds, so the value reads right (mean of the 12 examples' end_to_end)."""
    from evalcore.testing import run_evalcore

    data = pathlib.Path(__file__).parents[1] / "examples" / "rag.jsonl"
    proc = run_evalcore("evaluate", str(data), "-m", "overlap/bleu(variable_references=True)",
                        "-m", "system/mean_latency", "-m", "overlap/token_f1", "--samples", str(tmp_path / "r.jsonl"))
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()[2:5]}
    assert rows["overlap/bleu"][2] == "0–100" and rows["overlap/token_f1"][2] == "0–1"
    assert rows["system/mean_latency"][2:4] == ["≥0", "ms"]
    timings = [json.loads(line)["prediction"]["timings"]["end_to_end"] for line in data.read_text().splitlines()]
    assert all(100 <= t <= 60_000 for t in timings)  # milliseconds, not seconds
    assert float(rows["system/mean_latency"][1]) == pytest.approx(sum(timings) / len(timings))
