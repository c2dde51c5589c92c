"""Metric specs of the agent plugin (imports only ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import MetricSpec, ParamSpec, RecordViewSpec, TargetCategory, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics", "evalcore_readers", "evalcore_record_views"]

PLUGIN_API_VERSION = 2  # the evalcore plugin API these specs are written for (2: the record view)

_PKG = "evalcore_agent.metrics"
_INPUTS = ("prediction.tool_calls", "prediction.turns", "example.expected_tool_calls")

_RECORDS = (
    "Calls are `{name, arguments, result?}`, read from `prediction.tool_calls`, else from the `tool_calls` of "
    "the turns in `prediction.turns` (`{role, content, tool_calls?}`) in order; a prediction with neither made "
    "no calls. `field` / `expected_field` name other dotted paths (to a list of calls or of turns). Expected "
    "calls come from `example.expected_tool_calls`; a missing one skips the sample, an empty list means no "
    "call was expected. A call list that is not a list, a call without a name or arguments that are not a "
    "mapping are an error naming the field and index. Argument values compare as JSON: true is not 1 (the "
    "references use Python equality, where True == 1), 1 equals 1.0, key order does not matter; "
    "`ignore_case` folds tool names and string values. Proxy tier, zero cost, deterministic."
)
_DEEPEVAL = (
    "No expected calls scores 1.0 when no call was made and 0.0 otherwise, as in DeepEval. `mode='unordered'` "
    "(default, as in DeepEval): each expected call pairs with at most one call; value = sum of the pair scores "
    "/ number of expected calls. `mode='ordered'` (DeepEval's should_consider_ordering): the weighted longest "
    "common subsequence of expected calls and calls made / number of expected calls. `mode='exact'` "
    "(DeepEval's should_exact_match): 1.0 when the calls made are the expected ones position by position, "
    "each scoring 1.0, else 0.0. `compare_results=True` also requires equal results (DeepEval's "
    "evaluation_params output). The LLM-judged tool selection of DeepEval (`available_tools`) is not part of "
    "this score. Where evalcore differs from DeepEval, a parameter gives DeepEval's number: DeepEval pairs "
    "greedily (each expected call in order takes the first unused call with the highest score), which can "
    "miss the best pairing when pair scores are partial; evalcore takes the one-to-one pairing with the "
    "largest total (`matching='greedy'` for DeepEval's). DeepEval tracks paired calls in a set of values, so "
    "in its unordered score a call repeated with the same arguments and result pairs only once (expected "
    "[search, search], called [search, search] scores 0.5); evalcore pairs every repeat (`count_repeats=False` "
    "for DeepEval's number; unordered mode only). "
)


def _common(mode: ParamSpec, *more: ParamSpec) -> tuple[ParamSpec, ...]:
    return (
        mode,
        *more,
        ParamSpec(name="ignore_case", type="bool", default=False, identity=True,
                  description="compare tool names and string argument values case-folded"),
        ParamSpec(name="field", type="str", default=None, nullable=True, identity=True,
                  description="dotted path in the prediction of the calls made (a list of calls or of turns); "
                              "None: tool_calls, else turns"),
        ParamSpec(name="expected_field", type="str", default="expected_tool_calls", identity=True,
                  description="dotted path in the example of the expected calls (a list of calls or of turns)"),
    )


def _matching(where: str) -> ParamSpec:
    return ParamSpec(name="matching", type="str", default="optimal", identity=True, choices=("optimal", "greedy"),
                     description=f"pairing of calls ({where}): 'optimal' (the best one-to-one pairing) or "
                                 "'greedy' (each in order takes the first unused match, as the reference does)")


def _arguments_by_tool(modes: str) -> ParamSpec:
    return ParamSpec(name="arguments_by_tool", type="dict", default=None, nullable=True, identity=True,
                     description=f"argument rule per tool name: {modes}, or a list of dotted argument paths "
                                 "compared alone (agentevals' tool_args_match_overrides)")


def _deepeval_params(*arguments: ParamSpec) -> tuple[ParamSpec, ...]:
    return _common(
        ParamSpec(name="mode", type="str", default="unordered", identity=True,
                  choices=("unordered", "ordered", "exact"),
                  description="'unordered' (share of expected calls made), 'ordered' (weighted longest common "
                              "subsequence) or 'exact' (the same calls in the same order)"),
        *arguments,
        ParamSpec(name="compare_results", type="bool", default=False, identity=True,
                  description="a call must also return the expected result (DeepEval's output parameter)"),
        _matching("unordered mode"),
        ParamSpec(name="count_repeats", type="bool", default=True, identity=True,
                  description="pair every repeat of a call; False: identical calls pair once, as in DeepEval's "
                              "unordered score"),
    )


def _spec(name: str, cls: str, **fields: object) -> MetricSpec:
    fields = {"implementation": f"{_PKG}:{cls}", "inputs": _INPUTS, **fields}
    return MetricSpec(
        name=name, family="agent", target=TargetCategory.AGENT_BEHAVIOUR, tier="proxy", cost_msats=0,
        direction="higher", value_range=(0.0, 1.0), granularity="sample", deterministic=True, version="1",
        **fields,  # type: ignore[arg-type]
    )


def _tool_call_correctness() -> MetricSpec:
    return _spec(
        "tool_call_correctness", "ToolCallCorrectness",
        summary="Share of the expected tools the agent called (DeepEval's ToolCorrectnessMetric).",
        description=(
            "DeepEval's ToolCorrectnessMetric with its default evaluation_params (tool names only): an expected "
            "call pairs with a call of the same tool, pair score 1. " + _DEEPEVAL
            + "Arguments are not compared here; agent/tool_argument_correctness compares them. " + _RECORDS
        ),
        params=_deepeval_params(),
    )


def _tool_argument_correctness() -> MetricSpec:
    return _spec(
        "tool_argument_correctness", "ToolArgumentCorrectness",
        summary="Expected tool calls made with the expected arguments, with partial credit "
                "(DeepEval's ToolCorrectnessMetric on input parameters).",
        description=(
            "DeepEval's ToolCorrectnessMetric with evaluation_params input_parameters: an expected call pairs "
            "with a call of the same tool, scored by its arguments. `arguments='partial'` (default, DeepEval): "
            "1.0 for equal arguments, else each argument key the two share adds 1/(number of keys of either) "
            "when the values are equal, or that share of the agreement of two nested mappings; a pair scoring 0 "
            "does not pair. `'exact'`: 1 for equal arguments, else 0. `'expected_keys'`: 1 when every argument "
            "the expected call gives has the same value in the call, extra arguments allowed (agentevals' "
            "'superset'). `'actual_keys'`: 1 when every argument of the call has the same value in the expected "
            "call (agentevals' 'subset'). `arguments_by_tool` sets the rule per tool (one of those, 'ignore', or "
            "a list of dotted argument paths compared alone, where a path absent on both sides agrees). In "
            "`mode='exact'` each position must score 1.0, i.e. equal arguments under 'partial', as in DeepEval. "
            + _DEEPEVAL + _RECORDS
        ),
        params=_deepeval_params(
            ParamSpec(name="arguments", type="str", default="partial", identity=True,
                      choices=("partial", "exact", "expected_keys", "actual_keys"),
                      description="argument agreement: 'partial' (share of agreeing keys, DeepEval), 'exact', "
                                  "'expected_keys' (only the keys the expected call gives) or 'actual_keys'"),
            _arguments_by_tool("'partial', 'exact', 'expected_keys', 'actual_keys', 'ignore'"),
        ),
    )


def _trajectory_match() -> MetricSpec:
    return _spec(
        "trajectory_match", "TrajectoryMatch",
        summary="1 when the agent's tool calls match the expected trajectory (agentevals' trajectory match).",
        description=(
            "agentevals' trajectory match evaluators (create_trajectory_match_evaluator: "
            "trajectory_strict_match, trajectory_unordered_match, trajectory_subset_match, "
            "trajectory_superset_match). Value 1.0 when the calls made match the expected calls under `mode`, "
            "else 0.0. A call matches an expected call when the tool names are equal and the arguments agree "
            "under `arguments`: 'exact' (default, as agentevals' tool_args_match_mode), 'ignore', "
            "'expected_keys' (every argument the expected call gives has the same value in the call; agentevals' "
            "'superset'), 'actual_keys' (every argument of the call has the same value in the expected call; "
            "agentevals' 'subset'); `arguments_by_tool` sets the rule per tool (a mode, or a list of dotted "
            "argument paths compared alone, where a path absent on both sides agrees), as agentevals' "
            "tool_args_match_overrides. Modes: 'strict' (agentevals' strict mode, computed as agentevals does): "
            "the messages compared one by one, each with the same role (ai reads as assistant, human as user), "
            "both with tool calls or both without, the same number of calls, and the calls of a message in any "
            "order, each call made paired with one expected call of that message; message contents are not "
            "compared. It reads the turns of the prediction (`field`, else `turns`, else `tool_calls`) and of "
            "`expected_field`; a list of calls reads as one assistant message per call, and a list of turns "
            "compared with a list of calls is an error naming the field. 'exact' (default): the same calls in "
            "the same order, as one sequence whatever the messages. 'unordered': the same calls in any order, "
            "each call paired with one expected call. "
            "'superset': every expected call is among the calls made, extra calls allowed. 'subset': every call "
            "made is among the expected calls, expected calls may be missing. 'ordered': the expected calls "
            "appear in their order among the calls made, extra calls allowed in between (DeepEval's "
            "should_consider_ordering at full score). With no expected calls, 'superset' and 'ordered' score "
            "1.0 and the others 1.0 only when no call was made. 'exact' equals agentevals' strict mode when "
            "each call is its own assistant message. Where evalcore differs from agentevals: agentevals pairs "
            "greedily (each expected call in order takes the first unused call that matches; in subset and "
            "strict modes each call made takes the first unused expected call), which with a key-based argument "
            "rule can miss a valid pairing; evalcore finds one when it exists (`matching='greedy'` for "
            "agentevals' answer). In subset mode agentevals "
            "applies its argument modes with the roles swapped, so its subset mode with 'superset' arguments is "
            "`mode='subset', arguments='actual_keys'` here; its unordered mode runs the superset and subset "
            "checks one after the other, which with a key-based argument rule requires the arguments to agree "
            "both ways. " + _RECORDS
        ),
        params=_common(
            ParamSpec(name="mode", type="str", default="exact", identity=True,
                      choices=("exact", "strict", "ordered", "unordered", "subset", "superset"),
                      description="'exact' (same calls, same order), 'strict' (agentevals': the same messages, "
                                  "calls in any order within a message), 'ordered' (expected calls in order, extras "
                                  "allowed), 'unordered', 'subset' or 'superset'"),
            ParamSpec(name="arguments", type="str", default="exact", identity=True,
                      choices=("exact", "expected_keys", "actual_keys", "ignore"),
                      description="argument agreement: 'exact', 'expected_keys' (only the keys the expected call "
                                  "gives), 'actual_keys' or 'ignore'"),
            _arguments_by_tool("'exact', 'expected_keys', 'actual_keys', 'ignore'"),
            _matching("strict, unordered, subset and superset modes"),
        ),
    )


def _tool_call_accuracy() -> MetricSpec:
    return _spec(
        "tool_call_accuracy", "ToolCallAccuracy",
        summary="Argument accuracy of the agent's calls, 0 unless it called the expected tools in order (ragas' "
                "ToolCallAccuracy).",
        description=(
            "ragas' ToolCallAccuracy. `mode='ordered'` (default, ragas' strict_order): the tool names called must "
            "be the expected names in the same order; `'unordered'`: the same names in any order, both lists "
            "first sorted by name, then argument names and value texts, as ragas sorts them. Otherwise the value "
            "is 0. When they follow, expected and made calls are paired by position and each pair with the same "
            "name scores the share of the expected call's arguments the call gives with the same value (values "
            "compared as Python str(), as ragas' ExactMatch does: 2 is not 2.0, True is 'True'; 1 when neither "
            "gives arguments, 0 when only the call does); value = sum of pair scores / number of expected calls. "
            "No calls made and none expected scores 1; calls but none expected, or none made, scores 0. "
            "`ignore_case` folds tool names and value texts. Unlike the other agent metrics, argument values "
            "compare as their text here, as in ragas. " + _RECORDS
        ),
        params=_common(
            ParamSpec(name="mode", type="str", default="ordered", identity=True, choices=("ordered", "unordered"),
                      description="'ordered' (the expected tools in order, ragas' strict_order) or 'unordered'"),
        ),
    )


def _no_loop() -> MetricSpec:
    return _spec(
        "no_loop", "NoLoop",
        implementation="evalcore_agent.loops:NoLoop",
        inputs=("prediction.tool_calls", "prediction.turns"),
        summary="1 when the agent repeats no tool call, or cycle of calls, k times in a row.",
        description=(
            "A deterministic loop detector over the calls made, in order (read as by the other agent metrics; no "
            "expected calls needed). A loop is a cycle of 1 to `max_cycle` consecutive calls made `k` or more "
            "times back to back: with k=3, search(q) search(q) search(q) is a loop of one call, and "
            "search fetch search fetch search fetch a loop of two. Calls are the same when the tool names are "
            "equal and, with `arguments='exact'` (default), the arguments are equal as JSON; `arguments='ignore'` "
            "compares tool names only. The scan goes from the first call: at each call the shortest cycle "
            "repeated k times is a loop and the scan continues after its last repeat, else it moves on by one "
            "call. Value 1.0 when no loop is found, 0.0 otherwise; details list each loop (start index, cycle "
            "length, repeats, calls) and `extra_calls`, the calls after each loop's first round. A call list "
            "that is not a list, or a call without a name, is an error naming the field. Proxy tier, zero cost, "
            "deterministic."
        ),
        params=(
            ParamSpec(name="k", type="int", default=3, minimum=2, identity=True,
                      description="times in a row a call or cycle must be made to count as a loop"),
            ParamSpec(name="max_cycle", type="int", default=3, minimum=1, identity=True,
                      description="the longest cycle of calls looked for"),
            ParamSpec(name="arguments", type="str", default="exact", identity=True, choices=("exact", "ignore"),
                      description="'exact': repeats have equal arguments; 'ignore': the same tool is a repeat"),
            ParamSpec(name="ignore_case", type="bool", default=False, identity=True,
                      description="compare tool names and string argument values case-folded"),
            ParamSpec(name="field", type="str", default=None, nullable=True, identity=True,
                      description="dotted path in the prediction of the calls made (a list of calls or of turns); "
                                  "None: tool_calls, else turns"),
        ),
    )


_AS_DEEPEVAL = "with matching='greedy', count_repeats=False (its pairing)"
VERIFIED: dict[str, tuple[str, float]] = {
    "tool_call_correctness": (f"DeepEval ToolCorrectnessMetric's deterministic score, {_AS_DEEPEVAL}", 1e-12),
    "tool_argument_correctness": (f"DeepEval ToolCorrectnessMetric with its argument check, {_AS_DEEPEVAL}",
                                  1e-9),
    "tool_call_accuracy": ("ragas ToolCallAccuracy (strict_order True and False)", 0.0),
    "trajectory_match": ("agentevals' trajectory match evaluators (strict, unordered, subset and superset, each "
                         "argument mode; mode='strict' on messages)", 0.0),
}
"""What each metric's values are tested against, and to what absolute difference (0: equal)."""


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The agent plugin's metrics."""
    specs = [_tool_call_correctness(), _tool_argument_correctness(), _trajectory_match(), _tool_call_accuracy()]
    return [spec.verified(*VERIFIED[spec.name]) for spec in specs] + [_no_loop()]


