"""Adjutant session details: MaxIterations, stored was_correct, the optimiser's choice, character
counts, and the confidence-gate metrics (accuracy of the decision used, fallback rate, calibration)."""

import evalcore
import numpy as np
import pytest
from adjutant_sessions import FAILED, SUCCESS, decision, run, session
from hypothesis import assume, given, settings
from hypothesis import strategies as st


def test_max_iterations_outcome_as_the_document_writes_it():
    # "Outcome recorded (Success/Failed/MaxIterations)": a failure for the rules
    record = session("m", {"type": "MaxIterations"}, 9, [decision("delegation", {"should_delegate": True})])
    assert run("adjutant/decision_accuracy", [record])[0].value == 1.0
    record = session("m2", "MaxIterations", 9, [decision("delegation", {"should_delegate": False})])
    assert run("adjutant/decision_accuracy", [record])[0].value == 0.0


def test_shadow_comparison_reads_the_stored_was_correct():
    # by the rules DSPy (no delegation, failed) is wrong and legacy (delegate) right: a legacy win;
    # the stored was_correct=True says DSPy was right: a DSPy win (was_correct.unwrap_or(false) in the document)
    dspy, legacy = {"should_delegate": False}, {"should_delegate": True}
    judged = session("s1", FAILED, 3, [decision("delegation", dspy, legacy_output=legacy)])
    stored = session("s2", FAILED, 3, [decision("delegation", dspy, legacy_output=legacy, was_correct=True)])
    assert run("adjutant/shadow_comparison", [judged])[0].value == -1.0
    score = run("adjutant/shadow_comparison", [stored])[0]
    assert score.value == 0.0 and score.details["both_correct"] == 1 and score.details["stored_was_correct"] == 1


def test_trigger_names_the_lowest_accuracy_signature_whenever_it_fires():
    # 20 new examples fire the example threshold; complexity is worst (0/2), though delegation has more
    decisions = [decision("delegation", {"should_delegate": False}) for _ in range(18)]
    decisions += [decision("complexity", {"complexity": "Low"}) for _ in range(2)]
    record = session("t", SUCCESS, 5, decisions)  # 5 iterations: Low is wrong, delegation right
    score = run("adjutant/optimization_trigger", [record], now="2025-02-01T00:00:00Z")[0]
    assert score.value == 1.0 and score.details["trigger"] == "example_threshold"
    assert score.details["signature_to_optimize"] == "complexity"


def test_summary_length_counts_characters_not_bytes():
    # 15 characters, 30 UTF-8 bytes: substantive as the document's "15+ chars" reads
    prediction = {"success": True, "summary": "é" * 15, "modified_files": [], "confidence": 0.5}
    assert evalcore.get_metric("adjutant/synthesis").score_one({}, prediction).value == 1.0
    prediction["summary"] = "é" * 14
    assert evalcore.get_metric("adjutant/synthesis").score_one({}, prediction).value == 0.75


def gated(kind, output, legacy, confidence, **extra):
    return decision(kind, output, legacy_output=legacy, dspy_confidence=confidence, **extra)


def test_gate_accuracy_uses_dspy_above_the_threshold_else_legacy():
    right, wrong = {"should_delegate": True}, {"should_delegate": False}  # the task fails: delegating is right
    decisions = [
        gated("delegation", right, wrong, 0.9),   # DSPy used, right
        gated("delegation", wrong, right, 0.7),   # not above 0.7: legacy used, right
        gated("delegation", right, wrong, 0.5),   # legacy used, wrong
        gated("delegation", right, wrong, 0.95, fallback_used=True, fallback_reason="Timeout"),  # legacy, wrong
    ]
    score = run("adjutant/gate_accuracy", [session("g", FAILED, 3, decisions)])[0]
    assert score.value == 0.5 and score.details["used"] == {"dspy": 1, "legacy": 3}
    assert score.details["dspy_always"] == 0.75 and score.details["legacy_always"] == 0.25
    loose = run("adjutant/gate_accuracy", [session("g", FAILED, 3, decisions)], confidence_threshold=0.4)[0]
    # the 0.7 (DSPy wrong) and 0.5 (DSPy right) decisions now use DSPy: 1 + 0 + 1 + 0 of 4
    assert loose.value == 0.5 and loose.details["used"] == {"dspy": 3, "legacy": 1}


def test_fallback_rate_by_reason():
    decisions = [decision("complexity", {}, fallback_used=True, fallback_reason={"LowConfidence": 0.4}),
                 decision("complexity", {}, fallback_used=True, fallback_reason="Timeout"),
                 decision("delegation", {}, fallback_used=True, fallback_reason={"LowConfidence": 0.6}),
                 decision("delegation", {}, fallback_used=False), decision("delegation", {})]
    score = run("adjutant/fallback_rate", [session("f", None, 0, decisions)])[0]  # no outcome needed
    assert score.value == 0.75 and score.details["by_reason"] == {"LowConfidence": 2, "Timeout": 1}
    assert score.details["rate_by_reason"]["Timeout"] == 0.25
    # delegation: two decisions record fallback_used (the third records nothing), one fell back
    assert run("adjutant/fallback_rate", [session("f", None, 0, decisions)], signature="delegation")[0].value == 0.5


def test_calibration_hand_worked():
    # 0.9 twice (one right) and 0.2 twice (both wrong): |0.5 - 0.9| * 1/2 + |0 - 0.2| * 1/2 = 0.3
    right, wrong = {"should_delegate": True}, {"should_delegate": False}
    decisions = [decision("delegation", right, dspy_confidence=0.9), decision("delegation", wrong, dspy_confidence=0.9),
                 decision("delegation", wrong, dspy_confidence=0.2), decision("delegation", wrong, dspy_confidence=0.2)]
    score = run("adjutant/confidence_calibration", [session("c", FAILED, 3, decisions)])[0]
    assert score.value == pytest.approx(0.3)
    assert [(row["n"], row["accuracy"]) for row in score.details["reliability"]] == [(2, 0.0), (2, 0.5)]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 1.0), st.booleans()), min_size=1, max_size=40), st.integers(1, 12))
def test_reliability_table_equals_scikit_learn(pairs, n_bins):
    from evalcore_adjutant.decisions import expected_calibration_error, reliability_table
    from sklearn.calibration import calibration_curve

    confidences, correct = [c for c, _ in pairs], [ok for _, ok in pairs]
    # on an inner bin edge scikit-learn's versions disagree on the side (searchsorted vs digitize)
    assume(all(c in (0.0, 1.0) or (c * n_bins) % 1 != 0 for c in confidences))
    table = reliability_table(confidences, correct, n_bins)
    if len(set(correct)) == 2:  # scikit-learn wants both classes
        prob_true, prob_pred = calibration_curve(correct, confidences, n_bins=n_bins, strategy="uniform")
        assert np.allclose([row["accuracy"] for row in table], prob_true)
        assert np.allclose([row["mean_confidence"] for row in table], prob_pred)
    expected = sum(abs(np.mean([o for c, o in pairs if row["bin"][0] <= c < row["bin"][1] or
                                (c == 1.0 and row["bin"][1] == 1.0)]) - row["mean_confidence"]) * row["n"]
                   for row in table) / len(pairs)
    assert expected_calibration_error(table) == pytest.approx(expected)
