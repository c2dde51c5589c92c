"""The evalcore conformance kit applied to every adjutant metric."""

from evalcore.testkit import PluginConformance

PLAN = [{"id": "1", "action": "edit", "target": "src/lib.rs", "instruction": "Add a function"},
        {"id": "2", "action": "bash", "target": "", "instruction": "Run cargo test"}]
SYNTHESIS = {"success": True, "summary": "Successfully added the function", "modified_files": '["src/lib.rs"]',
             "confidence": 0.95}
OUTPUTS = {
    "subtasks": PLAN, **SYNTHESIS,
    "result": {"command": "cargo test"}, "reasoning": "Renamed the function for clarity",
    "step_utility": 0.8, "should_continue": False, "next_action_hint": "Run the failing test again",
}
SUCCESS = {"type": "Success", "summary": "done", "modified_files": [], "verification_passed": True}
FAILED = {"type": "Failed", "reason": "too hard", "error": None}


def _session(sid, outcome, iterations, complexity, delegate, legacy_delegate):
    decisions = [
        {"decision_type": "complexity", "input_summary": "task", "output": {"complexity": complexity},
         "predicted_confidence": 0.9, "timestamp": "2025-01-01T00:00:00Z", "was_correct": None},
        {"decision_type": "delegation", "input_summary": "task", "output": {"should_delegate": delegate},
         "predicted_confidence": 0.8, "timestamp": "2025-01-01T00:01:00Z", "was_correct": None,
         "legacy_output": {"should_delegate": legacy_delegate}},
    ]
    return {"example": {"id": sid}, "prediction": {"session": {
        "id": sid, "task_id": "t", "task_title": "T", "task_description": "D", "started_at": "2025-01-01T00:00:00Z",
        "ended_at": None, "decisions": decisions, "outcome": outcome, "iterations_used": iterations,
        "verification_history": []}}}


SESSIONS = [_session("s1", SUCCESS, 1, "Low", False, True), _session("s2", FAILED, 5, "Low", True, False),
            _session("s3", SUCCESS, 3, "High", False, False)]
FORMATS = ["adjutant/combined", "adjutant/subtask_execution", "adjutant/subtask_planning", "adjutant/synthesis",
           "adjutant/tool_step_utility"]


class TestConformance(PluginConformance):
    namespace = "adjutant"
    package = "evalcore_adjutant"
    examples = SESSIONS
    examples_by_metric = {key: [{"example": {}, "prediction": OUTPUTS},
                                {"example": {}, "prediction": {**OUTPUTS, "subtasks": "[{", "confidence": 2}}]
                          for key in FORMATS}
    bad_inputs = [{"example": {}, "prediction": {"session": "not a session"}}]
    accepts_bad_inputs = {key: "an output-format metric: a missing field scores 0 for its share, by design"
                          for key in FORMATS}
