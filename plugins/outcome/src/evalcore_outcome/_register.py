"""Registration of the ``outcome`` metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    MetricSpec,
    ParamSpec,
    TargetCategory,
    Tier,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_PKG = "evalcore_outcome"
_AGENT = TargetCategory.AGENT_BEHAVIOUR


def _weight(name: str, default: float, what: str) -> ParamSpec:
    return ParamSpec(name=name, type="float", default=default, minimum=0.0, description=what)


_COUNTS_DOC = (
    "how verification_delta counts tests: 'passing' (dsrs, positive = improvement) or "
    "'failing' (Adjutant, negative = improvement); tests_after - tests_before is always passing"
)


def _counts(default: str) -> ParamSpec:
    return ParamSpec(name="verification_counts", type="str", default=default,
                     choices=("passing", "failing"), description=_COUNTS_DOC)


def _command_params(command: ParamSpec) -> tuple[ParamSpec, ...]:
    return (
        command,
        ParamSpec(name="timeout_s", type="float", default=120.0, minimum=0.001,
                  description="wall-clock limit; on expiry the process group is killed and the sample is an error"),
        ParamSpec(name="cwd", type="str", default=None, nullable=True,
                  description="working directory (prediction.workdir overrides it per sample)"),
        ParamSpec(name="max_output_bytes", type="int", default=10_000_000, minimum=1,
                  description="stdout+stderr beyond this kills the command (error: output flood)"),
        ParamSpec(name="output_tail_chars", type="int", default=2000, minimum=0,
                  description="characters of stdout/stderr kept in the details (the end of each)"),
        ParamSpec(name="env", type="dict", default=None, nullable=True,
                  description="variables set for the command (besides PATH, HOME, LANG, TMPDIR)"),
        ParamSpec(name="pass_env", type="list", default=None, nullable=True,
                  description="names of variables passed on from evalcore's environment"),
        ParamSpec(name="isolation", type="str", default="auto", choices=("auto", "bwrap", "unshare", "none"),
                  description="'auto': the strongest available, bwrap then unshare (no network, read-only "
                              "root, private /tmp and PID namespace; the working directory stays writable); "
                              "'none' only when asked for: the command can read evalcore's environment"),
        ParamSpec(name="cost_msats", type="int", default=None, nullable=True, minimum=0,
                  description="measured cost of one run, reported on every result (default: the spec's estimate)"),
    )


_RUNS = (
    "The command is an argument list (a string parameter is split with shlex; it is never run "
    "through a shell), started in a new session with stdin closed; when it exits or is stopped, "
    "every process it started is killed, including children that left its session. It sees only "
    "PATH, HOME, LANG, TMPDIR and the variables given by env and pass_env; the values of "
    "secret-looking variables (KEY, TOKEN, SECRET, PASSWORD ...) are redacted from the stored "
    "output. A command that cannot start, runs past timeout_s or writes more than "
    "max_output_bytes is an error result naming the reason; the exit code, duration and the tails "
    "of stdout and stderr are in the details. Every result carries cost_msats (the estimate "
    "unless a measured cost is configured). See docs/security.md."
)


def _specs() -> list[MetricSpec]:
    return [
        MetricSpec(
            name="outcome_coupled", implementation=f"{_PKG}.step:OutcomeCoupled",
            summary="dsrs outcome-coupled step score: utility, no repetition, test delta, valid params.",
            description=(
                "dsrs (OutcomeCoupledScorer): step_score = utility_weight * (step_utility + 1) / 2 "
                "+ repetition_weight * (1 - was_repeated) + verification_weight * v + schema_weight * "
                "params_valid, with v = 1 if the tests improved, 0.5 if unchanged, 0 if they regressed. "
                "Defaults 0.4 / 0.3 / 0.2 / 0.1. Reads prediction.step_utility (-1..1; NaN or out of range "
                "is an input error), was_repeated, params_valid (booleans) and verification_delta (or "
                "tests_before/tests_after). Missing labels skip the sample. Adjutant's different formula "
                "is outcome/step_score."
            ),
            family="agent_step", target=_AGENT, tier=Tier.PROXY, value_range=(0.0, 1.0),
            params=(
                _weight("utility_weight", 0.4, "weight of (step_utility + 1) / 2"),
                _weight("repetition_weight", 0.3, "weight of 1 - was_repeated"),
                _weight("verification_weight", 0.2, "weight of the test-delta score 1 / 0.5 / 0"),
                _weight("schema_weight", 0.1, "weight of params_valid"),
                _counts("passing"),
            ),
            inputs=("prediction.step_utility", "prediction.was_repeated", "prediction.verification_delta",
                    "prediction.params_valid"),
            pass_threshold=0.5, version="1",
        ),
        MetricSpec(
            name="step_score", implementation=f"{_PKG}.step:StepScore",
            summary="Adjutant compute_step_score: utility x 0.4, +0.3 on improvement, -0.2 on repetition, cost.",
            description=(
                "Adjutant (compute_step_score for MIPRO): score = step_utility * 0.4 + 0.3 if "
                "the tests improved - 0.2 if was_repeated - min(cost_tokens / 10000, 0.1). Improvement "
                "follows Adjutant's LabeledToolCall: verification_delta is the change in failing tests, "
                "negative = improvement (verification_counts='passing' flips it). Range -0.7..0.7. Reads "
                "prediction.step_utility (-1..1), verification_delta, was_repeated, cost_tokens (>= 0). "
                "The dsrs weighting is outcome/outcome_coupled."
            ),
            family="agent_step", target=_AGENT, tier=Tier.PROXY, value_range=(-0.7, 0.7),
            params=(
                _weight("utility_weight", 0.4, "multiplier of step_utility"),
                _weight("improvement_bonus", 0.3, "added when the tests improved"),
                _weight("repetition_penalty", 0.2, "subtracted when the call was repeated"),
                _weight("cost_penalty_cap", 0.1, "largest cost penalty"),
                ParamSpec(name="tokens_per_penalty_unit", type="float", default=10000.0, minimum=1.0,
                          description="cost penalty = cost_tokens / this, capped"),
                _counts("failing"),
            ),
            inputs=("prediction.step_utility", "prediction.verification_delta", "prediction.was_repeated",
                    "prediction.cost_tokens"),
            pass_threshold=0.0, version="1",
        ),
        MetricSpec(
            name="was_repeated", implementation=f"{_PKG}.repetition:WasRepeated",
            summary="1 when the tool call is new, 0 when the same tool and params ran earlier.",
            description=(
                "The dsrs WasRepeatedMetric: the call's canonical hash, SHA-256 of the JSON "
                "{tool, params} with sorted keys and integral floats as integers, is compared with the "
                "hash of every entry of example.execution_history (a list of {tool, params}; missing "
                "history = empty). 1.0 = not repeated, 0.0 = repeated; details name the first earlier "
                "step. Missing fields read as the dsrs code's unwrap_or defaults, each said in the "
                "feedback: a missing tool or params is null, a history that is not a list is empty, an "
                "entry that is not an object is {tool: null, params: null}."
            ),
            family="agent_step", target=_AGENT, tier=Tier.PROXY, value_range=(0.0, 1.0),
            inputs=("prediction.tool", "prediction.params", "example.execution_history"), version="2",
        ),
        MetricSpec(
            name="tool_params_schema", implementation=f"{_PKG}.schema:ToolParamsSchema",
            summary="Tool-call params validated with jsonschema against the tool's schema.",
            description=(
                "The dsrs ToolParamsSchemaMetric: the schema of prediction.tool is taken from "
                "example.tool_schemas, else the schemas parameter (tool name -> JSON Schema). 1.0 when "
                "prediction.params validate (the draft is the schema's $schema, default 2020-12), 0.0 "
                "when they do not (details list the errors), 0.0 for an unknown tool, 0.5 when the "
                "schema itself does not compile. As in the dsrs code, a missing tool is the unknown "
                "tool '' and missing params are null (validated as such), each said in the feedback."
            ),
            family="agent_step", target=_AGENT, tier=Tier.PROXY, value_range=(0.0, 1.0),
            params=(ParamSpec(name="schemas", type="dict", default=None, nullable=True,
                              description="tool name -> JSON Schema (example.tool_schemas takes precedence)"),),
            inputs=("prediction.tool", "prediction.params", "example.tool_schemas"),
            requires=("jsonschema",), version="2",
        ),
        MetricSpec(
            name="sandbox", implementation=f"{_PKG}.commands:Sandbox",
            summary="Runs a command; 1 when it exits with the expected code, else 0.",
            description="dsrs (SandboxMetric): value 1.0 when the exit code equals expected_exit_code "
                        "(default 0), else 0.0; default timeout 120 s. " + _RUNS,
            family="execution", target=_AGENT, tier=Tier.TRUTH, cost_msats=500, value_range=(0.0, 1.0),
            params=(*_command_params(ParamSpec(name="command", required=True,
                                               description="argument list to run")),
                    ParamSpec(name="expected_exit_code", type="int", default=0,
                              description="exit code that counts as success")),
            inputs=("prediction.workdir",), deterministic=False, version="1",
        ),
        MetricSpec(
            name="test_pass", implementation=f"{_PKG}.commands:TestPass",
            summary="Runs the test command; 1 when it exits with 0, else 0.",
            description="dsrs (TestPassMetric): value 1.0 when the test command (default `cargo test`) "
                        "exits with 0; details carry the output and the number of passing tests read from "
                        "it (cargo and pytest forms). " + _RUNS,
            family="execution", target=_AGENT, tier=Tier.TRUTH, cost_msats=500, value_range=(0.0, 1.0),
            params=_command_params(ParamSpec(name="command", default=("cargo", "test"),
                                             description="test command as an argument list")),
            inputs=("prediction.workdir",), deterministic=False, version="1",
        ),
        MetricSpec(
            name="verification_delta", implementation=f"{_PKG}.commands:VerificationDelta",
            summary="Passing tests after the step vs before: 1 more, 0.5 same, 0 fewer.",
            description=(
                "dsrs (VerificationDeltaMetric): tests_before = example.tests_passing (0 when absent, "
                "as in dsrs; details say whether it was recorded), tests_after = the passing count "
                "in the test command's stdout: the sum of cargo's `test result: ... N passed` lines, "
                "else the last pytest-style `N passed` (0 when none is found; details.count_found). "
                "Value 1.0 if after > before, 0.5 if equal, 0.0 if fewer. " + _RUNS
            ),
            family="execution", target=_AGENT, tier=Tier.TRUTH, cost_msats=500, value_range=(0.0, 1.0),
            params=_command_params(ParamSpec(name="command", required=True,
                                             description="test command as an argument list")),
            inputs=("example.tests_passing", "prediction.workdir"), deterministic=False, version="1",
        ),
    ]


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The metric specs of the ``outcome`` plugin."""
    return _specs()
