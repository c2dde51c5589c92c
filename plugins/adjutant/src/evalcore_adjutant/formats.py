"""dsrs / Adjutant output-format metrics of Adjutant's signatures (weighted checks)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from evalcore.plugin import Record, SampleMetric, Score

from .values import Check, boolean, json_array, parse_json, substantive, unit_interval

REQUIRED_SUBTASK_FIELDS = ("id", "action", "target", "instruction")
ACTIONS = ("read", "edit", "bash")
ACTION_VERBS = (
    "add", "create", "update", "modify", "remove", "delete", "implement", "write", "read",
    "run", "test", "fix", "change", "refactor", "move", "rename", "install", "configure",
    "set", "define", "import", "export", "build", "deploy", "check", "verify", "ensure",
    "understand", "analyze", "find", "search", "execute",
)


def weighted(checks: Mapping[str, tuple[float, Check]]) -> Score:
    """Sum the weights of the passed checks; feedback names the failed ones."""
    value = math.fsum(weight for weight, (ok, _) in checks.values() if ok)
    failed = [reason or name for name, (_, (ok, reason)) in checks.items() if not ok]
    return Score(
        value, feedback="; ".join(failed) or None,
        details={"checks": {name: ok for name, (_, (ok, _)) in checks.items()},
                 "weights": {name: weight for name, (weight, _) in checks.items()}},
    )


def _each(subtasks: list[Any] | None, test: Callable[[Mapping[str, Any]], bool], what: str) -> Check:
    """Every subtask passes ``test`` (an empty or unparsable list fails)."""
    if not subtasks:
        return False, f"no subtasks to check {what}"
    bad = [i for i, s in enumerate(subtasks) if not (isinstance(s, Mapping) and test(s))]
    return (not bad, f"{what} fails for subtask(s) {bad}" if bad else None)


def _valid_target(subtask: Mapping[str, Any]) -> bool:
    action, target = subtask.get("action"), subtask.get("target")
    target = target if isinstance(target, str) else ""
    if action in ("read", "edit"):
        return ("/" in target or "." in target) and " " not in target and not target.startswith("http")
    return action == "bash"


def _actionable(subtask: Mapping[str, Any]) -> bool:
    instruction = subtask.get("instruction")
    return isinstance(instruction, str) and instruction.lower().startswith(ACTION_VERBS)


def planning_checks(prediction: Record) -> dict[str, tuple[float, Check]]:
    """The four 25 % checks of ``subtask_planning``."""
    subtasks, error = json_array(prediction.get("subtasks"), "subtasks")
    fields_ok: Check = (False, error) if error else _fields_present(subtasks or [])
    return {
        "json_array_with_fields": (0.25, fields_ok),
        "valid_actions": (0.25, _each(subtasks, lambda s: s.get("action") in ACTIONS, "action in read/edit/bash")),
        "valid_targets": (0.25, _each(subtasks, _valid_target, "target path")),
        "actionable_instructions": (0.25, _each(subtasks, _actionable, "instruction starts with a verb")),
    }


def _fields_present(subtasks: list[Any]) -> Check:
    bad = [i for i, s in enumerate(subtasks)
           if not (isinstance(s, Mapping) and all(f in s for f in REQUIRED_SUBTASK_FIELDS))]
    return (not bad, f"subtask(s) {bad} lack one of {', '.join(REQUIRED_SUBTASK_FIELDS)}" if bad else None)


def synthesis_checks(prediction: Record) -> dict[str, tuple[float, Check]]:
    """The four 25 % checks of ``synthesis``."""
    files, error = json_array(prediction.get("modified_files"), "modified_files")
    return {
        "success_boolean": (0.25, boolean(prediction.get("success"), "success")),
        "substantive_summary": (0.25, substantive(prediction.get("summary"), "summary", 15)),
        "modified_files_array": (0.25, (files is not None, error)),
        "calibrated_confidence": (0.25, unit_interval(prediction.get("confidence"), "confidence")),
    }


class SubtaskPlanning(SampleMetric):
    """25 % each: JSON array with fields, valid actions, valid targets, actionable instructions."""

    def score(self, example: Record, prediction: Record) -> Score:
        return weighted(planning_checks(prediction))


class SubtaskExecution(SampleMetric):
    """33 % valid result JSON, 33 % edit strings or command, 34 % substantive reasoning."""

    def score(self, example: Record, prediction: Record) -> Score:
        raw = prediction.get("result")
        result, error = parse_json(raw)
        valid: Check = (raw is not None and error is None, error or ("result is missing" if raw is None else None))
        edit_or_command = error is None and (
            (isinstance(result, Mapping) and ("old_string" in result and "new_string" in result
                                              or "command" in result))
            or (isinstance(result, str) and result != "")
        )
        return weighted({
            "valid_result_json": (0.33, valid),
            "edit_or_command": (0.33, (edit_or_command, None if edit_or_command else
                                       "result has neither old_string+new_string, command, nor read content")),
            "substantive_reasoning": (0.34, substantive(prediction.get("reasoning"), "reasoning", 20)),
        })


class Synthesis(SampleMetric):
    """25 % each: success boolean, summary of 15+ characters, modified_files array, confidence in 0..1."""

    def score(self, example: Record, prediction: Record) -> Score:
        return weighted(synthesis_checks(prediction))


class ToolStepUtility(SampleMetric):
    """25 % each: step_utility in 0..1, should_continue boolean, substantive hint, confidence in 0..1."""

    def score(self, example: Record, prediction: Record) -> Score:
        return weighted({
            "utility_in_range": (0.25, unit_interval(prediction.get("step_utility"), "step_utility")),
            "should_continue_boolean": (0.25, boolean(prediction.get("should_continue"), "should_continue")),
            "substantive_hint": (0.25, substantive(prediction.get("next_action_hint"), "next_action_hint",
                                                   self.params["min_hint_chars"])),
            "calibrated_confidence": (0.25, unit_interval(prediction.get("confidence"), "confidence")),
        })


class Combined(SampleMetric):
    """60 % subtask_planning + 40 % synthesis on the same prediction."""

    def score(self, example: Record, prediction: Record) -> Score:
        planning = weighted(planning_checks(prediction))
        synthesis = weighted(synthesis_checks(prediction))
        value = math.fsum((0.6 * planning.value, 0.4 * synthesis.value))
        feedback = "; ".join(f for f in (planning.feedback, synthesis.feedback) if f) or None
        return Score(value, feedback=feedback, details={
            "planning": planning.value, "synthesis": synthesis.value,
            "weights": {"planning": 0.6, "synthesis": 0.4},
        })
