"""Labelled tool-call records load from JSONL and feed the outcome metrics."""

import json

import evalcore
import pytest
from evalcore import InputError
from evalcore_outcome.records import LabeledToolCall, OutcomeCoupledLabels, load_tool_calls


def write(tmp_path, lines):
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


CALL = {"signature": "ToolCallSignature", "inputs": {"goal": "fix"},
        "outputs": {"tool": "read", "params": {"path": "a.py"}},
        "step_utility": 0.5, "verification_delta": -1, "cost_tokens": 2000, "cost_tool_calls": 1,
        "was_repeated": False}
LABELS = {"step_utility": 1.0, "tests_before": 2, "tests_after": 4, "was_repeated": False,
          "params_valid": True, "tool": "bash", "params": {"command": "ls"}}


def test_load_and_score(tmp_path):
    records = load_tool_calls(write(tmp_path, [CALL, "", LABELS]))
    assert [r["id"] for r in records] == ["calls.jsonl:1", "calls.jsonl:3"]
    call, labels = records
    assert call["prediction"]["tool"] == "read" and call["example"]["signature"] == "ToolCallSignature"
    # seed 003: 0.5*0.4 + 0.3 (delta -1: fewer failing) - 0 - min(2000/10000, 0.1) = 0.2 + 0.3 - 0.1 = 0.4
    step = evalcore.get_metric("outcome/step_score").score_one(call["example"], call["prediction"])
    assert step.value == pytest.approx(0.4)
    assert labels["prediction"]["verification_delta"] == 2  # computed: 4 - 2
    # seed 000: 0.4*1 + 0.3 + 0.2*1 + 0.1 = 1.0
    oc = evalcore.get_metric("outcome/outcome_coupled").score_one(labels["example"], labels["prediction"])
    assert oc.value == pytest.approx(1.0)
    rep = evalcore.get_metric("outcome/was_repeated").score_one(
        {"execution_history": [{"tool": "read", "params": {"path": "a.py"}}]}, call["prediction"])
    assert rep.value == 0.0


@pytest.mark.parametrize("line, field", [
    ("{not json", None),
    ("[1, 2]", None),
    ({**CALL, "step_utility": 2.0}, "step_utility"),
    ({**CALL, "step_utility": "NaN"}, "step_utility"),
    ({**CALL, "cost_tokens": -1}, "cost_tokens"),
    ({**LABELS, "verification_delta": 5}, None),
    ({k: v for k, v in CALL.items() if k != "was_repeated"}, "was_repeated"),
])
def test_bad_lines_name_file_line_and_field(tmp_path, line, field):
    path = write(tmp_path, [CALL, line])
    with pytest.raises(InputError) as info:
        load_tool_calls(path)
    assert f"{path}:2" in str(info.value)
    if field:
        assert info.value.field == field


def test_models():
    assert LabeledToolCall.model_validate(CALL).verification_delta == -1
    assert OutcomeCoupledLabels.model_validate(LABELS).verification_delta == 2
