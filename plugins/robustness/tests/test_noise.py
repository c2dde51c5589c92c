"""noise_robustness over function-style and installed base metrics."""

import evalcore
import pytest
from evalcore import Status
from robustness_helpers import corpus, rec

RECORDS = [
    rec("q1", "paris", "paris"),                                              # F1 1.0
    rec("q2", "the red fox", "red fox jumps"),                                # F1 0.8 (2 common; p=1, r=2/3)
    rec("q1-p", "paris france", "paris", variant_of="q1", scenario="paraphrase"),   # p=1/2, r=1 -> 2/3
    rec("q2-t", "blue dog", "red fox jumps", variant_of="q2", scenario="typo"),     # 0.0
    rec("q1-c", "london", "paris", variant_of="q1", scenario="counterfactual"),    # not noise: ignored
]


def test_ratio_and_details():
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    s = corpus(m, RECORDS)
    # base = mean(1.0, 0.8) = 0.9; noisy = mean(2/3, 0.0) = 1/3; ratio = (1/3) / 0.9 = 0.37037...
    assert s.details["base_score"] == pytest.approx(0.9)
    assert s.details["noisy_score"] == pytest.approx(1 / 3)
    assert s.value == pytest.approx((1 / 3) / 0.9)
    assert s.details["base"]["n"] == 2 and s.details["noisy"]["n"] == 2
    assert s.feedback is None


def test_merge_over_shards_equals_whole():
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    states = [st for _, st in m.states([e for e, _ in RECORDS], [p for _, p in RECORDS])]
    shards = [m.merge(states[:2]), m.merge(states[2:])]
    assert m.compute(m.merge(shards)).value == pytest.approx(m.compute(m.merge(states)).value)
    assert m.merge([]) == () and m.merge([None, states[0]]) == states[0]


def test_scenarios_parameter_and_identity():
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1", noise_scenarios=["typo"])
    assert m.id == "robustness/noise_robustness(metric='local/local_f1', noise_scenarios=['typo'])"
    assert corpus(m, RECORDS).value == 0.0  # noisy = only the typo variant, F1 0.0


def test_base_zero_gives_zero():
    records = [rec("a", "x", "y"), rec("b", "y", "y", variant_of="a", scenario="typo")]
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    s = corpus(m, records)
    assert s.value == 0.0 and s.details["base_score"] == 0.0 and s.details["noisy_score"] == 1.0


def test_empty_subsets_are_skipped_with_reason():
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    s = corpus(m, RECORDS[:2])
    assert s.status is Status.SKIPPED and "no scored noisy samples" in s.reason
    assert s.details["noisy"]["n"] == 0
    s = corpus(m, [])
    assert s.status is Status.SKIPPED and "no scored base samples" in s.reason


def test_missing_bases_cycles_and_duplicates_are_reported():
    records = [
        *RECORDS[:2],
        rec("v1", "paris", "paris", variant_of="nowhere", scenario="typo"),
        rec("c1", "paris", "paris", variant_of="c2", scenario="typo"),
        rec("c2", "paris", "paris", variant_of="c1", scenario="paraphrase"),
        rec("q1", "paris", "paris"),
    ]
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    s = corpus(m, records)
    assert s.details["missing_bases"] == ["v1"]
    assert s.details["cycles"] == ["c1", "c2"]
    assert s.details["duplicate_ids"] == ["q1"]
    assert "nowhere" not in s.feedback and "v1" in s.feedback and "cycle" in s.feedback


def test_bad_labels_are_per_sample_errors():
    m = evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1")
    results = m.states(
        [{"id": "a", "labels": "typo"}, {"labels": {}}, {"id": "b", "labels": {"variant_of": ["a"]}}],
        [{"response": "x"}] * 3,
    )
    errors = [score.error_message for score, _ in results]
    assert "example.labels" in errors[0] and "example.id" in errors[1] and "variant_of" in errors[2]


def test_skipped_base_samples_are_counted():
    records = [*RECORDS[:4], ({"id": "q3", "labels": {}}, {"response": "no reference"})]
    s = corpus(evalcore.get_metric("robustness/noise_robustness", metric="local/local_f1"), records)
    assert s.details["base"] == {"n": 3, "scored": 2, "skipped": 0, "errors": 1}
    assert s.details["base_score"] == pytest.approx(0.9)


def test_unknown_base_metric():
    with pytest.raises(evalcore.ParameterError, match=r"parameter 'metric'.*unknown metric 'nope/none'"):
        evalcore.get_metric("robustness/noise_robustness", metric="nope/none")


def test_with_installed_token_f1():
    try:
        m = evalcore.get_metric("robustness/noise_robustness", metric="overlap/token_f1")
    except evalcore.UnknownMetricError:
        pytest.skip("evalcore-overlap is not installed")
    s = corpus(m, RECORDS)
    assert s.value == pytest.approx((1 / 3) / 0.9)
