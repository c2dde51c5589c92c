"""Judges that can be measured: n samples per judgement, a panel of judges, their agreement.

The agreement coefficients are checked against their references: scikit-learn's
``cohen_kappa_score``, statsmodels' ``fleiss_kappa`` and the ``krippendorff`` package, on
generated ratings (hypothesis) and on a table worked by hand. Panels are tested through the CLI
with a scripted server that answers by the requested model, and in Python.
"""

from __future__ import annotations

import json

import evalcore
import krippendorff
import numpy as np
import pytest
from evalcore.testing import Reply, run_evalcore, write_records
from evalcore_judge.agreement import agreement, cohen_kappa, fleiss_kappa, krippendorff_alpha
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

EXAMPLE = {"query": "Where is the tower?"}
PREDICTION = {"response": "In Paris.", "retrieved": [{"doc_id": "a", "text": "The tower is in Paris."}]}

ratings = st.integers(1, 12).flatmap(lambda records: st.integers(2, 5).flatmap(lambda raters: st.lists(
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=raters, max_size=raters),
    min_size=records, max_size=records)))


# -- the coefficients against their references -----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(ratings)
def test_fleiss_kappa_equals_statsmodels(table):
    counts, _ = aggregate_raters(np.array(table))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = statsmodels_fleiss(counts)
    assert fleiss_kappa(table) == pytest.approx(expected, nan_ok=True, rel=1e-12, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(ratings)
def test_cohen_kappa_equals_sklearn(table):
    first, second = [row[0] for row in table], [row[1] for row in table]
    labels = sorted(set(first) | set(second))
    if len(labels) < 2:  # scikit-learn: NaN (0/0) where chance agreement is complete
        assert np.isnan(cohen_kappa(first, second))
        return
    expected = cohen_kappa_score([labels.index(v) for v in first], [labels.index(v) for v in second])
    assert agreement([row[:2] for row in table], ["a", "b"])["cohen_kappa"] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(ratings, st.sampled_from(["nominal", "interval"]), st.randoms(use_true_random=False))
def test_krippendorff_alpha_equals_the_krippendorff_package(table, level, random):
    data = np.array(table).T  # raters x records
    data[np.array([[random.random() < 0.2 for _ in row] for row in data])] = np.nan  # missing ratings
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if np.unique(data[~np.isnan(data)]).size < 2 or not pairable.any():
        # the package refuses a single value or no record rated twice; alpha is undefined
        assert np.isnan(krippendorff_alpha(data, level))
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(expected, nan_ok=True, rel=1e-9, abs=1e-12)


def test_agreement_worked_by_hand():
    # two judges, four records: a = 1 1 0 0, b = 1 0 0 0
    # Cohen: p_o = 3/4; p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2; kappa = (3/4 - 1/2) / (1/2) = 1/2
    # Fleiss: category shares 0: 5/8, 1: 3/8, p_e = 34/64; per record agreement 1, 0, 1, 1 -> 3/4;
    #         kappa = (3/4 - 34/64) / (1 - 34/64) = 7/15
    # Krippendorff: coincidences o00 = 4, o01 = o10 = 1, o11 = 2; n0 = 5, n1 = 3, n = 8;
    #         alpha = 1 - (n - 1) (o01 + o10) / (2 n0 n1) = 1 - 7 * 2 / 30 = 8/15 (interval: the same, d = 1)
    table = [[1, 1], [1, 0], [0, 0], [0, 0]]
    result = agreement(table, ["a", "b"])
    assert result["cohen_kappa"] == pytest.approx(1 / 2)
    assert result["fleiss_kappa"] == pytest.approx(7 / 15)
    assert result["krippendorff_alpha"] == {"nominal": pytest.approx(8 / 15), "interval": pytest.approx(8 / 15)}
    assert result["all_agree"] == 3 / 4 and result["n"] == 4


# -- samples and panels in Python -------------------------------------------------------------------


def _judge(*scores):
    """A scripted judge answering ``scores`` in turn (then the last again)."""
    answers = list(scores)

    def judge(prompt, metadata):
        score = answers.pop(0) if len(answers) > 1 else answers[0]
        return json.dumps({"explanation": f"scored {score}", "score": score})

    return judge


def test_n_samples_asked_with_their_own_seed_and_cache_entry(make_metric, server, tmp_path):
    by_seed = {0: 1, 1: 0, 2: 1}
    server.default = lambda request: Reply.chat(json.dumps(
        {"explanation": f"seed {request['seed']}", "score": by_seed[request["seed"]]}))
    metric = make_metric("judge/faithfulness", n=3, temperature=0.7)
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert sorted(r["json"]["seed"] for r in server.requests) == [0, 1, 2]  # asked concurrently
    assert {r["json"]["temperature"] for r in server.requests} == {0.7}
    assert score.value == pytest.approx(2 / 3)
    assert score.details["std"] == pytest.approx(float(np.std([1, 0, 1])))
    assert [(j["sample"], j["value"], j["explanation"]) for j in score.details["judgements"]] == [
        (0, 1.0, "seed 0"), (1, 0.0, "seed 1"), (2, 1.0, "seed 2")]
    # the same samples again: three cache entries, no call
    again = make_metric("judge/faithfulness", n=3, temperature=0.7, aggregate_by="majority")
    assert again.score_one(EXAMPLE, PREDICTION).value == 1.0
    assert len(server.requests) == 3
    assert again.usage_summary()["cache"]["hits"] == 3
    assert again.summary_details()["sample_spread"] == {"n": 3, "records": 1,
                                                        "mean_std": pytest.approx(float(np.std([1, 0, 1])))}


def test_estimate_counts_every_judgement(make_metric):
    one = make_metric("judge/faithfulness", cache_mode="off").estimate(EXAMPLE, PREDICTION)
    six = make_metric("judge/faithfulness", cache_mode="off", n=2,
                      judges=[{"model": "a"}, {"model": "b"}, {"model": "c"}]).estimate(EXAMPLE, PREDICTION)
    assert six == {k: 6 * v for k, v in one.items()}


def test_panel_members_share_the_metrics_cache(make_metric, server):
    panel = [{"model": "a"}, {"model": "b"}]
    make_metric("judge/faithfulness", judges=panel).score_one(EXAMPLE, PREDICTION)
    again = make_metric("judge/faithfulness", judges=panel)
    score = again.score_one(EXAMPLE, PREDICTION)
    assert len(server.requests) == 2 and score.details["cache"] == {"hits": 2, "misses": 0}
    assert again.usage_summary()["cache"]["hits"] == 2 and score.details["model"] == ["a", "b"]


def test_panel_majority_keeps_each_verdict_and_breaks_ties_low():
    panel = [{"judge": _judge(1), "name": "lenient"}, {"judge": _judge(0), "name": "strict"}]
    metric = evalcore.get_metric("judge/faithfulness", judges=panel, aggregate_by="majority", cache_mode="off")
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == 0.0 and score.details["tie"] is True  # 1 against 0: the lower verdict
    assert score.details["judges"] == {"lenient": {"value": 1.0, "std": 0.0, "tie": False},
                                       "strict": {"value": 0.0, "std": 0.0, "tie": False}}
    assert score.feedback == "scored 0"
    mean = evalcore.get_metric("judge/faithfulness", judges=panel, cache_mode="off").score_one(EXAMPLE, PREDICTION)
    assert mean.value == 0.5 and "tie" not in mean.details


def test_panel_of_three_agreement_equals_statsmodels_and_krippendorff():
    # 5 records; each judge answers its column in turn
    table = [[1, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0], [0, 0, 0]]
    panel = [{"judge": _judge(*(row[j] for row in table)), "name": f"j{j}"} for j in range(3)]
    metric = evalcore.get_metric("judge/faithfulness", judges=panel, aggregate_by="majority", cache_mode="off")
    for row in table:
        metric.score_one(EXAMPLE, {**PREDICTION, "response": f"In Paris, {row}."})
    summary = metric.summary_details()["agreement"]
    assert summary["judges"] == ["j0", "j1", "j2"] and summary["n"] == 5 and "cohen_kappa" not in summary
    assert summary["fleiss_kappa"] == pytest.approx(statsmodels_fleiss(aggregate_raters(np.array(table))[0]))
    for level in ("nominal", "interval"):
        assert summary["krippendorff_alpha"][level] == pytest.approx(
            krippendorff.alpha(reliability_data=np.array(table).T, level_of_measurement=level))


def test_a_failing_member_makes_an_error_row_that_keeps_the_others_verdicts():
    def broken(prompt, metadata):
        raise RuntimeError("judge down")

    metric = evalcore.get_metric("judge/faithfulness", cache_mode="off",
                                 judges=[{"judge": _judge(1), "name": "ok"}, {"judge": broken}])
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.status.value == "error" and "broken sample 0" in score.error_message
    assert [(j["judge"], j["status"]) for j in score.details["judgements"]] == [("ok", "ok"), ("broken", "error")]
    assert metric.summary_details()["agreement"]["n"] == 0


def test_panel_settings_are_checked():
    with pytest.raises(evalcore.EvalcoreError, match=r"judges\[0\].*unknown settings \['modle'\]"):
        evalcore.get_metric("judge/faithfulness", judges=[{"modle": "a"}])
    with pytest.raises(evalcore.EvalcoreError, match="distinct names"):
        evalcore.get_metric("judge/faithfulness", judges=[{"model": "a"}, {"model": "a"}])


# -- through the command line -----------------------------------------------------------------------

VERDICTS = {"a": [1, 1, 0, 1, 0, 1], "b": [1, 0, 0, 1, 1, 1]}  # per judge model, per record


def _by_model(request):
    """The scripted server's answer: the verdict of the requested model for the record asked about."""
    text = "\n".join(m["content"] for m in request["messages"])
    record = next(i for i in range(len(VERDICTS["a"])) if f"answer {i}." in text)
    return Reply.chat(json.dumps({"explanation": f"{request['model']} on {record}",
                                  "score": VERDICTS[request["model"]][record]}))


def test_cli_panel_rows_and_agreement(server, tmp_path):
    records = [{"id": f"r{i}", "example": {"query": "q?", "reference_answer": "yes"},
                "prediction": {"response": f"answer {i}."}} for i in range(6)]
    path = write_records(tmp_path / "records.jsonl", records)
    server.default = _by_model
    metric = "judge/diff_semantic(judges=[{'model': 'a'}, {'model': 'b'}], aggregate_by='majority')"
    out = run_evalcore("evaluate", str(path), "-m", metric, "--judge-base-url", server.base_url,
                       "--cache-mode", "off", "--json", "--samples", str(tmp_path / "rows.jsonl"))
    summary = json.loads(out.stdout)["metrics"]["judge/diff_semantic"]
    rows = [json.loads(line)["scores"]["judge/diff_semantic"] for line in
            (tmp_path / "rows.jsonl").read_text().splitlines() if "scores" in json.loads(line)]
    a, b = VERDICTS["a"], VERDICTS["b"]
    assert [row["value"] for row in rows] == [min(x, y) for x, y in zip(a, b)]  # two judges: a tie goes low
    assert [row["details"]["judges"]["b"]["value"] for row in rows] == b
    assert rows[1]["details"]["judgements"][0]["explanation"] == "a on 1"
    assert sorted(r["json"]["model"] for r in server.requests) == ["a"] * 6 + ["b"] * 6
    agreed = summary["details"]["agreement"]
    assert agreed["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b))
    assert agreed["fleiss_kappa"] == pytest.approx(statsmodels_fleiss(aggregate_raters(np.array([a, b]).T)[0]))
    assert agreed["krippendorff_alpha"]["nominal"] == pytest.approx(
        krippendorff.alpha(reliability_data=[a, b], level_of_measurement="nominal"))
    (tmp_path / "result.json").write_text(out.stdout)  # the report states the agreement under its aggregates
    run_evalcore("report", str(tmp_path / "result.json"), "-o", str(tmp_path / "report.html"))
    share = sum(x == y for x, y in zip(a, b)) / len(a)
    assert (f"judge/diff_semantic: judges a, b all agree on {100 * share:.0f} % of 6 records; "
            f"Cohen&#x27;s κ {cohen_kappa_score(a, b):.3f}") in (tmp_path / "report.html").read_text()


def test_cli_calibrate_a_judged_metric_against_human_labels(server, tmp_path):
    # model "a"'s verdicts 1 1 0 1 0 1 against human labels 1 1 0 0 0 1: agreement 5/6, kappa as scikit-learn's
    human = [True, True, False, False, False, True]
    records = [{"id": f"r{i}", "example": {"query": "q?", "reference_answer": "yes"},
                "prediction": {"response": f"answer {i}."}, "label": label} for i, label in enumerate(human)]
    path = write_records(tmp_path / "labels.jsonl", records)
    server.default = _by_model
    out = run_evalcore("calibrate", str(path), "-m", "judge/diff_semantic", "--json",
                       env={"EVALCORE_JUDGE_BASE_URL": server.base_url, "EVALCORE_JUDGE_MODEL": "a",
                            "EVALCORE_CACHE_DIR": str(tmp_path / "cache")})
    result = json.loads(out.stdout)
    assert result["n"] == 6 and result["agreement"] == pytest.approx(5 / 6)
    assert result["kappa"] == pytest.approx(cohen_kappa_score(human, [bool(v) for v in VERDICTS["a"]]))
    panel = run_evalcore("calibrate", str(path), "-m", f"judge/diff_semantic(base_url='{server.base_url}', "
                         "judges=[{'model': 'a'}, {'model': 'b'}], aggregate_by='majority', cache_mode='off')",
                         "--json")
    majority = [bool(min(x, y)) for x, y in zip(VERDICTS["a"], VERDICTS["b"])]
    assert json.loads(panel.stdout)["kappa"] == pytest.approx(cohen_kappa_score(human, majority))


def test_g_eval_panel_makes_its_steps_once_and_each_member_scores():
    asked = []

    def judge_for(score):
        def judge(prompt, metadata):
            asked.append(metadata["role"])
            if metadata["role"] == "steps":
                return json.dumps({"steps": ["Check the answer."]})
            return json.dumps({"reason": f"gave {score}", "score": score})
        judge.__name__ = f"gives_{score}"
        return judge

    metric = evalcore.get_metric("judge/g_eval", criteria="Is it right?", cache_mode="off", n=2,
                                 judges=[{"judge": judge_for(8)}, {"judge": judge_for(4)}])
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.value == pytest.approx(0.6)  # mean of 0.8 (twice) and 0.4 (twice)
    assert {name: j["value"] for name, j in score.details["judges"].items()} == {"gives_8": 0.8, "gives_4": 0.4}
    assert score.details["std"] == pytest.approx(0.2)
    assert sorted(asked) == ["score"] * 4 + ["steps"]  # the first judgement's steps serve all four


def test_samples_on_dspys_lm_are_asked_in_turn():
    dspy = pytest.importorskip("dspy")
    from dspy.utils import DummyLM
    from evalcore_judge.dspy import SemanticF1

    half = {"reasoning": "Names the author but not the date.", "precision": 1.0, "recall": 0.5}
    lm = DummyLM([half, {**half, "reasoning": "All of it.", "recall": 1.0}])  # answers in turn
    with dspy.context(lm=lm):
        got = SemanticF1(n=2)(dspy.Example(question="Who wrote Hamlet?", response="Shakespeare, around 1600."),
                              dspy.Prediction(response="William Shakespeare."))
    assert got.score == pytest.approx((2 / 3 + 1) / 2)  # DSPy's f1 of (1, 0.5) and of (1, 1), averaged
    assert len(lm.history) == 2


def test_the_judge_metrics_and_their_agreement_need_no_statistics_extension():
    """evalcore-judge does not depend on evalcore-stats: its metrics and the panel's agreement import
    and compute where evalcore-stats is not installed."""
    from evalcore.testing import run_without

    proc = run_without("evalcore_stats", """
        import evalcore_judge.metrics
        from evalcore_judge.agreement import agreement
        print(agreement([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]], ["a", "b"])["cohen_kappa"])
    """)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout) == pytest.approx(cohen_kappa_score([1, 0, 0], [1, 1, 0]))
