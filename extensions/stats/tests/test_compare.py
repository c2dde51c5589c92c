"""evalcore.compare on hand-written journals: hand-worked p-values, corrections, loading, records."""

import itertools
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from evalcore import EvalcoreError, compare
from evalcore._cli.main import main
from evalcore.testing import write_journal
from evalcore_stats.compare import RecordMismatchError
from evalcore_stats.correct import adjust
from scipy import stats

METRIC = "toy/score"
HEADER = {METRIC: {"granularity": "sample", "direction": "higher", "metric_version": "1"}}


def journal(tmp_path, name, values, metric=METRIC, **kwargs):
    rows = {f"r{i}": {metric: v} for i, v in enumerate(values)} if not isinstance(values, dict) else values
    return str(write_journal(tmp_path / f"{name}.jsonl", rows, metrics={metric: HEADER[METRIC]}, **kwargs))


# Ten records; the system beats the baseline by exactly 0.1 on nine and loses by 0.1 on one.
BASE = [0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.4, 0.3, 0.2, 0.6]
SYSTEM = [b + 0.1 for b in BASE[:9]] + [BASE[9] - 0.1]


def test_fisher_is_exhaustive_for_ten_records_and_matches_the_hand_count(tmp_path):
    # Differences are +-0.1 with mean 0.08. A sign assignment reaches |mean| >= 0.08 when at most one
    # difference is negative, or at most one positive: 2 * (1 + 10) of the 2**10 assignments.
    result = compare(journal(tmp_path, "a", BASE), journal(tmp_path, "b", SYSTEM), tests=["fisher"])
    outcome = result.entries[0].tests["fisher"]
    assert outcome.p_value == pytest.approx(22 / 1024)
    assert outcome.note == "exhaustive"


def test_randomization_follows_the_same_null_with_sacrebleus_strict_count(tmp_path):
    # Swapping records flips the sign of a difference; only the two all-same-sign assignments exceed
    # |mean| = 0.08 strictly, so p -> (2/1024 * trials + 1) / (trials + 1).
    trials = 20000
    result = compare(journal(tmp_path, "a", BASE), journal(tmp_path, "b", SYSTEM), tests=["randomization"],
                     n_resamples=trials, seed=3)
    expected = 2 / 1024
    spread = 4 * math.sqrt(expected * (1 - expected) / trials)
    assert abs(result.entries[0].tests["randomization"].p_value - expected) < spread + 1 / trials


def test_bootstrap_p_value_is_sacrebleus_formula_on_the_same_draws(tmp_path):
    base, system = np.array(BASE), np.array(SYSTEM)
    result = compare(journal(tmp_path, "a", BASE), journal(tmp_path, "b", SYSTEM), tests=["bootstrap"],
                     n_resamples=500, seed=7)
    idxs = np.random.default_rng(7).choice(10, size=(500, 10), replace=True)
    diffs = system[idxs].mean(1) - base[idxs].mean(1)
    centred = np.abs(diffs) - np.abs(diffs).mean()
    expected = (np.sum(centred > abs(system.mean() - base.mean())) + 1) / 501
    entry = result.entries[0]
    assert entry.tests["bootstrap"].p_value == pytest.approx(expected)
    assert entry.ci == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    assert entry.difference == pytest.approx(0.08)
    assert entry.effect_size == pytest.approx(np.mean(system - base) / np.std(system - base, ddof=1))


def test_t_test_and_wilcoxon_are_scipys(tmp_path):
    rng = np.random.default_rng(1)
    base = rng.random(30)
    system = np.clip(base + rng.normal(0.05, 0.1, 30), 0, 1)
    result = compare(journal(tmp_path, "a", base.tolist()), journal(tmp_path, "b", system.tolist()),
                     tests=["ttest", "wilcoxon"], correction="none")
    tests = result.entries[0].tests
    assert tests["ttest"].p_value == pytest.approx(stats.ttest_rel(system, base).pvalue, rel=1e-12)
    assert tests["ttest"].statistic == pytest.approx(stats.ttest_rel(system, base).statistic, rel=1e-12)
    assert tests["wilcoxon"].p_value == pytest.approx(stats.wilcoxon(system, base).pvalue, rel=1e-12)


