"""Judge alignment of a built-in judged metric: ``evalcore align`` over a run scored by ``judge/llm_judge``
writes a ``judge/custom`` judge that sends the built-in's own prompt, with examples chosen from labels.

The scripted judge and the people are those of ``test_align``: people call a reply polite when it says
"please"; the judge does so only when its prompt carries an example whose output says "please", and
otherwise passes the replies that say "thank". Built-ins that ask several questions of a record are refused.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from chat_messages import message_text
from evalcore.plugin import InputError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge import align
from sklearn.metrics import cohen_kappa_score
from test_align import REPLIES, judge_settings, judged, polite, untaught

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEEN: dict[str, dict[str, str]] = {"built-in": {}, "custom": {}}
"""Each reply's prompt as the built-in sent it (system and user text) and as the custom judge did."""


def output_of(text: str) -> str:
    """The reply an llm_judge prompt shows under "Output:"."""
    return text.split("Output:\n", 1)[1].split("\n\nGive an overall", 1)[0].strip()


def oracle(request):
    messages = request["messages"]
    last = message_text(messages[-1])
    if "Output:\n" not in last:  # another built-in's prompt: an answer it cannot use
        return Reply.chat("{}")
    reply = output_of(last)
    system = message_text(messages[0])
    if system.startswith("You are a judge."):
        SEEN["custom"][reply] = last
    else:
        SEEN["built-in"][reply] = f"{system}\n\n{last}"
    taught, verdict = judged(reply, [output_of(message_text(m)) for m in messages[1:-1]
                                     if m["role"] == "user" and "Output:\n" in message_text(m)])
    answer = {"explanation": "please" if taught else "thanks", "score": 1 if verdict else 0}
    return Reply.chat(json.dumps(answer), usage={"prompt_tokens": 20, "completion_tokens": 5})


@pytest.fixture(scope="module")
def judge_server():
    with ScriptedServer(oracle, max_requests=20_000) as server:
        yield server


@pytest.fixture(scope="module")
def built_in_run(tmp_path_factory, judge_server):
    """A run of judge/llm_judge over the records, and people's labels of every record."""
    tmp_path = tmp_path_factory.mktemp("builtin")
    records = write_records(tmp_path / "records.jsonl", [
        {"id": f"r{i}", "example": {"query": "Where is my order?"}, "prediction": {"response": reply}}
        for i, reply in enumerate(REPLIES)])
    run_evalcore("evaluate", str(records), "-m", "judge/llm_judge", "--judge-base-url", judge_server.base_url,
                 "--judge-model", "m", "--cache-mode", "off", "-o", str(tmp_path / "run.json"))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"r{i}", "label": int(polite(r))}) + "\n"
                              for i, r in enumerate(REPLIES)))
    return tmp_path / "run.json", labels, records


