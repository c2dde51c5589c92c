"""agentevals' strict match (``mode='strict'``) on its own message-order cases, and the loop detector
(``agent/no_loop``) on hand-worked trajectories, through ``evalcore evaluate`` and the Python API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import evalcore
import pytest
from evalcore.plugin import Score

STRICT = "agent/trajectory_match(mode='strict')"


def weather(*cities: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"name": "get_weather", "arguments": {"city": city}} for city in cities]}


def tool(text: str) -> dict[str, Any]:
    return {"role": "tool", "content": text}


QUESTION = {"role": "user", "content": "What is the weather in SF and London?"}
# agentevals' test_trajectory_with_different_tool_message_order: two calls in one message, in the other order
ORDER_MADE = [QUESTION, weather("SF", "London"), tool("80 and sunny in SF."), tool("90 and rainy in London."),
              {"role": "assistant", "content": "SF 80, London 90."}]
ORDER_EXPECTED = [QUESTION, weather("London", "SF"), tool("90 and rainy in London."), tool("80 and sunny in SF."),
                  {"role": "assistant", "content": "London 90˚, SF 80˚."}]
# agentevals' test_trajectory_with_different_message_count: the same calls, one message each
COUNT_MADE = [QUESTION, weather("SF"), tool("80 and sunny in SF."), weather("London"), tool("90 and rainy."),
              {"role": "assistant", "content": "SF 80, London 90."}]


def openai(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns as OpenAI chat messages, as agentevals' tests write them."""
    return [{"role": t["role"], "content": t["content"], **({"tool_calls": [
        {"function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in t["tool_calls"]]}
        if "tool_calls" in t else {})} for t in turns]


@pytest.fixture(scope="module")
def agentevals():
    pytest.importorskip("agentevals", reason="the test extra installs agentevals")
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    def verdict(mode: str, expected: list, made: list) -> float:
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)
        return float(bool(evaluator(outputs=openai(made), reference_outputs=openai(expected))["score"]))

    return verdict


def value(metric_id: str, expected: Any, prediction: dict[str, Any]) -> Score:
    score = evalcore.get_metric(metric_id).score_one({"expected_tool_calls": expected}, prediction)
    assert score.status.value == "ok", score
    return score


def test_calls_of_one_message_in_another_order_match_strictly(agentevals):
    assert agentevals("strict", ORDER_EXPECTED, ORDER_MADE) == 1.0
    assert value(STRICT, ORDER_EXPECTED, {"turns": ORDER_MADE}).value == 1.0
    # 'exact' compares the calls as one sequence: London before SF is another order
    assert value("agent/trajectory_match", ORDER_EXPECTED, {"turns": ORDER_MADE}).value == 0.0


def test_the_same_calls_in_more_messages_do_not_match_strictly(agentevals):
    assert agentevals("strict", ORDER_EXPECTED, COUNT_MADE) == 0.0
    score = value(STRICT, ORDER_EXPECTED, {"turns": COUNT_MADE})
    assert score.value == 0.0
    assert score.feedback == "6 messages, 5 expected (strict)"
    assert agentevals("unordered", ORDER_EXPECTED, COUNT_MADE) == 1.0
    assert value("agent/trajectory_match(mode='unordered')", ORDER_EXPECTED, {"turns": COUNT_MADE}).value == 1.0


def test_roles_are_compared_and_ai_reads_as_assistant(agentevals):
    as_ai = [dict(turn, role="ai") if turn["role"] == "assistant" else turn for turn in ORDER_MADE]
    assert value(STRICT, ORDER_EXPECTED, {"turns": as_ai}).value == 1.0
    user_last = ORDER_MADE[:-1] + [{"role": "user", "content": "SF 80, London 90."}]
    assert agentevals("strict", ORDER_EXPECTED, user_last) == 0.0
    score = value(STRICT, ORDER_EXPECTED, {"turns": user_last})
    assert (score.value, score.feedback) == (0.0, "message 4 is from 'user', expected 'assistant' (strict)")


def test_turns_against_a_call_list_is_one_line_naming_the_field():
    metric = evalcore.get_metric(STRICT)
    score = metric.score_one({"expected_tool_calls": [{"name": "get_weather", "arguments": {"city": "SF"}}]},
                             {"turns": ORDER_MADE})
    assert score.status.value == "error"
    assert "example.expected_tool_calls" in score.error_message and "\n" not in score.error_message


LOOP = "agent/no_loop"


def calls(*names: str) -> dict[str, Any]:
    """``"search"`` is a call without arguments; ``"search:paris"`` one with ``{"q": "paris"}``."""
    out = []
    for name in names:
        tool_name, _, q = name.partition(":")
        out.append({"name": tool_name, "arguments": {"q": q} if q else {}})
    return {"tool_calls": out}


@pytest.mark.parametrize(("made", "params", "expected", "loops"), [
    (calls(), {}, 1.0, []),
    (calls("search", "search"), {}, 1.0, []),  # a retry is not a loop at k=3
    (calls("search", "search"), {"k": 2}, 0.0, [(0, 1, 2)]),
    (calls("plan", "search", "search", "search", "answer"), {}, 0.0, [(1, 1, 3)]),
    (calls("search:paris", "search:rome", "search:oslo"), {}, 1.0, []),  # other arguments: not a repeat
    (calls("search:paris", "search:rome", "search:oslo"), {"arguments": "ignore"}, 0.0, [(0, 1, 3)]),
    (calls("search", "fetch", "search", "fetch", "search", "fetch"), {}, 0.0, [(0, 2, 3)]),
    (calls("search", "fetch", "search", "fetch", "search", "fetch"), {"max_cycle": 1}, 1.0, []),
    (calls("search", "fetch", "search", "fetch", "search"), {}, 1.0, []),  # two and a half rounds
    # the shortest cycle wins, and the scan goes on after a loop
    (calls("a", "a", "a", "a", "b", "c", "b", "c", "b", "c", "d"), {}, 0.0, [(0, 1, 4), (4, 2, 3)]),
    (calls("a", "b", "c", "a", "b", "c", "a", "b", "c"), {}, 0.0, [(0, 3, 3)]),
    (calls("Search", "search", "SEARCH"), {"ignore_case": True}, 0.0, [(0, 1, 3)]),
])
def test_loops_by_hand(made, params, expected, loops):
    score = evalcore.get_metric(LOOP, **params).score_one({}, made)
    assert score.status.value == "ok", score
    assert score.value == expected
    assert [(f["start"], f["cycle"], f["repeats"]) for f in score.details["loops"]] == loops
    assert score.details["extra_calls"] == sum(cycle * (repeats - 1) for _, cycle, repeats in loops)


@pytest.mark.parametrize(("prediction", "field"), [
    ({"tool_calls": "search"}, "prediction.tool_calls"),
    ({"tool_calls": [{"arguments": {}}]}, "prediction.tool_calls[0].name"),
    ({"turns": [{"role": "assistant", "tool_calls": [{"name": "x", "arguments": "q"}]}]},
     "prediction.turns[0].tool_calls[0].arguments"),
])
def test_bad_calls_are_an_error_naming_the_field(prediction, field):
    score = evalcore.get_metric(LOOP).score_one({}, prediction)
    assert score.status.value == "error"
    assert field in score.error_message and "\n" not in score.error_message


def test_loops_in_turns_and_their_feedback():
    turns = [{"role": "user", "content": "q"},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}]},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": {"q": "x"}}] * 2}]
    score = evalcore.get_metric(LOOP).score_one({}, {"turns": turns})
    assert score.value == 0.0
    assert score.feedback == "search(q='x') made 3 times in a row from call 0"
    assert score.details["calls_from"] == "prediction.turns"


def test_through_the_command_line(tmp_path):
    records = [
        {"id": "order", "example": {"expected_tool_calls": ORDER_EXPECTED}, "prediction": {"turns": ORDER_MADE}},
        {"id": "count", "example": {"expected_tool_calls": ORDER_EXPECTED}, "prediction": {"turns": COUNT_MADE}},
        {"id": "looping", "example": {"expected_tool_calls": ORDER_EXPECTED},
         "prediction": {"turns": [QUESTION] + [weather("SF"), tool("80")] * 3}},
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    samples = tmp_path / "rows.jsonl"
    proc = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", str(path), "-m", STRICT, "-m", LOOP,
                           "--samples", str(samples), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["metrics"]
    assert report[STRICT]["value"] == pytest.approx(1 / 3)
    assert report["agent/no_loop@3"]["value"] == pytest.approx(2 / 3)  # k is part of the id
    rows = {row["id"]: row["scores"] for row in map(json.loads, samples.read_text().splitlines()) if "scores" in row}
    assert [rows[i][STRICT]["value"] for i in ("order", "count", "looping")] == [1.0, 0.0, 0.0]
    assert [rows[i]["agent/no_loop@3"]["value"] for i in ("order", "count", "looping")] == [1.0, 1.0, 0.0]
