"""Trajectory accuracy against agentevals' create_trajectory_llm_as_judge (openevals' LLM-as-judge).

agentevals (with an OpenAI client) and evalcore ask one scripted OpenAI-compatible server on
127.0.0.1, which reads the ``<trajectory>`` and ``<reference_trajectory>`` blocks of the prompt and
answers the same for the same trajectories:

* with a reference: true when the tools called are the reference's, in order; continuous: the
  share of the reference's tools that were called, rounded to 2 decimals;
* without: true when a tool was called and the trajectory ends with an assistant turn that says
  something; continuous: 1 / (1 + the number of tool calls), rounded to 2 decimals.
"""

from __future__ import annotations

import json
import os
import re

import evalcore
import pytest
from chat_messages import message_text
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ["LANGSMITH_TRACING"] = "false"
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def block(text, tag):
    found = re.search(rf"<{tag}>\n(.*?)\n</{tag}>(?![\s\S]*<{tag}>)", text, re.S)
    return found.group(1) if found else None


def names(trajectory):
    return re.findall(r"<name>(.*?)</name>", trajectory)


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = request["response_format"]["json_schema"]
    continuous = schema["schema"]["properties"]["score"]["type"] == "number"
    trajectory, reference = block(text, "trajectory"), block(text, "reference_trajectory")
    made = names(trajectory)
    if reference is not None:
        wanted = names(reference)
        score = (round(sum(name in made for name in wanted) / len(wanted), 2) if wanted else 1.0) if continuous \
            else made == wanted
    else:
        ends = trajectory.rsplit("\n\n", 1)[-1]
        score = round(1 / (1 + len(made)), 2) if continuous \
            else bool(made) and ends.startswith("<assistant>\n") and ends != "<assistant>\n\n</assistant>"
    return Reply.chat(json.dumps({"reasoning": "oracle", "score": score}), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def openai_messages(turns):
    out = []
    for n, turn in enumerate(turns):
        message = {"role": turn["role"], "content": turn["content"]}
        if turn.get("tool_calls"):
            message["tool_calls"] = [{"id": f"c{n}.{i}", "type": "function", "function": {
                "name": c["name"], "arguments": json.dumps(c["arguments"])}} for i, c in enumerate(turn["tool_calls"])]
        out.append(message)
    return out


def agentevals_score(server, turns, expected, continuous=False):
    pytest.importorskip("agentevals")
    from agentevals.trajectory.llm import (
        TRAJECTORY_ACCURACY_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
        create_trajectory_llm_as_judge,
    )
    from openai import OpenAI

    prompt = TRAJECTORY_ACCURACY_PROMPT if expected is None else TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
    evaluator = create_trajectory_llm_as_judge(prompt=prompt, judge=OpenAI(base_url=server.base_url, api_key="x"),
                                               model="m", continuous=continuous)
    result = evaluator(outputs=openai_messages(turns),
                       **({} if expected is None else {"reference_outputs": openai_messages(expected)}))
    return float(result["score"])


def evalcore_score(server, turns, expected, continuous=False):
    metric = evalcore.get_metric("judge/trajectory_accuracy", base_url=server.base_url, model="m", cache_mode="off",
                                 continuous=continuous, reference="none" if expected is None else "expected")
    return metric.score_one({} if expected is None else {"expected_tool_calls": expected}, {"turns": turns})


def run(*calls, answer="Done."):
    turns = [{"role": "user", "content": "plan my trip"}]
    for name in calls:
        turns += [{"role": "assistant", "content": "", "tool_calls": [{"name": name, "arguments": {"to": "Oslo"}}]},
                  {"role": "tool", "content": "ok"}]
    return turns + [{"role": "assistant", "content": answer}]


CASES = {
    "as expected": (run("flights", "hotels"), run("flights", "hotels")),
    "other order": (run("hotels", "flights"), run("flights", "hotels")),
    "one missing": (run("flights"), run("flights", "hotels")),
    "no answer": (run("flights", answer=""), None),
    "no calls": (run(), None),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("continuous", [False, True], ids=["pass-fail", "continuous"])
def test_same_number_as_agentevals(oracle_server, case, continuous):
    turns, expected = CASES[case]
    theirs = agentevals_score(oracle_server, turns, expected, continuous)
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, turns, expected, continuous)
    assert ours.status == "ok", ours
    assert len(oracle_server.requests) - before == 1
    assert ours.value == theirs


def test_hand_worked_values(oracle_server):
    """'other order': the reference's tools in another order: false, yet both were called: 1.0
    continuous. 'one missing': 0, and half the reference's tools: 0.5. 'no calls' without a
    reference: false, and 1 / (1 + 0) = 1.0 continuous."""
    assert evalcore_score(oracle_server, *CASES["other order"]).value == 0.0
    assert evalcore_score(oracle_server, *CASES["other order"], continuous=True).value == 1.0
    assert evalcore_score(oracle_server, *CASES["one missing"], continuous=True).value == 0.5
    assert evalcore_score(oracle_server, *CASES["no calls"]).value == 0.0
    assert evalcore_score(oracle_server, *CASES["as expected"]).feedback == "oracle"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["flights", "hotels", "cars"]), max_size=3),
       st.one_of(st.none(), st.lists(st.sampled_from(["flights", "hotels"]), min_size=1, max_size=2)),
       st.booleans())
def test_generated_trajectories_same_number_as_agentevals(oracle_server, made, wanted, continuous):
    turns, expected = run(*made), None if wanted is None else run(*wanted)
    assert evalcore_score(oracle_server, turns, expected, continuous).value == \
        agentevals_score(oracle_server, turns, expected, continuous)


def never_called(prompt, metadata):
    raise AssertionError("no call expected")


@pytest.mark.parametrize(("example", "prediction", "status", "message"), [
    ({}, {"turns": run("flights")}, "skipped", "example.expected_tool_calls is missing"),
    ({"expected_tool_calls": []}, {}, "skipped", "prediction.tool_calls is missing"),
    ({"expected_tool_calls": []}, {"turns": [{"role": "assistant", "tool_calls": [{"arguments": {}}]}]}, "error",
     "prediction.turns[0].tool_calls[0]"),
])
def test_inputs_are_read_before_any_call(example, prediction, status, message):
    score = evalcore.get_metric("judge/trajectory_accuracy", judge=never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == status
    assert message in (score.reason or score.error_message)


def test_expected_calls_read_as_a_message_each():
    seen = []

    def judge(prompt, metadata):
        seen.append(prompt if isinstance(prompt, str) else json.dumps(prompt))
        return json.dumps({"reasoning": "ok", "score": True})

    evalcore.get_metric("judge/trajectory_accuracy", judge=judge, cache_mode="off").score_one(
        {"expected_tool_calls": [{"name": "flights", "arguments": {"to": "Oslo"}}]}, {"turns": run("flights")})
    assert ("<reference_trajectory>\n<assistant>\n<tool_call>\n<name>flights</name>\n"
            '<arguments>{"to": "Oslo"}</arguments>\n</tool_call>\n</assistant>\n</reference_trajectory>') in seen[0]


def test_cli_same_number_as_agentevals(oracle_server, tmp_path):
    records = [{"id": case, "example": {} if expected is None else {"expected_tool_calls": expected},
                "prediction": {"turns": turns}} for case, (turns, expected) in CASES.items() if expected is not None]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/trajectory_accuracy", "--judge-base-url", oracle_server.base_url,
                 "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"), "--json",
                 "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for record in records:
        turns, expected = CASES[record["id"]]
        assert rows[record["id"]]["judge/trajectory_accuracy"]["value"] == \
            agentevals_score(oracle_server, turns, expected)