def test_wilcoxon_equals_the_exhaustive_signed_rank_count(tmp_path):
    # Ten distinct non-zero differences: ranks 1..10, W = min(W+, W-); under the null every
    # one of the 2**10 sign assignments is equally likely.
    diffs = np.array([0.05, -0.01, 0.07, 0.02, -0.03, 0.09, 0.04, 0.06, -0.08, 0.1])
    base = np.linspace(0.1, 0.6, 10)
    ranks = np.argsort(np.argsort(np.abs(diffs))) + 1
    observed = min(ranks[diffs > 0].sum(), ranks[diffs < 0].sum())
    positive = np.array([ranks[np.array(signs, dtype=bool)].sum() for signs in itertools.product((0, 1), repeat=10)])
    expected = np.mean(np.minimum(positive, ranks.sum() - positive) <= observed)
    result = compare(journal(tmp_path, "a", base.tolist()), journal(tmp_path, "b", (base + diffs).tolist()),
                     tests=["wilcoxon"])
    assert result.entries[0].tests["wilcoxon"].p_value == pytest.approx(expected)
    assert result.entries[0].tests["wilcoxon"].statistic == observed


def test_identical_systems_are_never_significant(tmp_path):
    a = journal(tmp_path, "a", BASE)
    result = compare(a, journal(tmp_path, "b", BASE))
    entry = result.entries[0]
    assert all(outcome.p_value == 1.0 for outcome in entry.tests.values())
    assert entry.winner is None and entry.difference == 0.0


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    assert adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> monotone 0.06
    assert adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust([0.6, 0.9], "holm") == pytest.approx([1.0, 1.0])


def test_correction_runs_across_metrics_and_systems(tmp_path):
    rows = lambda shift: {f"r{i}": {"toy/x": 0.1 * (i % 5) + shift, "toy/y": 0.05 * (i % 3) + shift / 2}  # noqa: E731
                          for i in range(12)}
    header = {m: HEADER[METRIC] for m in ("toy/x", "toy/y")}
    paths = [str(write_journal(tmp_path / f"{n}.jsonl", rows(s), metrics=header)) for n, s in
             (("a", 0.0), ("b", 0.02), ("c", 0.0))]
    raw = compare(*paths, tests=["ttest", "fisher"], correction="none")
    holm = compare(*paths, tests=["ttest", "fisher"])
    assert len(holm.entries) == 4
    for test in ("ttest", "fisher"):
        unadjusted = [e.tests[test].p_value for e in raw.entries]
        assert [e.tests[test].p_adjusted for e in holm.entries] == pytest.approx(adjust(unadjusted, "holm"))
    assert all(e.decided_by == "ttest" for e in holm.entries)


def test_winner_follows_the_direction(tmp_path):
    lower = {METRIC: {**HEADER[METRIC], "direction": "lower"}}
    base = [0.5] * 20
    system = [0.5 + 0.1 + 0.001 * i for i in range(20)]
    a = str(write_journal(tmp_path / "a.jsonl", {f"r{i}": {METRIC: v} for i, v in enumerate(base)}, metrics=lower))
    b = str(write_journal(tmp_path / "b.jsonl", {f"r{i}": {METRIC: v} for i, v in enumerate(system)}, metrics=lower))
    entry = compare(a, b).entries[0]
    assert entry.significant and entry.winner == "baseline"
    assert compare(b, a).entries[0].winner == "system"


def test_mismatched_record_ids_are_an_error_unless_intersected(tmp_path):
    a = journal(tmp_path, "a", {f"r{i}": {METRIC: 0.1 * i} for i in range(10)})
    b = journal(tmp_path, "b", {f"r{i}": {METRIC: 0.1 * i + 0.05} for i in range(2, 13)})
    with pytest.raises(RecordMismatchError, match=r"b lacks 2 of the baseline's records \('r0', 'r1'\) and has 3"):
        compare(a, b)
    result = compare(a, b, intersect=True)
    assert result.records["systems"]["b"] == {"n": 8, "only_in_baseline": 2, "only_in_system": 3}
    assert result.entries[0].n == 8
    assert "compared on 8 shared records" in result.table()
    assert isinstance(RecordMismatchError("x"), EvalcoreError)


