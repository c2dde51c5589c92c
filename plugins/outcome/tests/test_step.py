"""outcome_coupled (seed 000) and step_score (seed 003), worked by hand."""

import math

import evalcore
import pytest
from evalcore import Status


def score(metric_id, prediction, **params):
    return evalcore.get_metric(metric_id, **params).score_one({}, prediction)


def step(**fields):
    base = dict(step_utility=0.0, was_repeated=False, verification_delta=0, params_valid=True)
    return {**base, **fields}


@pytest.mark.parametrize("fields, expected", [
    # all best: 0.4*(1+1)/2 + 0.3*1 + 0.2*1 + 0.1*1 = 1.0
    (dict(step_utility=1.0, verification_delta=3), 1.0),
    # all worst: 0.4*(-1+1)/2 + 0.3*0 + 0.2*0 + 0.1*0 = 0.0
    (dict(step_utility=-1.0, was_repeated=True, verification_delta=-2, params_valid=False), 0.0),
    # utility weight alone: utility 0 -> (0+1)/2 = 0.5 -> 0.4*0.5 = 0.2; + 0.3 + 0.2*0.5 (delta 0) + 0.1 = 0.7
    (dict(), 0.7),
    # repetition weight: same as above but repeated -> 0.7 - 0.3 = 0.4
    (dict(was_repeated=True), 0.4),
    # verification weight: delta > 0 -> 1.0 instead of 0.5 -> 0.7 + 0.2*0.5 = 0.8; delta < 0 -> 0.7 - 0.1 = 0.6
    (dict(verification_delta=1), 0.8),
    (dict(verification_delta=-1), 0.6),
    # schema weight: params invalid -> 0.7 - 0.1 = 0.6
    (dict(params_valid=False), 0.6),
    # utility 0.5 -> (0.5+1)/2 = 0.75 -> 0.4*0.75 = 0.3; + 0.3 + 0.1 + 0.1 = 0.8
    (dict(step_utility=0.5), 0.8),
])
def test_outcome_coupled_weights(fields, expected):
    assert score("outcome/outcome_coupled", step(**fields)).value == pytest.approx(expected)


def test_outcome_coupled_custom_weights_and_counts():
    # weights 1/0/0/0 -> only (utility+1)/2 = (0.2+1)/2 = 0.6
    s = score("outcome/outcome_coupled", step(step_utility=0.2), utility_weight=1.0, repetition_weight=0.0,
              verification_weight=0.0, schema_weight=0.0)
    assert s.value == pytest.approx(0.6)
    # failing-test convention: delta -1 = one fewer failing test = improvement -> 0.8 as above
    s = score("outcome/outcome_coupled", step(verification_delta=-1), verification_counts="failing")
    assert s.value == pytest.approx(0.8)


def test_outcome_coupled_from_test_counts():
    # tests_after - tests_before = 5 - 3 = 2 > 0 -> verification 1.0 -> 0.8 (see above)
    pred = step(tests_before=3, tests_after=5)
    del pred["verification_delta"]
    assert score("outcome/outcome_coupled", pred).value == pytest.approx(0.8)


@pytest.mark.parametrize("fields, expected", [
    # 1.0*0.4 + 0.3 (delta -2 < 0: fewer failing) - 0 - min(0/10000, 0.1) = 0.7
    (dict(step_utility=1.0, verification_delta=-2, cost_tokens=0), 0.7),
    # -1.0*0.4 + 0 - 0.2 - min(50000/10000, 0.1) = -0.4 - 0.2 - 0.1 = -0.7
    (dict(step_utility=-1.0, verification_delta=1, was_repeated=True, cost_tokens=50000), -0.7),
    # 0.5*0.4 = 0.2; delta 0 -> no bonus; cost 500/10000 = 0.05 -> 0.15
    (dict(step_utility=0.5, verification_delta=0, cost_tokens=500), 0.15),
    # cap: 1000 tokens -> 0.1 exactly; 0.0 + 0.3 - 0.2 - 0.1 = 0.0
    (dict(step_utility=0.0, verification_delta=-1, was_repeated=True, cost_tokens=1000), 0.0),
])
def test_step_score_seed_003(fields, expected):
    pred = {"was_repeated": False, **fields}
    assert score("outcome/step_score", pred).value == pytest.approx(expected)


@pytest.mark.parametrize("metric_id", ["outcome/outcome_coupled", "outcome/step_score"])
@pytest.mark.parametrize("utility, status", [
    (math.nan, Status.ERROR), (1.5, Status.ERROR), (-1.01, Status.ERROR), ("high", Status.ERROR),
    (None, Status.SKIPPED),
])
def test_bad_utilities(metric_id, utility, status):
    s = score(metric_id, step(step_utility=utility, cost_tokens=0))
    assert s.status is status
    assert "step_utility" in (s.error_message or s.reason)


def test_negative_utility_is_valid():
    # -0.5 is a legal utility ("wasted effort"): 0.4*(0.5/2) + 0.3 + 0.1 + 0.1 = 0.6
    assert score("outcome/outcome_coupled", step(step_utility=-0.5)).value == pytest.approx(0.6)


def test_bad_flags_and_counts():
    s = score("outcome/outcome_coupled", step(was_repeated="no"))
    assert s.status is Status.ERROR and "prediction.was_repeated" in s.error_message
    s = score("outcome/step_score", step(cost_tokens=-3))
    assert s.status is Status.ERROR and "cost_tokens" in s.error_message
