"""Format metrics, hand-worked from the seed's weights (each check toggled alone)."""

import json

import evalcore
import pytest

GOOD_PLAN = [{"id": "1", "action": "edit", "target": "src/lib.rs", "instruction": "Add a function"},
             {"id": "2", "action": "bash", "target": "", "instruction": "Run cargo test"}]


def value(metric_id, prediction, **params):
    s = evalcore.get_metric(metric_id, **params).score_one({}, prediction)
    assert s.ok, s
    return s


def plan(**changes):
    first = {**GOOD_PLAN[0], **changes}
    return {"subtasks": json.dumps([first, GOOD_PLAN[1]])}


@pytest.mark.parametrize("prediction, expected", [
    # all four checks pass: 4 x 0.25 = 1.0 (also as a list instead of a JSON string)
    (plan(), 1.0),
    ({"subtasks": GOOD_PLAN}, 1.0),
    # only the action check fails ('write' is not read/edit/bash); the target check also needs a
    # known action, so 'write' fails it too: 0.25 (fields) + 0.25 (verb) = 0.5
    (plan(action="write"), 0.5),
    # only the target fails (space in path): 1 - 0.25 = 0.75
    (plan(target="my file.rs"), 0.75),
    # URL target fails, no '/' or '.' fails: 0.75 each
    (plan(target="https://x.org/a"), 0.75),
    (plan(target="Makefile"), 0.75),
    # only the instruction fails (does not start with a verb): 0.75
    (plan(instruction="The function should be added"), 0.75),
    # only the required-fields check fails (no id): 0.75
    ({"subtasks": json.dumps([{k: v for k, v in GOOD_PLAN[0].items() if k != "id"}])}, 0.75),
    # malformed JSON: every check fails -> 0.0
    ({"subtasks": '[{"id": "1", "action": "edit"'}, 0.0),
    # a JSON object, not an array -> 0.0; missing field -> 0.0
    ({"subtasks": '{"id": "1"}'}, 0.0),
    ({}, 0.0),
    # empty array: the fields check passes vacuously (as in the seed), the other three fail -> 0.25
    ({"subtasks": "[]"}, 0.25),
])
def test_subtask_planning(prediction, expected):
    assert value("adjutant/subtask_planning", prediction).value == pytest.approx(expected)


def test_planning_feedback_names_json_error():
    s = value("adjutant/subtask_planning", {"subtasks": "[{"})
    assert "not valid JSON" in s.feedback and s.details["checks"]["json_array_with_fields"] is False


REASONING = "Renamed the function for clarity"  # 32 bytes >= 20


@pytest.mark.parametrize("prediction, expected", [
    # 0.33 + 0.33 + 0.34 = 1.0
    ({"result": '{"old_string": "fn old()", "new_string": "fn new()"}', "reasoning": REASONING}, 1.0),
    ({"result": {"command": "cargo test"}, "reasoning": REASONING}, 1.0),
    # read content (a JSON string) counts as the second check
    ({"result": '"file contents"', "reasoning": REASONING}, 1.0),
    # valid JSON without edit strings or command: 0.33 + 0.34 = 0.67
    ({"result": '{"old_string": "x"}', "reasoning": REASONING}, 0.67),
    # short reasoning (< 20 bytes): 0.33 + 0.33 = 0.66
    ({"result": {"command": "ls"}, "reasoning": "too short"}, 0.66),
    # malformed JSON: only reasoning, 0.34
    ({"result": '{"command": ', "reasoning": REASONING}, 0.34),
    ({}, 0.0),
])
def test_subtask_execution(prediction, expected):
    assert value("adjutant/subtask_execution", prediction).value == pytest.approx(expected)


SYNTH = {"success": True, "summary": "Successfully added the function", "modified_files": '["src/lib.rs"]',
         "confidence": 0.95}


@pytest.mark.parametrize("changes, expected", [
    ({}, 1.0),                                   # 4 x 0.25
    ({"success": "TRUE"}, 1.0),                  # boolean string accepted
    ({"success": "yes"}, 0.75),                  # success check fails alone: 1 - 0.25
    ({"summary": "Done."}, 0.75),                # summary < 15 characters
    ({"modified_files": "src/lib.rs"}, 0.75),    # not a JSON array
    ({"modified_files": ["a.rs"]}, 1.0),         # a list is an array
    ({"confidence": 1.2}, 0.75),                 # outside 0..1
    ({"confidence": "0.3"}, 1.0),                # numeric string accepted
    ({"confidence": float("nan")}, 0.75),        # NaN fails
    ({"success": None, "summary": None, "modified_files": None, "confidence": None}, 0.0),
])
def test_synthesis(changes, expected):
    assert value("adjutant/synthesis", {**SYNTH, **changes}).value == pytest.approx(expected)


UTIL = {"step_utility": 0.8, "should_continue": False, "next_action_hint": "Run the failing test again",
        "confidence": 0.7}


@pytest.mark.parametrize("changes, expected", [
    ({}, 1.0),                                   # 4 x 0.25
    ({"step_utility": -0.5}, 0.75),              # negative utility fails the range check
    ({"step_utility": float("nan")}, 0.75),      # NaN fails it too
    ({"step_utility": "high"}, 0.75),            # not a number
    ({"should_continue": "maybe"}, 0.75),
    ({"next_action_hint": "retry"}, 0.75),       # < 15 characters
    ({"confidence": -0.1}, 0.75),
])
def test_tool_step_utility(changes, expected):
    assert value("adjutant/tool_step_utility", {**UTIL, **changes}).value == pytest.approx(expected)


def test_tool_step_utility_feedback_and_hint_length():
    s = value("adjutant/tool_step_utility", {**UTIL, "step_utility": -0.5})
    assert "step_utility = -0.5 is outside 0..1" in s.feedback
    assert value("adjutant/tool_step_utility", {**UTIL, "next_action_hint": "retry"}, min_hint_chars=5).value == 1.0


@pytest.mark.parametrize("prediction, expected", [
    # 0.6 x 1.0 + 0.4 x 1.0 = 1.0
    ({**plan(), **SYNTH}, 1.0),
    # planning 1.0, synthesis 0.0 -> 0.6
    (plan(), 0.6),
    # planning 0.0, synthesis 1.0 -> 0.4
    (SYNTH, 0.4),
    # planning 0.75 (bad target), synthesis 0.75 (short summary): 0.6*0.75 + 0.4*0.75 = 0.75
    ({**plan(target="a b"), **SYNTH, "summary": "short"}, 0.75),
    # planning 0.5, synthesis 0.25: 0.3 + 0.1 = 0.4
    ({**plan(action="write"), "success": True}, 0.4),
])
def test_combined(prediction, expected):
    s = value("adjutant/combined", prediction)
    assert s.value == pytest.approx(expected)
    assert s.details["weights"] == {"planning": 0.6, "synthesis": 0.4}


def test_dspy_calling_convention():
    metric = evalcore.get_metric("adjutant/synthesis")
    assert metric({}, SYNTH) == 1.0
    assert metric({}, {**SYNTH, "summary": "x"}, trace=object()) is False  # pass threshold is 1.0
