"""Plan quality, plan adherence and step efficiency against DeepEval's PlanQualityMetric,
PlanAdherenceMetric and StepEfficiencyMetric.

DeepEval reads a trace of its own tracing (a test case's span tree: the agent span with its input,
output and reasoning, a child span per tool call); evalcore reads the same run as turns. Both ask
one scripted OpenAI-compatible server on 127.0.0.1, which reads the run from whichever form the
prompt holds and answers the same for the same run:

* task: the user's request; plan: the steps of the agent's "Plan: a; b" text (none without one);
* plan quality: the share of plan steps that share a word with the task, rounded to 2 decimals;
* plan adherence: the share of plan steps whose first word is the name of a tool called;
* step efficiency: 1 / the number of tool calls, rounded to 2 decimals (1 without calls).
"""

from __future__ import annotations

import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, run_evalcore, write_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_judge import never_called, oracle_fixture

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
KIND = {"Task": "task", "trace_task": "task", "AgentPlan": "plan", "trace_plan": "plan",
        "PlanQualityScore": "quality", "plan_quality": "quality", "PlanAdherenceScore": "adherence",
        "plan_adherence": "adherence", "EfficiencyVerdict": "efficiency", "step_efficiency": "efficiency"}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def steps(text):
    return [step.strip() for step in text.removeprefix("Plan:").split(";") if step.strip()]


def run_of(text):
    """(task, plan steps, tool names) of the run in a prompt: evalcore's turns or DeepEval's trace."""
    if "Trace (the run's messages" in text:
        start = text.index("[", text.rindex("Trace (the run's messages"))
        turns = json.JSONDecoder().raw_decode(text, start)[0]
        task = next(t["content"] for t in turns if t["role"] == "user")
        plan = next((steps(t["content"]) for t in turns if t["role"] == "assistant"
                     and t["content"].startswith("Plan:")), [])
        calls = [c["name"] for t in turns for c in t.get("tool_calls", [])]
    else:
        trace = json.JSONDecoder().raw_decode(text, text.rindex('{\n  "name": "agent"'))[0]
        task, plan = trace["input"]["input"], steps(trace.get("reasoning") or "")
        calls = [child["name"] for child in trace.get("children", [])]
    return task, plan, calls


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    kind = KIND[request["response_format"]["json_schema"]["name"]]
    if kind in ("task", "plan", "efficiency", "adherence"):
        task, plan, calls = run_of(text)
    if kind == "task":
        return Reply.chat(json.dumps({"task": task}), usage=USAGE)
    if kind == "plan":
        return Reply.chat(json.dumps({"plan": plan}), usage=USAGE)
    if kind == "efficiency":
        score = round(1 / len(calls), 2) if calls else 1.0
    else:
        task = after_last(text, "User Task:\n", "\n\nAgent Plan:") if "User Task:" in text \
            else after_last(text, "User task:\n", "\n\nAgent plan:")
        listed = after_last(text, "Agent Plan:\n", "\n\n") if "Agent Plan:" in text \
            else after_last(text, "Agent plan:\n", "\n\n")
        plan = listed.splitlines()
        if kind == "quality":
            score = round(sum(bool(words(step) & words(task)) for step in plan) / len(plan), 2)
        else:
            score = round(sum(step.split()[0] in calls for step in plan) / len(plan), 2)
    return Reply.chat(json.dumps({"score": score, "reason": "oracle"}), usage=USAGE)


oracle_server = oracle_fixture(oracle)


def turns_of(task, plan, calls, answer):
    turns = [{"role": "user", "content": task}]
    if plan:
        turns.append({"role": "assistant", "content": "Plan: " + "; ".join(plan)})
    for name in calls:
        turns += [{"role": "assistant", "content": "", "tool_calls": [{"name": name, "arguments": {"q": task}}]},
                  {"role": "tool", "content": "ok"}]
    return turns + [{"role": "assistant", "content": answer}]


DEEPEVAL = {"judge/plan_quality": "PlanQualityMetric", "judge/plan_adherence": "PlanAdherenceMetric",
            "judge/step_efficiency": "StepEfficiencyMetric"}


