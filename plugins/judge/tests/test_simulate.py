"""``evalcore simulate`` and :func:`evalcore_judge.simulate.simulate` against one scripted
OpenAI-compatible server on 127.0.0.1 that plays the simulated user (model ``judge-model``), the
system under test (model ``sut``) and the judge of ``judge/conversation_completeness``.

The script: the user says ``hello``, then ``please book a table``, and says its goal is met once an
assistant message says ``Booked``; the system under test answers ``Booked.`` to a message about
booking and ``echo: MESSAGE`` otherwise. The judge finds one intention per conversation and says it
is satisfied when an assistant message says ``Booked`` (DeepEval's ConversationCompletenessMetric:
satisfied intentions / intentions).
"""

from __future__ import annotations

import json

import pytest
from chat_messages import message_text
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.plugin import EvalcoreError
from evalcore.testing import Reply, ScriptedServer
from evalcore_judge.simulate import simulate

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
SCENARIOS = [
    {"id": "book", "goal": "Book a table for two", "persona": "a busy parent", "expected_outcome": "a booking",
     "chatbot_role": "a restaurant's booking assistant"},
    {"id": "short", "goal": "Book a table", "max_turns": 1},
]


def _conversation(request):
    """The turns the simulator was shown (JSON after 'Conversation so far:')."""
    return json.loads(message_text(request["messages"][-1]).split("Conversation so far:\n", 1)[1])


def oracle(request):
    name = ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
    text = "\n".join(message_text(m) for m in request["messages"])
    if request.get("model") == "sut":
        last = message_text(request["messages"][-1])
        return Reply.chat("Booked." if "book" in last else f"echo: {last}", usage=USAGE)
    if name == "simulated_user_turn":
        turns = _conversation(request)
        users = [t for t in turns if t["role"] == "user"]
        if any("Booked" in t["content"] for t in turns if t["role"] == "assistant"):
            answer = {"goal_met": True, "message": ""}
        else:
            answer = {"goal_met": False, "message": "hello" if not users else "please book a table"}
        return Reply.chat(json.dumps(answer), usage=USAGE)
    if name == "user_intentions":
        return Reply.chat(json.dumps({"intentions": ["book a table"]}), usage=USAGE)
    if name == "yes_no_verdict" and "Was the intention satisfied?" in text:
        turns = text.split("Turns:\n", 1)[1].split("\n\nUser intention:", 1)[0]
        return Reply.chat(json.dumps({"reason": "r", "verdict": "yes" if "Booked" in turns else "no"}), usage=USAGE)
    return Reply(400, {"error": f"unexpected request {name!r}"})


@pytest.fixture
def scripted():
    with ScriptedServer(default=oracle) as running:
        yield running


@pytest.fixture
def scenarios(tmp_path):
    path = tmp_path / "scenarios.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in SCENARIOS))
    return path


def _cli(*args):
    return CliRunner().invoke(main, list(args))


def _records(path):
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


BOOKED = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "echo: hello"},
          {"role": "user", "content": "please book a table"}, {"role": "assistant", "content": "Booked."}]


def test_simulate_endpoint_through_the_cli(scripted, scenarios, tmp_path):
    records, report = tmp_path / "conversations.jsonl", tmp_path / "report.json"
    result = _cli("simulate", str(scenarios), "-r", str(records), "--endpoint", scripted.base_url,
                  "--endpoint-model", "sut", "--judge-base-url", scripted.base_url, "--judge-model", "judge-model",
                  "--cache-dir", str(tmp_path / "cache"), "--seed", "7", "--temperature", "0.5",
                  "-m", "judge/conversation_completeness", "-o", str(report), "--json")
    assert result.exit_code == 0, result.output
    found = _records(records)
    assert found["book"]["prediction"]["turns"] == BOOKED
    assert found["book"]["prediction"]["stopped"] == "goal_met"
    assert found["book"]["prediction"]["simulator"]["calls"] == 3
    assert found["book"]["example"] == {"goal": "Book a table for two", "persona": "a busy parent",
                                        "expected_outcome": "a booking",
                                        "chatbot_role": "a restaurant's booking assistant"}
    assert found["short"]["prediction"]["turns"] == BOOKED[:2]
    assert found["short"]["prediction"]["stopped"] == "turn_limit"
    simulator = [r["json"] for r in scripted.requests
                 if ((r["json"].get("response_format") or {}).get("json_schema") or {}).get("name")
                 == "simulated_user_turn"]
    assert len(simulator) == 4 and {(r["temperature"], r["seed"]) for r in simulator} == {(0.5, 7)}
    assert "a busy parent" in message_text(simulator[0]["messages"][0])
    # completeness: "book" satisfied its one intention (1), "short" did not (0); the mean is 0.5
    printed = json.loads(result.output)
    assert printed["made"] == 2 and printed["kept"] == 0
    aggregate = json.loads(report.read_text())["metrics"]["judge/conversation_completeness"]
    assert (aggregate["value"], aggregate["n"]) == (0.5, 2)
    assert printed["result"]["metrics"]["judge/conversation_completeness"]["value"] == 0.5


