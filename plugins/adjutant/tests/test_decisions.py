"""Decision correctness, rolling accuracy, shadow mode and the optimisation trigger."""

import json

import evalcore
import pytest
from adjutant_sessions import FAILED, SUCCESS, decision, run, session
from evalcore import Status
from evalcore_adjutant.sessions import session_records

# Seed 003 correctness table, one case per row and branch:
CASES = [
    # complexity: success within the level's iterations (Low <= 2) -> correct; 5 iterations -> wrong
    (session("c1", SUCCESS, 1, [decision("complexity", {"complexity": "Low"})]), True),
    (session("c2", SUCCESS, 5, [decision("complexity", {"complexity": "Low"})]), False),
    # High allows 7; VeryHigh any number; a failure is never a correct complexity call
    (session("c3", SUCCESS, 7, [decision("complexity", {"complexity": "High"})]), True),
    (session("c4", SUCCESS, 30, [decision("complexity", {"complexity": "VeryHigh"})]), True),
    (session("c5", FAILED, 1, [decision("complexity", {"complexity": "VeryHigh"})]), False),
    # delegation: success -> correct; failure -> correct only when delegated
    (session("d1", SUCCESS, 3, [decision("delegation", {"should_delegate": False})]), True),
    (session("d2", FAILED, 3, [decision("delegation", {"should_delegate": False})]), False),
    (session("d3", {"type": "MaxIterationsReached", "last_summary": None}, 9,
             [decision("delegation", {"should_delegate": True})]), True),
    # rlm: success -> correct; failure -> correct only with > 100k tokens and RLM used
    (session("r1", SUCCESS, 1, [decision("rlm_trigger", {"use_rlm": False})]), True),
    (session("r2", FAILED, 1, [decision("rlm_trigger", {"use_rlm": True}, estimated_tokens=150_000)]), True),
    (session("r3", FAILED, 1, [decision("rlm_trigger", {"use_rlm": True}, estimated_tokens=60_000)]), False),
    (session("r4", FAILED, 1, [{**decision("rlm_trigger", {"use_rlm": False}),
                                "input_summary": "estimated_tokens: 200000"}]), False),
]


@pytest.mark.parametrize("record, correct", CASES, ids=[c[0]["id"] for c in CASES])
def test_seed_correctness_rules(record, correct):
    score, states = run("adjutant/decision_accuracy", [record])
    assert score.value == float(correct)
    assert states[0][0].value == float(correct)  # per-session value


def test_accuracy_per_signature_and_unjudged():
    sessions = [c[0] for c in CASES] + [
        session("u1", {"type": "UserInterrupted"}, 1, [decision("delegation", {"should_delegate": False})]),
        session("u2", None, 0, [decision("complexity", {"complexity": "Low"})]),
        session("u3", SUCCESS, 1, [decision("mystery", {})]),
    ]
    score, _ = run("adjutant/decision_accuracy", sessions)
    # 12 judged, correct: c1 c3 c4 d1 d3 r1 r2 = 7 -> 7/12; three unjudged
    assert score.value == pytest.approx(7 / 12) and score.details["unjudged"] == 3
    per = score.details["per_signature"]
    # complexity: c1 c3 c4 of 5 -> 3/5; delegation: d1 d3 of 3 -> 2/3; rlm: r1 r2 of 4 -> 1/2
    assert per["complexity"]["accuracy"] == pytest.approx(3 / 5)
    assert per["delegation"]["accuracy"] == pytest.approx(2 / 3)
    assert per["rlm_trigger"]["accuracy"] == pytest.approx(1 / 2)
    only, _ = run("adjutant/decision_accuracy", sessions, signature="delegation")
    assert only.value == pytest.approx(2 / 3)
    assert evalcore.get_metric("adjutant/decision_accuracy", signature="delegation").id == \
        "adjutant/decision_accuracy(signature='delegation')"


def test_counterfactual_record_layout():
    record = session("cf", FAILED, 2, [{
        "signature": "DelegationPipeline", "inputs_hash": "abc", "dspy_output": {"should_delegate": True},
        "dspy_confidence": 0.8, "dspy_latency_ms": 12, "legacy_output": {"should_delegate": False},
        "fallback_used": False, "fallback_reason": None, "provider_lane": "claude",
        "provider_lane_without_dspy": "local",
    }])
    score, _ = run("adjutant/decision_accuracy", [record])
    assert score.value == 1.0  # failed but delegated -> correct


def test_rolling_accuracy_window():
    # 60 delegation decisions in time order: the first 10 wrong (failed, not delegated), then 50 right
    sessions = [session(f"s{i:02d}", FAILED if i < 10 else SUCCESS, 1,
                        [decision("delegation", {"should_delegate": False}, ts=f"2025-01-01T00:{i:02d}:00Z")])
                for i in range(60)]
    score, _ = run("adjutant/rolling_accuracy", list(reversed(sessions)))  # order comes from timestamps
    assert score.value == 1.0 and score.details["in_window"] == 50 and score.details["total_decisions"] == 60
    score, _ = run("adjutant/rolling_accuracy", sessions, window=55)
    assert score.value == pytest.approx(50 / 55)  # last 55 = 5 wrong + 50 right
    assert evalcore.get_metric("adjutant/rolling_accuracy", window=55).id == "adjutant/rolling_accuracy(window=55)"