def test_unscored_records_are_left_out_of_the_pairs_and_counted(tmp_path):
    base = {f"r{i}": {METRIC: 0.1 * i} for i in range(10)}
    system = {f"r{i}": {METRIC: 0.1 * i + 0.1} for i in range(10)}
    system["r4"] = {METRIC: {"value": None, "status": "error", "error": {"type": "ValueError", "message": "x"}}}
    base["r7"] = {METRIC: {"value": None, "status": "skipped", "reason": "no gold"}}
    entry = compare(journal(tmp_path, "a", base), journal(tmp_path, "b", system)).entries[0]
    assert (entry.n, entry.n_unscored) == (8, 2)
    assert entry.difference == pytest.approx(0.1)


def test_journal_reading_resumed_rows_unfinished_chunks_and_old_rows(tmp_path):
    path = tmp_path / "resumed.jsonl"
    write_journal(path, {f"r{i}": {METRIC: 0.0} for i in range(6)}, metrics=HEADER, checkpoint_every=2,
                  checksums=False)  # journal format 1: an older evalcore's resume appended to it
    with open(path, "a") as handle:  # a resumed run wrote r2 again, then was killed mid-chunk
        for i, value in ((2, 1.0), (4, 9.0)):
            handle.write(json.dumps({"id": f"r{i}", "i": i, "scores": {METRIC: {"value": value, "status": "ok"}}})
                         + "\n")
            if i == 2:
                handle.write(json.dumps({"chunk": 9, "rows": 1}) + "\n")
    old = write_journal(tmp_path / "old.jsonl", {f"r{i}": {METRIC: 0.0} for i in range(6)}, header=False)
    entry = compare(str(old), str(path), tests=["fisher"]).entries[0]
    assert entry.n == 6 and entry.system_value == pytest.approx(1 / 6)


def test_report_with_relative_samples_file_and_evaluation_result(tmp_path):
    write_journal(tmp_path / "rows.jsonl", {f"r{i}": {METRIC: 0.1 * i} for i in range(10)}, metrics=HEADER)
    (tmp_path / "report.json").write_text(json.dumps({
        "metrics": {METRIC: {"value": 0.45, "n": 10, "direction": "higher", "granularity": "sample"}},
        "rejected": [], "stopped": None, "provenance": {"input": "x"}, "samples_file": "rows.jsonl"}))

    class Result:  # what evalcore.evaluate returns, reduced to what compare reads
        metrics = {METRIC: type("S", (), {"to_dict": lambda self: {"direction": "higher", "granularity": "sample"}})()}
        samples = [{"id": f"r{i}", "scores": {METRIC: {"value": 0.1 * i + 0.2, "status": "ok"}}} for i in range(10)]
        provenance: dict = {}

    result = compare(str(tmp_path / "report.json"), Result(), tests=["ttest"])
    assert result.baseline == "report" and result.systems == ["system 1"]
    assert result.entries[0].difference == pytest.approx(0.2)


def test_report_naming_its_journal_relative_to_the_working_folder(tmp_path, monkeypatch):
    (tmp_path / "out").mkdir()
    write_journal(tmp_path / "out" / "rows.jsonl", {f"r{i}": {METRIC: 0.1 * i} for i in range(10)}, metrics=HEADER)
    (tmp_path / "out" / "report.json").write_text(json.dumps({"metrics": {}, "samples_file": "out/rows.jsonl"}))
    monkeypatch.chdir(tmp_path)
    result = compare("out/report.json", str(tmp_path / "out" / "rows.jsonl"), tests=["fisher"])
    assert result.entries[0].n == 10 and result.entries[0].difference == 0.0
    monkeypatch.chdir(tmp_path / "out")
    with pytest.raises(EvalcoreError, match="samples journal not found"):
        compare("report.json", "rows.jsonl")


