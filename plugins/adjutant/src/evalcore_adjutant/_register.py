"""Registration of the ``adjutant`` metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    Granularity,
    MetricSpec,
    ParamSpec,
    TargetCategory,
    Tier,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_PKG = "evalcore_adjutant"
_SEED_CHECKS = (
    " Fields may hold JSON values or strings of JSON, numbers may be numeric strings; a failed "
    "check (malformed JSON, a missing field, a value out of range) scores 0 for its share and is "
    "named in the feedback, so the metric stays a usable optimisation signal."
)


def _format(name: str, cls: str, summary: str, description: str, inputs: tuple[str, ...],
            params: tuple[ParamSpec, ...] = ()) -> MetricSpec:
    return MetricSpec(
        name=name, implementation=f"{_PKG}.formats:{cls}", summary=summary,
        description=description + _SEED_CHECKS, family="adjutant_format", target=TargetCategory.FORMAT,
        tier=Tier.PROXY, value_range=(0.0, 1.0), inputs=inputs, params=params, pass_threshold=1.0,
        version="1",
    )


_RULES = (
    "Decisions are judged by Adjutant's outcome-feedback rules: complexity is correct when the "
    "task succeeded within the iterations expected for the predicted level (Low 2, Medium 4, High 7, "
    "VeryHigh any: complexity_iterations, the limits of the Adjutant source); delegation when the "
    "task succeeded, or it failed but was delegated; rlm_trigger when the task succeeded, or the "
    "context was large (estimated_tokens > rlm_large_context_tokens, default 100000 as in Adjutant) "
    "and RLM was used. Decisions of sessions that were interrupted, errored or have no outcome, "
    "and of unknown signatures, are not judged (details.unjudged). Each record's "
    "prediction.session is a session object or the path of a session JSON file (else the "
    "prediction itself is the session); a file that does not parse is that record's error."
)


def _rule_params() -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(name="complexity_iterations", type="dict", default=None, nullable=True,
                  description="complexity level -> most iterations for a correct call "
                              "(default {'low': 2, 'medium': 4, 'high': 7}; absent levels: any)"),
        ParamSpec(name="rlm_large_context_tokens", type="int", default=100_000, minimum=0,
                  description="estimated tokens above which using RLM is correct even on failure"),
    )


_SIGNATURE = ParamSpec(name="signature", type="str", default=None, nullable=True, identity=True,
                       choices=("complexity", "delegation", "rlm_trigger"),
                       description="one decision signature (default: all)")
_WINDOW = ParamSpec(name="window", type="int", default=50, minimum=1, identity=True,
                    description="number of most recent decisions (Adjutant default 50)")


def _decision(name: str, cls: str, summary: str, description: str, params: tuple[ParamSpec, ...],
              value_range: tuple[float, float] = (0.0, 1.0), deterministic: bool = True,
              direction: str = "higher", version: str = "1") -> MetricSpec:
    return MetricSpec(
        name=name, implementation=f"{_PKG}.decisions:{cls}", summary=summary,
        description=f"{description} {_RULES}", family="adjutant_decisions",
        target=TargetCategory.AGENT_BEHAVIOUR, tier=Tier.PROXY, value_range=value_range,
        granularity=Granularity.CORPUS, params=(*params, *_rule_params()), direction=direction,  # type: ignore[arg-type]
        inputs=("prediction.session",), deterministic=deterministic, version=version,
    )


_CONFIDENCE_THRESHOLD = ParamSpec(
    name="confidence_threshold", type="float", default=0.7, minimum=0.0, maximum=1.0, identity=True,
    description="DSPy's decision is used above this confidence (the Adjutant pipelines' 0.7)")


def _specs() -> list[MetricSpec]:
    return [
        _format("subtask_planning", "SubtaskPlanning",
                "Planning output: JSON subtask array, valid actions, valid targets, actionable instructions.",
                "dsrs / Adjutant (subtask_planning_metric), 25 % each: (1) prediction.subtasks is a JSON array "
                "whose items all have id, action, target and instruction; (2) every action is read, edit or "
                "bash; (3) every read/edit target contains '/' or '.', no space and does not start with "
                "'http' (bash needs none); (4) every instruction starts (case-insensitively, as a prefix) "
                "with one of the Adjutant action verbs (add, create, update, ... execute). Checks 2-4 fail "
                "on an empty or unparsable array.",
                ("prediction.subtasks",)),
        _format("subtask_execution", "SubtaskExecution",
                "Execution output: valid result JSON, edit strings or command, substantive reasoning.",
                "dsrs / Adjutant (subtask_execution_metric), 33/33/34 %: (1) prediction.result is valid JSON "
                "(a string that parses, or any non-null value); (2) it has old_string and new_string, or "
                "command, or is non-empty read content (a JSON string); (3) prediction.reasoning has at "
                "least 20 characters (Unicode code points, not UTF-8 bytes).",
                ("prediction.result", "prediction.reasoning")),
        _format("synthesis", "Synthesis",
                "Synthesis output: success boolean, summary, modified_files array, calibrated confidence.",
                "dsrs / Adjutant (synthesis_metric), 25 % each: (1) prediction.success is a boolean or the "
                "string true/false; (2) summary has at least 15 characters; (3) modified_files is a JSON "
                "array; (4) confidence is a number (or numeric string) in 0..1.",
                ("prediction.success", "prediction.summary", "prediction.modified_files",
                 "prediction.confidence")),
        _format("tool_step_utility", "ToolStepUtility",
                "Tool-step utility output: utility in 0..1, should_continue, hint, calibrated confidence.",
                "dsrs (tool_step_utility_metric), 25 % each: (1) prediction.step_utility is a number in "
                "0..1 (negative, above 1 or NaN fails); (2) should_continue is a boolean (or true/false "
                "string); (3) next_action_hint has at least min_hint_chars characters (Adjutant names the "
                "check without a length; 15, as for summaries); (4) confidence is in 0..1.",
                ("prediction.step_utility", "prediction.should_continue", "prediction.next_action_hint",
                 "prediction.confidence"),
                (ParamSpec(name="min_hint_chars", type="int", default=15, minimum=0,
                           description="shortest substantive next_action_hint"),)),
        _format("combined", "Combined",
                "60 % subtask_planning + 40 % synthesis.",
                "dsrs / Adjutant (combined_metric): 0.6 x adjutant/subtask_planning + 0.4 x adjutant/synthesis "
                "on the same prediction (execution is scored per subtask, separately).",
                ("prediction.subtasks", "prediction.success", "prediction.summary",
                 "prediction.modified_files", "prediction.confidence")),
        _decision("decision_accuracy", "DecisionAccuracy",
                  "Share of Adjutant decisions judged correct by the session outcomes.",
                  "Adjutant (outcome feedback, per-signature metrics): correct / judged decisions over all "
                  "sessions (micro-average), for one signature or all; details give every signature's "
                  "count and accuracy. No judged decision: skipped.",
                  (_SIGNATURE,)),
        _decision("rolling_accuracy", "RollingAccuracy",
                  "Accuracy of the most recent decisions (window 50).",
                  "Adjutant (PerformanceTracker RollingAccuracy): accuracy over the last `window` judged "
                  "decisions in time order (decision timestamp, else session end/start, then session id "
                  "and position), for one signature or all; details give totals and each signature's "
                  "rolling accuracy.",
                  (_SIGNATURE, _WINDOW)),
        _decision("shadow_comparison", "ShadowComparison",
                  "Shadow mode: (DSPy wins - legacy wins) / decisions with a legacy counterfactual.",
                  "Adjutant (counterfactual recording, shadow-mode analysis): for each decision with a "
                  "legacy_output, DSPy is right when its output is judged correct and legacy would have "
                  "been right when the legacy output is judged correct under the same outcome (Adjutant's "
                  "would_legacy_succeed, with the same rules). DSPy's side is the decision's stored "
                  "was_correct when it has one, as the Adjutant shadow analysis reads it, else judged by "
                  "the rules. A DSPy win is DSPy right and legacy wrong, a legacy win the reverse. Value "
                  "in -1..1, 0 = parity; details count wins, both-correct, both-wrong. None compared: skipped.",
                  (_SIGNATURE,), value_range=(-1.0, 1.0), version="2"),
        _decision("optimization_trigger", "OptimizationTrigger",
                  "1 when Adjutant's auto-optimiser would run now; the reason is in the feedback.",
                  "Adjutant (AutoOptimizer.should_optimize): no trigger if fewer than "
                  "min_hours_between_optimizations (24) hours passed since last_optimization; else trigger "
                  "when at least min_labeled_examples (20) decisions were labelled after it "
                  "(example_threshold), else when any signature's rolling accuracy (window 50) is below "
                  "accuracy_threshold (0.70; accuracy_drop). details.signature_to_optimize: the signature "
                  "with the lowest rolling accuracy (ties: more labelled examples), whichever rule fired, "
                  "as the Adjutant optimiser prioritises it. Not deterministic unless `now` is given.",
                  (ParamSpec(name="min_labeled_examples", type="int", default=20, minimum=0,
                             description="judged decisions needed before optimising"),
                   ParamSpec(name="accuracy_threshold", type="float", default=0.70, minimum=0.0, maximum=1.0,
                             description="optimise when the rolling accuracy falls below this"),
                   ParamSpec(name="min_hours_between_optimizations", type="float", default=24.0, minimum=0.0,
                             description="hours that must pass since the last optimisation"),
                   ParamSpec(name="last_optimization", type="str", default=None, nullable=True,
                             description="ISO 8601 time of the last optimisation run (none: never)"),
                   ParamSpec(name="now", type="str", default=None, nullable=True,
                             description="ISO 8601 time to check at (default: the current time)"),
                   _WINDOW),
                  deterministic=False, version="2"),
        _decision("gate_accuracy", "GateAccuracy",
                  "Accuracy of the decision the confidence gate used (DSPy above 0.7, else the legacy rule).",
                  "Adjutant's decision pipelines (DSPy-first with legacy fallback): DSPy's output is used "
                  "when its dspy_confidence is above confidence_threshold (0.7) and it did not fall back "
                  "(fallback_used), else the legacy rule's. The value is the accuracy of the decisions so "
                  "used, judged by the rules below; a decision that used legacy without a legacy_output, or "
                  "has neither a confidence nor a fallback record, is left out. details: how often each "
                  "side was used, and the accuracy of always DSPy and always legacy on the same decisions.",
                  (_SIGNATURE, _CONFIDENCE_THRESHOLD)),
        _decision("fallback_rate", "FallbackRate",
                  "Share of decisions that fell back to the legacy rule, by reason.",
                  "Adjutant's counterfactual records: fallback_used over every decision that records it "
                  "(judged or not), with counts and rates by fallback_reason (LowConfidence, ParseError, "
                  "Timeout, ToolMissing, ProviderUnavailable; 'unrecorded' when missing). No record: skipped.",
                  (_SIGNATURE,), direction="lower"),
        _decision("confidence_calibration", "ConfidenceCalibration",
                  "Expected calibration error of dspy_confidence, with a reliability table.",
                  "Adjutant's decision confidence against outcome-judged correctness: decisions with a "
                  "dspy_confidence (or predicted_confidence) go into n_bins equal-width bins over 0..1 (the "
                  "last closed); the value is the expected calibration error, the count-weighted mean of "
                  "|accuracy - mean confidence| per bin (0 = calibrated); details.reliability lists each "
                  "non-empty bin's count, mean confidence and accuracy.",
                  (_SIGNATURE, ParamSpec(name="n_bins", type="int", default=10, minimum=1, identity=True,
                                            description="equal-width confidence bins over 0..1")),
                  direction="lower"),
    ]


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The metric specs of the ``adjutant`` plugin."""
    return _specs()