def test_a_killed_simulation_continues_and_a_rerun_is_cached(scripted, scenarios, tmp_path):
    records = tmp_path / "conversations.jsonl"
    finished = {"id": "book", "example": {"goal": "g"}, "prediction": {"turns": BOOKED, "stopped": "goal_met"}}
    records.write_text(json.dumps(finished) + "\n" + '{"id": "short", "exam')  # killed while writing "short"
    common = ("--endpoint", scripted.base_url, "--endpoint-model", "sut", "--judge-base-url", scripted.base_url,
              "--judge-model", "judge-model", "--cache-dir", str(tmp_path / "cache"))
    result = _cli("simulate", str(scenarios), "-r", str(records), *common)
    assert result.exit_code == 0, result.output
    assert "1 conversations simulated, 1 kept" in result.output
    found = _records(records)
    assert found["book"] == finished and found["short"]["prediction"]["turns"] == BOOKED[:2]
    assert len(scripted.requests) == 2  # one simulator turn and one reply, for "short" only
    again = tmp_path / "again.jsonl"
    result = _cli("simulate", str(scenarios), "-r", str(again), *common)
    assert result.exit_code == 0, result.output
    # "short" is answered from the cache; "book" (kept before, never simulated) is new: 3 user turns and
    # the reply to "please book a table" (the reply to "hello" is the one "short" cached)
    assert len(scripted.requests) == 2 + 4
    rerun = _records(again)
    assert rerun["short"]["prediction"]["turns"] == found["short"]["prediction"]["turns"]
    assert rerun["short"]["prediction"]["simulator"]["calls"] == 0  # every simulator answer from the cache
    assert rerun["book"]["prediction"]["turns"] == BOOKED


def test_simulate_a_program_in_python(scripted, tmp_path):
    seen = []

    def program(turns):
        seen.append([t["role"] for t in turns])
        return {"content": "Booked." if "book" in turns[-1]["content"] else "echo: " + turns[-1]["content"]}

    done = simulate(SCENARIOS[:1], records=tmp_path / "c.jsonl", program=program,
                    metrics=["judge/conversation_completeness"],
                    settings={"judge": {"base_url": scripted.base_url, "model": "judge-model"}},
                    cache_dir=tmp_path / "cache")
    assert (done.made, done.kept) == (1, 0)
    assert seen == [["user"], ["user", "assistant", "user"]]
    assert _records(done.records)["book"]["prediction"]["turns"] == BOOKED
    assert done.result.metrics["judge/conversation_completeness"].value == 1.0


def test_program_from_the_command_line(scripted, scenarios, tmp_path, monkeypatch):
    (tmp_path / "sut_program.py").write_text(
        "def reply(turns):\n"
        "    return 'Booked.' if 'book' in turns[-1]['content'] else 'echo: ' + turns[-1]['content']\n")
    monkeypatch.chdir(tmp_path)
    result = _cli("simulate", str(scenarios), "-r", "out.jsonl", "--program", "sut_program:reply",
                  "--judge-base-url", scripted.base_url, "--judge-model", "judge-model", "--cache-dir", "cache")
    assert result.exit_code == 0, result.output
    assert _records(tmp_path / "out.jsonl")["book"]["prediction"]["turns"] == BOOKED


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "a", "persona": "p"}', "scenarios.jsonl:2: a scenario needs a goal"),
    ('{"id": "a", "goal": "g", "max_turns": 0}', "scenarios.jsonl:2: max_turns must be a whole number >= 1"),
    ("{not json", "scenarios.jsonl:2: not JSON"),
])
def test_a_bad_scenario_is_one_line_naming_its_place(tmp_path, line, message):
    path = tmp_path / "scenarios.jsonl"
    path.write_text('{"id": "ok", "goal": "g"}\n' + line + "\n")
    result = _cli("simulate", str(path), "-r", str(tmp_path / "out.jsonl"), "--endpoint", "http://127.0.0.1:9/v1",
                  "--endpoint-model", "sut")
    assert result.exit_code != 0
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_failing_system_stops_in_one_line_and_a_rerun_continues(scripted, scenarios, tmp_path):
    records, calls = tmp_path / "c.jsonl", []

    def flaky(turns):
        calls.append(turns)
        if len(calls) == 3:  # the first reply of the second conversation
            raise ConnectionError("the system under test went away")
        return "Booked." if "book" in turns[-1]["content"] else "echo: " + turns[-1]["content"]

    settings = {"judge": {"base_url": scripted.base_url, "model": "judge-model"}}
    with pytest.raises(EvalcoreError, match="scenario 'short': the system under test failed: ConnectionError"):
        simulate(scenarios, records=records, program=flaky, settings=settings, cache_dir=tmp_path / "cache",
                 concurrency=1)
    assert list(_records(records)) == ["book"]  # the finished conversation is kept
    done = simulate(scenarios, records=records, program=flaky, settings=settings, cache_dir=tmp_path / "cache",
                    concurrency=1)
    assert (done.made, done.kept) == (1, 1) and _records(records)["short"]["prediction"]["turns"] == BOOKED[:2]