def test_evaluation_result_from_evaluate(tmp_path):
    import evalcore

    evalcore.register_metric("compare_test/len", lambda gold, pred, trace=None: len(pred["response"]) / 10)
    data = [{"id": f"r{i}", "example": {"q": i}, "prediction": {"response": "x" * (i % 7)}} for i in range(12)]
    other = [{**d, "prediction": {"response": "x" * (i % 7 + 1)}} for i, d in enumerate(data)]
    a = evalcore.evaluate(data, ["compare_test/len"])
    b = evalcore.evaluate(other, ["compare_test/len"])
    result = compare(a, b, tests=["fisher"])
    entry = result.entries[0]
    assert entry.difference == pytest.approx(0.1) and entry.winner == "system"


def test_bad_options_name_their_field(tmp_path):
    a = journal(tmp_path, "a", BASE)
    with pytest.raises(EvalcoreError, match="tests: unknown test 'sign'"):
        compare(a, a, tests=["sign"])
    with pytest.raises(EvalcoreError, match="correction: unknown correction"):
        compare(a, a, correction="fdr")
    with pytest.raises(EvalcoreError, match="metrics: metric 'toy/other' is not in run"):
        compare(a, a, metrics=["toy/other"])
    with pytest.raises(EvalcoreError, match="at least one system"):
        compare(a)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(EvalcoreError, match="x.json: neither a JSON report nor a samples journal"):
        compare(str(tmp_path / "x.json"), a)


def test_cli_compare_table_and_json(tmp_path):
    a, b = journal(tmp_path, "base", BASE), journal(tmp_path, "new", SYSTEM)
    runner = CliRunner()
    table = runner.invoke(main, ["compare", a, b, "--test", "fisher"])
    assert table.exit_code == 0, table.output
    assert "new: better on 1, worse on 0" in table.output and "▲" in table.output
    data = json.loads(runner.invoke(main, ["compare", a, b, "--json", "--seed", "5"]).output)
    assert data["baseline"] == "base" and data["options"]["seed"] == 5
    assert data["comparisons"][0]["winner"] == "system"
    assert set(data["comparisons"][0]["tests"]) == {"bootstrap", "randomization", "ttest", "wilcoxon", "fisher"}
    c = journal(tmp_path, "short", BASE[:5])
    mismatch = runner.invoke(main, ["compare", a, c])
    assert mismatch.exit_code == 2 and "--intersect" in mismatch.output


def test_without_scipy_the_default_leaves_out_t_test_and_wilcoxon(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    a, b = journal(tmp_path, "a", BASE), journal(tmp_path, "b", SYSTEM)
    result = compare(a, b, n_resamples=200)
    assert result.options["tests"] == ["bootstrap", "randomization", "fisher"]
    assert any("pip install scipy" in note for note in result.notes)
    with pytest.raises(EvalcoreError, match=r"need scipy: pip install scipy"):
        compare(a, b, tests=["ttest"])


def test_notes_on_unshared_metrics_and_version_differences(tmp_path):
    a = write_journal(tmp_path / "a.jsonl", {f"r{i}": {METRIC: 0.1 * i, "toy/extra": 1.0} for i in range(8)},
                      metrics={METRIC: HEADER[METRIC], "toy/extra": HEADER[METRIC]})
    b = write_journal(tmp_path / "b.jsonl", {f"r{i}": {METRIC: 0.1 * i} for i in range(8)},
                      metrics={METRIC: {**HEADER[METRIC], "metric_version": "2"}})
    with pytest.raises(EvalcoreError, match=f"{METRIC}: version 1 in a, version 2 in b"):
        compare(str(a), str(b), tests=["fisher"])
    result = compare(str(a), str(b), tests=["fisher"], allow_version_mismatch=True)
    assert result.metrics == [METRIC]
    assert "not compared, only in some runs (a): toy/extra" in result.notes
    assert f"compared although computed differently: {METRIC}: version 1 in a, version 2 in b" in result.notes