@hookimpl
def evalcore_readers() -> list[dict]:
    """OpenTelemetry traces of agent runs (``evalcore evaluate --traces FILE``)."""
    return [{
        "name": "otel", "implementation": "evalcore_agent.traces:trace_source",
        "summary": "OpenTelemetry traces (OTLP/JSON or span JSON; OpenInference and GenAI conventions), "
                   "one record per trace: task, answer, tool calls, LLM calls, usage, timings",
        "options": [
            {"flag": "--traces", "dest": "traces",
             "help": "OpenTelemetry trace file: OTLP/JSON (resourceSpans), JSON lines of it, or span JSON"},
            {"flag": "--trace-examples", "dest": "trace_examples", "kind": "str",
             "help": "JSONL of example fields (e.g. expected_tool_calls) keyed by trace_id or query"},
            {"flag": "--trace-records", "dest": "trace_records", "kind": "str",
             "help": "'traces' (default: a record per trace) or 'tool_calls' (a record per tool call)"},
        ],
    }]


@hookimpl
def evalcore_record_views() -> list[RecordViewSpec]:
    """A trace's task, answer, tool calls and LLM calls in the report's record view."""
    return [RecordViewSpec(name="trace", implementation="evalcore_agent.views:trace_view",
                           applies_to="prediction.trajectory",
                           summary="An agent trace: task, final answer, tool calls and LLM calls")]