def deepeval_score(server, metric_id, task, plan, calls, answer):
    pytest.importorskip("deepeval")
    import deepeval.metrics
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    case = LLMTestCase(input=task, actual_output=answer)
    case._trace_dict = {"name": "agent", "type": "agent", "input": {"input": task}, "output": answer,
                        **({"reasoning": "Plan: " + "; ".join(plan)} if plan else {}),
                        "children": [{"name": name, "type": "tool", "input": {"q": task}, "output": "ok"}
                                     for name in calls]}
    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = getattr(deepeval.metrics, DEEPEVAL[metric_id])(model=model, include_reason=False, async_mode=False)
    return metric.measure(case, _show_indicator=False)


def evalcore_score(server, metric_id, task, plan, calls, answer):
    metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off")
    return metric.score_one({}, {"turns": turns_of(task, plan, calls, answer)})


CASES = {
    "planned and done": ("find a flight to Oslo", ["search flights to Oslo", "book the cheapest"],
                         ["search", "book"], "Booked SK1."),
    "plan half followed": ("find a flight to Oslo", ["search flights", "compare prices", "book it"],
                           ["search", "search", "search"], "Found three."),
    "no plan": ("weather in Paris", [], ["forecast"], "Sunny."),
    "no calls": ("say hello", ["greet the user"], [], "Hello!"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("metric_id", list(DEEPEVAL))
def test_same_number_as_deepeval(oracle_server, metric_id, case):
    before = len(oracle_server.requests)
    theirs = deepeval_score(oracle_server, metric_id, *CASES[case])
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, metric_id, *CASES[case])
    assert ours.status == "ok", ours
    assert ours.value == theirs
    assert len(oracle_server.requests) - before == their_calls


def test_hand_worked_values(oracle_server):
    """'plan half followed': quality: 'search flights' and 'book it' share no word with 'find a
    flight to Oslo', 'compare prices' neither: 0; adherence: only 'search' was called: 1/3 = 0.33;
    efficiency: three calls: 0.33. 'no plan' scores 1 on plan quality and adherence after two calls."""
    case = CASES["plan half followed"]
    assert evalcore_score(oracle_server, "judge/plan_quality", *case).value == 0.0
    adherence = evalcore_score(oracle_server, "judge/plan_adherence", *case)
    assert adherence.value == 0.33
    assert adherence.details["plan"] == ["search flights", "compare prices", "book it"]
    assert adherence.details["task"] == "find a flight to Oslo"
    assert evalcore_score(oracle_server, "judge/step_efficiency", *case).value == 0.33
    before = len(oracle_server.requests)
    assert evalcore_score(oracle_server, "judge/plan_quality", *CASES["no plan"]).value == 1.0
    assert len(oracle_server.requests) - before == 2


WORD = st.sampled_from(["search", "book", "flights", "Oslo", "hotel"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(WORD, min_size=1, max_size=2).map(" ".join), max_size=3),
       st.lists(st.sampled_from(["search", "book", "pay"]), max_size=3), st.sampled_from(list(DEEPEVAL)))
def test_generated_runs_same_number_as_deepeval(oracle_server, plan, calls, metric_id):
    case = ("book flights to Oslo", plan, calls, "done")
    assert evalcore_score(oracle_server, metric_id, *case).value == deepeval_score(oracle_server, metric_id, *case)


@pytest.mark.parametrize("metric_id", list(DEEPEVAL))
def test_nothing_to_read_skips_without_calls(metric_id):
    score = evalcore.get_metric(metric_id, judge=never_called, cache_mode="off").score_one({}, {"response": "x"})
    assert score.status == "skipped" and "query" in score.reason


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {}, "prediction": {"turns": turns_of(*parts)}}
               for case, parts in CASES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    args = [arg for metric_id in DEEPEVAL for arg in ("-m", metric_id)]
    run_evalcore("evaluate", str(path), *args, "--judge-base-url", oracle_server.base_url, "--judge-model", "m",
                 "--cache-dir", str(tmp_path / "cache"), "--json", "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, parts in CASES.items():
        for metric_id in DEEPEVAL:
            assert rows[case][metric_id]["value"] == deepeval_score(oracle_server, metric_id, *parts)