def test_rolling_accuracy_merges_shards():
    m = evalcore.get_metric("adjutant/rolling_accuracy", window=3)
    sessions = [session(f"s{i}", SUCCESS if i % 2 else FAILED, 1,
                        [decision("delegation", {"should_delegate": False}, ts=f"2025-01-0{i + 1}T00:00:00Z")])
                for i in range(6)]
    states = [st for _, st in m.states([{}] * 6, [{"session": s} for s in sessions])]
    whole = m.compute(m.merge(states)).value
    assert m.compute(m.merge([m.merge(states[3:]), m.merge(states[:3])])).value == whole
    assert whole == pytest.approx(2 / 3)  # last three: s3 right, s4 wrong, s5 right


def cf(dspy, legacy, outcome):
    return session("x", outcome, 1, [decision("delegation", {"should_delegate": dspy},
                                              legacy_output={"should_delegate": legacy})])


def test_shadow_comparison():
    sessions = [
        cf(True, False, FAILED),    # DSPy delegated and is right, legacy would not have: DSPy win
        cf(True, False, FAILED),    # DSPy win
        cf(False, True, FAILED),    # legacy win
        cf(False, False, SUCCESS),  # both right
        cf(False, False, FAILED),   # both wrong
        session("n", FAILED, 1, [decision("delegation", {"should_delegate": True})]),  # no counterfactual
    ]
    score, _ = run("adjutant/shadow_comparison", sessions)
    # (2 - 1) / 5 compared = 0.2
    assert score.value == pytest.approx(0.2)
    assert score.details == {"dspy_wins": 2, "legacy_wins": 1, "both_correct": 1, "both_wrong": 1, "compared": 5,
                             "stored_was_correct": 0}
    empty, _ = run("adjutant/shadow_comparison", sessions[-1:])
    assert empty.status is Status.SKIPPED and "legacy counterfactual" in empty.reason


def labelled(n, correct, day="2025-01-10"):
    outcome = SUCCESS if correct else FAILED
    return [session(f"{day}-{i}", outcome, 1, [decision("delegation", {"should_delegate": False},
                                                        ts=f"{day}T00:{i:02d}:00Z")]) for i in range(n)]


def test_optimization_trigger():
    now = "2025-01-11T00:00:00Z"
    # 20 new labelled examples and no previous run -> example threshold
    s, _ = run("adjutant/optimization_trigger", labelled(20, True), now=now)
    assert s.value == 1.0 and s.details["trigger"] == "example_threshold" and "20 new" in s.feedback
    # 19 all correct -> no trigger, with the reason
    s, _ = run("adjutant/optimization_trigger", labelled(19, True), now=now)
    assert s.value == 0.0 and "19 new labelled examples (< 20)" in s.feedback
    # 10 labelled, 4 right: rolling accuracy 0.4 < 0.70 -> accuracy drop
    s, _ = run("adjutant/optimization_trigger", labelled(4, True) + labelled(6, False, "2025-01-09"), now=now)
    assert s.value == 1.0 and s.details["trigger"] == "accuracy_drop" and "delegation is 0.40" in s.feedback
    # last optimisation 10 hours ago (< 24) -> never, whatever the data
    s, _ = run("adjutant/optimization_trigger", labelled(30, False), now=now,
               last_optimization="2025-01-10T14:00:00Z")
    assert s.value == 0.0 and "only 10.0 h" in s.feedback
    # last optimisation 2 days ago: only examples labelled after it count (20 on the 10th, 5 before)
    s, _ = run("adjutant/optimization_trigger", labelled(20, True) + labelled(5, True, "2025-01-08"), now=now,
               last_optimization="2025-01-09T00:00:00Z")
    assert s.value == 1.0 and s.details["new_examples"] == 20
    assert s.details["signature_to_optimize"] == "delegation"


def test_bad_session_input(tmp_path):
    good = tmp_path / "2025" / "01" / "good.json"
    good.parent.mkdir(parents=True)
    good.write_text(json.dumps(CASES[0][0]))
    (good.parent / "broken.json").write_text('{"id": "b", "decisions": [')
    (tmp_path / "index.json").write_text("{}")
    records = session_records(tmp_path)
    assert [r["id"] for r in records] == ["broken", "good"]
    m = evalcore.get_metric("adjutant/decision_accuracy")
    results = m.states([r["example"] for r in records], [r["prediction"] for r in records])
    assert results[0][0].status is Status.ERROR and "does not parse" in results[0][0].error_message
    assert "broken.json" in results[0][0].error_message
    assert m.corpus_score([st for _, st in results]).value == 1.0  # the bad file loses nothing else
    bad = [
        {"session": str(tmp_path / "missing.json")},
        {"session": {"decisions": "none"}},
        {"session": {"decisions": [], "iterations_used": -1}},
        {"session": {"decisions": [3]}},
        {"session": {"decisions": [], "outcome": {"type": "Exploded"}}},
        {"session": {"decisions": [{"decision_type": "delegation", "output": "yes"}], "outcome": SUCCESS}},
    ]
    fields = ["cannot read", "decisions", "iterations_used", "decisions[0]", "outcome.type", "decisions[0].output"]
    for (score, _), field in zip(m.states([{}] * len(bad), bad), fields):
        assert score.status is Status.ERROR and field in score.error_message, (field, score)
