"""The judged agent metrics on the records the agent plugin reads from OpenTelemetry traces,
through ``evalcore evaluate --traces`` and a scripted judge on 127.0.0.1.

The judge reads each prompt's run and answers by the schema it is asked for: the task is the first
user turn of the run; step efficiency is 1 / the number of tool calls in it; every call's
arguments are correct; the goal is reached when the last assistant turn is not empty."""

from __future__ import annotations

import json
import pathlib

import pytest
from evalcore.testing import Reply, ScriptedServer, run_evalcore

pytest.importorskip("evalcore_agent")
pytest.importorskip("evalcore_judge")

TRACES = pathlib.Path(__file__).resolve().parents[1] / "examples" / "traces" / "agent_otlp.json"
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
# From the trace file, by hand: the weather trace calls search_city then get_weather, the flight
# trace find_flights twice.
TASKS = {"weather in Paris?": 2, "book a flight to Oslo": 2}


def judge(request):
    text = "\n".join(m["content"] for m in request["messages"])
    schema = request["response_format"]["json_schema"]["name"]
    if schema == "trace_task":
        turns = json.JSONDecoder().raw_decode(text, text.index("[", text.index("Trace (the run's messages")))[0]
        return Reply.chat(json.dumps({"task": turns[0]["content"]}), usage=USAGE)
    if schema == "step_efficiency":
        calls = text.split("\n\nTrace:\n", 1)[1].count('"arguments"')  # one per tool call in the run
        return Reply.chat(json.dumps({"score": round(1 / calls, 2), "reason": "scripted"}), usage=USAGE)
    if schema == "argument_verdicts":
        calls = json.loads(text.split("Tool calls:\n", 1)[1].split("\n\nGive a verdict", 1)[0])
        return Reply.chat(json.dumps({"verdicts": [{"reason": "", "verdict": "yes"} for _ in calls]}), usage=USAGE)
    if schema == "goal_outcome":
        said = [line for line in text.splitlines() if line.startswith("AI: ")]
        return Reply.chat(json.dumps({"user_goal": "the task", "end_state": said[-1] if said else ""}), usage=USAGE)
    return Reply.chat(json.dumps({"reason": "scripted", "verdict": 1}), usage=USAGE)


def test_judged_agent_metrics_on_traces(tmp_path):
    metrics = ["judge/step_efficiency", "judge/argument_correctness", "judge/agent_goal_accuracy(reference='none')",
               "agent/no_loop"]
    with ScriptedServer(judge) as server:
        run_evalcore("evaluate", "--traces", str(TRACES), *[a for m in metrics for a in ("-m", m)],
                     "--judge-base-url", server.base_url, "--judge-model", "m", "--cache-mode", "off",
                     "--samples", str(tmp_path / "rows.jsonl"), "--json")
        asked = len(server.requests)
    rows = [row for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines()) if "scores" in row]
    assert len(rows) == 2
    for row in rows:
        scores = row["scores"]
        efficiency = scores["judge/step_efficiency"]
        assert efficiency["status"] == "ok", efficiency
        assert efficiency["details"]["task"] in TASKS
        assert efficiency["value"] == round(1 / TASKS[efficiency["details"]["task"]], 2) == 0.5
        assert scores["judge/argument_correctness"]["value"] == 1.0
        assert scores["judge/agent_goal_accuracy(reference='none')"]["value"] == 1.0
        assert scores["agent/no_loop@3"]["value"] == 1.0
    assert asked == 2 * (2 + 1 + 2)  # per trace: task and score, the verdicts, goal and comparison
