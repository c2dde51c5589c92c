"""calibrate(): agreement, Cohen's kappa (checked against scikit-learn) and the confusion matrix."""

from __future__ import annotations

import math

import pytest
from evalcore import MetricSpec, SampleMetric
from evalcore.judge import calibrate, cohen_kappa, confusion_matrix
from hypothesis import given, settings
from hypothesis import strategies as st

sklearn_metrics = pytest.importorskip("sklearn.metrics")


class Lookup(SampleMetric):
    """Returns prediction["value"]; skips when absent, fails when it is a string."""

    def score(self, example, prediction):
        if "value" not in prediction:
            from evalcore import SkipSample
            raise SkipSample("no value")
        return float(prediction["value"])


SPEC = MetricSpec(name="lookup", implementation="x:Lookup", summary="s", pass_threshold=0.5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_kappa_equals_sklearn(pairs):
    truth, pred = [a for a, _ in pairs], [b for _, b in pairs]
    ours = cohen_kappa(truth, pred)
    theirs = sklearn_metrics.cohen_kappa_score(truth, pred)
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == pytest.approx(theirs, abs=1e-12)


def test_confusion_matrix_matches_sklearn():
    truth = ["a", "b", "b", "c", "a", "c"]
    pred = ["a", "b", "c", "c", "b", "a"]
    labels, matrix = confusion_matrix(truth, pred)
    assert labels == ("a", "b", "c")
    assert [list(r) for r in matrix] == sklearn_metrics.confusion_matrix(truth, pred, labels=list(labels)).tolist()


def test_calibrate_boolean_labels_use_pass_threshold():
    metric = Lookup(SPEC)
    labelled = [
        ({}, {"value": 0.9}, True), ({}, {"value": 0.2}, False), ({}, {"value": 0.6}, False),
        {"example": {}, "prediction": {"value": 0.1}, "label": True}, ({}, {"value": 0.7}, True),
        ({}, {}, True), ({}, {"value": "bad"}, False),
    ]
    result = calibrate(metric, labelled)
    truth = [True, False, False, True, True]
    pred = [True, False, True, False, True]
    assert result.n == 5 and result.skipped == 1 and result.errors == 1
    assert result.agreement == pytest.approx(3 / 5)
    assert result.kappa == pytest.approx(sklearn_metrics.cohen_kappa_score(truth, pred))
    assert result.labels == (False, True)
    assert result.confusion == ((1, 1), (1, 2))
    assert result.to_dict()["confusion"] == [[1, 1], [1, 2]]


def test_calibrate_numeric_labels_take_the_nearest_label():
    metric = Lookup(SPEC)
    labelled = [({}, {"value": v}, label) for v, label in [(0.1, 0), (0.45, 0.5), (0.8, 1), (0.3, 1)]]
    result = calibrate(metric, labelled)
    assert result.labels == (0, 0.5, 1)
    assert result.agreement == pytest.approx(3 / 4)


def test_calibrate_rejects_bad_input():
    metric = Lookup(SPEC)
    with pytest.raises(ValueError, match="at least one"):
        calibrate(metric, [])
    with pytest.raises(ValueError, match="lacks label"):
        calibrate(metric, [{"example": {}, "prediction": {}}])
    with pytest.raises(ValueError, match="to_label"):
        calibrate(metric, [({}, {"value": 1.0}, "good")])
    assert calibrate(metric, [({}, {"value": 1.0}, "good")], to_label=lambda v: "good").agreement == 1.0