def test_cli_aligns_llm_judge_then_evaluates_the_new_judge(tmp_path, judge_server, built_in_run):
    run, labels, records = built_in_run
    out = run_evalcore("align", str(run), "--labels", str(labels), "-o", str(tmp_path / "aligned.toml"),
                       "--judge-base-url", judge_server.base_url, "--judge-model", "m", "--cache-mode", "off",
                       "--candidates", "4", "--seed", "3", "--json")
    result = json.loads(out.stdout)
    assert result["metric"] == "judge/llm_judge"
    held = result["held_out"]
    reply = {r: REPLIES[int(r[1:])] for r in held}
    people = [int(polite(reply[r])) for r in held]
    built_in = [int(untaught(reply[r])) for r in held]  # the built-in's verdicts in the run
    assert result["before"]["labels"] == ["0", "1"] and result["before"]["n"] == len(held) == 8
    assert result["before"]["kappa"] == pytest.approx(cohen_kappa_score(people, built_in))
    assert result["before"]["kappa"] < 0.5
    assert {d["id"] for d in result["before"]["disagreements"]} == {
        r for r, p, j in zip(held, people, built_in) if p != j}
    assert result["after"]["kappa"] == 1.0 and result["after"]["disagreements"] == []
    assert result["kappa_change"] == pytest.approx(1.0 - result["before"]["kappa"])
    # the custom judge sends the built-in's prompt: its instructions rendered for a record are the
    # built-in's system and user text for that record
    assert SEEN["custom"] and all(text == SEEN["built-in"][r] for r, text in SEEN["custom"].items())
    judge = tomllib.loads((tmp_path / "aligned.toml").read_text())
    assert judge["output"] == "json" and judge["score_key"] == "score" and judge["examples"]
    assert "{prediction.response}" in judge["instructions"] and "{example.query}" in judge["instructions"]
    assert any(polite(e["prediction"]["response"]) and e["answer"]["score"] == 1 for e in judge["examples"])
    metric = f"judge/custom(file='{tmp_path / 'aligned.toml'}')"
    run_evalcore("evaluate", str(records), "-m", metric, "--judge-base-url", judge_server.base_url,
                 "--judge-model", "m", "--cache-mode", "off", "--samples", str(tmp_path / "new.rows.jsonl"))
    rows = [json.loads(line) for line in (tmp_path / "new.rows.jsonl").read_text().splitlines()]
    values = {r["id"]: r["scores"][metric]["value"] for r in rows if "scores" in r}
    assert values == {f"r{i}": float(polite(text)) for i, text in enumerate(REPLIES)}


def test_python_api_aligns_the_built_in(tmp_path, judge_server, built_in_run):
    run, labels, _ = built_in_run
    result = align(run, labels, output=tmp_path / "aligned.toml", settings=judge_settings(judge_server),
                   cache_mode="off", seed=3, candidates=4)
    assert result.before.kappa < 0.5 and result.after.kappa == 1.0
    assert result.prompt_hash[0] != result.prompt_hash[1]


def test_multi_call_built_in_is_refused_in_one_line(tmp_path, judge_server, built_in_run):
    _, labels, records = built_in_run
    run_evalcore("evaluate", str(records), "-m", "judge/faithfulness", "--judge-base-url", judge_server.base_url,
                 "--judge-model", "m", "--cache-mode", "off", "--max-errors", "100", "-o", str(tmp_path / "f.json"),
                 check=False)
    out = run_evalcore("align", str(tmp_path / "f.json"), "--labels", str(labels), "-o", str(tmp_path / "x.toml"),
                       check=False)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "judge/faithfulness" in out.stderr and "not one judge call's answer to one prompt template" in out.stderr
    assert "align takes judge/custom, judge/llm_judge, judge/diff_semantic" in out.stderr
    assert not (tmp_path / "x.toml").exists()


def test_a_run_of_several_samples_per_record_is_refused():
    from evalcore_judge.builtin_judges import as_custom

    with pytest.raises(InputError, match=r"judge/llm_judge\(n=3\): .*several judges or samples per record"):
        as_custom("judge/llm_judge(n=3)", {"n": 3}, [])


def test_diff_semantic_as_a_custom_judge_sends_the_built_ins_prompt():
    from types import SimpleNamespace

    import evalcore
    from evalcore_judge.builtin_judges import as_custom
    from evalcore_judge.custom import Definition, render

    record = {"example": {"query": "Capital of France?", "reference_answer": "Paris {city}"},
              "prediction": {"response": "It is Paris."}}
    data = as_custom("judge/diff_semantic", {"field": "response"}, [SimpleNamespace(**record)])
    built_in = evalcore.get_metric("judge/diff_semantic", judge=lambda *a, **k: None)
    sent = built_in.requests(record["example"], record["prediction"])[0].messages
    assert render(data["instructions"], record) == "\n\n".join(m["content"] for m in sent)
    assert Definition(data).bounds == (0.0, 1.0)
    mixed = [SimpleNamespace(example={"reference_answer": "a"}), SimpleNamespace(example={})]
    with pytest.raises(InputError, match="some labelled records have a reference answer and some not"):
        as_custom("judge/diff_semantic", {}, mixed)
