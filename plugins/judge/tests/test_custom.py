"""Custom judges (``judge/custom``, ``evalcore_judge.make_judge``): files, outputs, examples, repair, identity.

A scripted OpenAI-compatible server on 127.0.0.1 answers each judge by the record it is shown:
a reply that holds "please" passes (pass_fail), gets a score of its words capped at 5 (scale), is
"warm" or "cold" (categories), or ``{"reasoning", "polite": bool, "confidence"}`` (json).
"""

from __future__ import annotations

import json

import evalcore
import pytest
from chat_messages import message_text
from evalcore.plugin import InputError, ParameterError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge import make_judge

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

POLITE = "Is the reply polite?\nQuestion: {example.query}\nReply: {prediction.response}"
RECORDS = [("Where is my order?", "Please allow two more days, thank you."),
           ("Where is my order?", "Wait."),
           ("Can I pay by card?", "Yes, please use the checkout page.")]


def reply_of(request):
    """The reply the last user turn shows."""
    return message_text(request["messages"][-1]).split("Reply: ", 1)[1].strip()


def oracle(request):
    reply = reply_of(request)
    system = message_text(request["messages"][0])
    polite = "please" in reply.lower()
    if '"verdict"' in system:
        answer = {"reason": f"says please: {polite}", "verdict": "pass" if polite else "fail"}
    elif '"score"' in system:
        answer = {"reason": "counted", "score": min(len(reply.split()), 5)}
    elif '"category"' in system:
        answer = {"reason": "tone", "category": "warm" if polite else "cold"}
    else:
        answer = {"reasoning": "schema", "polite": polite, "confidence": 0.5}
    return Reply.chat(json.dumps(answer), usage={"prompt_tokens": 30, "completion_tokens": 10})


@pytest.fixture
def judge_server():
    with ScriptedServer(oracle, max_requests=10_000) as server:
        yield server


def records_file(tmp_path):
    return write_records(tmp_path / "records.jsonl", [
        {"id": f"r{i}", "example": {"query": q}, "prediction": {"response": r}} for i, (q, r) in enumerate(RECORDS)])


def evaluate_cli(tmp_path, server, metric, *extra):
    out = run_evalcore("evaluate", str(records_file(tmp_path)), "-m", metric, "--judge-base-url", server.base_url,
                       "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"), "--json", *extra)
    report = json.loads(out.stdout)
    (metric_id,) = report["metrics"]
    return metric_id, report


def rows_of(path, metric_id):
    return {row["id"]: row["scores"][metric_id] for row in map(json.loads, path.read_text().splitlines())
            if "scores" in row}


TOML = '''name = "polite"
output = "pass_fail"
instructions = """
Is the reply polite?
Question: {example.query}
Reply: {prediction.response}
"""

[[examples]]
example = { query = "Hi?" }
prediction = { response = "Go away." }
answer = { reason = "rude", verdict = "fail" }
'''


def test_cli_judge_file_toml(tmp_path, judge_server):
    (tmp_path / "polite.toml").write_text(TOML)
    metric_id, report = evaluate_cli(tmp_path, judge_server, f"judge/custom(file='{tmp_path / 'polite.toml'}')",
                                     "--samples", str(tmp_path / "rows.jsonl"))
    rows = rows_of(tmp_path / "rows.jsonl", metric_id)
    assert [rows[f"r{i}"]["value"] for i in range(3)] == [1.0, 0.0, 1.0]  # "please" in replies 0 and 2
    assert report["metrics"][metric_id]["value"] == pytest.approx(2 / 3)
    details = rows["r1"]["details"]
    assert details["judge"] == "polite" and details["answer"] == {"reason": "says please: False", "verdict": "fail"}
    assert rows["r1"].get("feedback") == "says please: False" or details["explanation"] == "says please: False"
    sent = judge_server.requests[0]["json"]
    # structured output: the verdict's schema; the example as a user turn and its answer as the assistant's
    assert sent["response_format"]["json_schema"]["schema"]["properties"]["verdict"]["enum"] == ["pass", "fail"]
    roles = [m["role"] for m in sent["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert "Reply: Go away." in message_text(sent["messages"][1])
    assert json.loads(message_text(sent["messages"][2])) == {"reason": "rude", "verdict": "fail"}


def test_yaml_file_scale(tmp_path, judge_server):
    pytest.importorskip("yaml")
    (tmp_path / "length.yaml").write_text(
        "name: length\noutput: scale\nscale: 1-5\ninstructions: |\n  How complete is the reply?\n"
        "  Reply: {prediction.response}\n")
    metric = evalcore.get_metric("judge/custom", file=str(tmp_path / "length.yaml"), base_url=judge_server.base_url,
                                 model="m", cache_mode="off")
    scores = [metric.score_one({"query": q}, {"response": r}) for q, r in RECORDS]
    # words capped at 5 on 1-5: 5 -> 1, 1 -> 0, 5 -> 1
    assert [s.value for s in scores] == [1.0, 0.0, 1.0]
    assert metric.id == f"judge/custom(file='{tmp_path / 'length.yaml'}')"


@pytest.mark.parametrize(("output", "options", "expected"), [
    ("categories", {"categories": {"warm": 1, "neutral": 0.5, "cold": 0}}, [1.0, 0.0, 1.0]),
    ("json", {"schema": {"type": "object", "properties": {
        "reasoning": {"type": "string"}, "polite": {"type": "boolean"},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
        "required": ["reasoning", "polite", "confidence"], "additionalProperties": False},
        "score_key": "polite"}, [1.0, 0.0, 1.0]),
])
def test_make_judge_outputs(judge_server, output, options, expected):
    metric = make_judge("tone", POLITE, output, base_url=judge_server.base_url, model="m", cache_mode="off",
                        **options)
    scores = [metric.score_one({"query": q}, {"response": r}) for q, r in RECORDS]
    assert [s.value for s in scores] == expected
    if output == "json":
        assert scores[0].details["answer"] == {"reasoning": "schema", "polite": True, "confidence": 0.5}
        assert scores[0].feedback == "schema"
        sent = judge_server.requests[-1]["json"]["response_format"]["json_schema"]
        assert sent["schema"] == options["schema"] and sent["strict"] is True


def test_json_score_normalised_by_the_schema_range():
    schema = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 0, "maximum": 4}}}
    metric = make_judge("j", "Rate {prediction.response}", "json", schema=schema, score_key="score",
                        judge=lambda prompt: json.dumps({"score": 3}), cache_mode="off")
    assert metric.score_one({}, {"response": "x"}).value == 0.75


def test_invalid_answer_is_repaired_then_an_error():
    answers = iter([json.dumps({"reason": "r", "verdict": "maybe"}), json.dumps({"reason": "r", "verdict": "pass"}),
                    json.dumps({"reason": "r", "verdict": "maybe"}), json.dumps({"reason": "r", "verdict": "perhaps"})])
    metric = make_judge("p", POLITE, judge=lambda prompt: next(answers), cache_mode="off")
    repaired = metric.score_one({"query": "q"}, {"response": "r"})
    assert repaired.value == 1.0 and repaired.details["repaired"] is True
    failed = metric.score_one({"query": "q"}, {"response": "r"})
    assert failed.status == "error" and failed.error_type == "UnparseableJudgement"
    assert failed.details["raw_answers"]["judge"] == [json.dumps({"reason": "r", "verdict": "maybe"}),
                                                      json.dumps({"reason": "r", "verdict": "perhaps"})]


def test_missing_field_skips_before_any_call():
    def judge(prompt):
        raise AssertionError("no call expected")

    score = make_judge("p", POLITE, judge=judge, cache_mode="off").score_one({}, {"response": "r"})
    assert score.status == "skipped" and score.reason == "example.query is missing"


def test_literal_braces_and_non_text_fields():
    prompts = []

    def judge(prompt):
        prompts.append(prompt)
        return json.dumps({"reason": "r", "verdict": "pass"})

    metric = make_judge("p", "Answer as {{json}}: {prediction.items}", judge=judge, cache_mode="off")
    metric.score_one({}, {"items": [1, "a"]})
    assert prompts[0].endswith('Answer as {json}: [1, "a"]')


@pytest.mark.parametrize(("params", "name", "match"), [
    ({"name": "p", "instructions": "Is {query} answered?"}, "instructions", r"\{query\}"),
    ({"name": "p", "instructions": "Is {example.query answered?"}, "instructions", "braces"),
    ({"instructions": POLITE}, "name", "needs a name"),
    ({"name": "p", "instructions": POLITE, "output": "scale", "scale": "5-1"}, "scale", "low < high"),
    ({"name": "p", "instructions": POLITE, "output": "categories", "categories": {"good": 2}}, "categories", "0 to 1"),
    ({"name": "p", "instructions": POLITE, "output": "json",
      "schema": {"type": "object", "properties": {"ok": {"type": "string"}}}, "score_key": "ok"}, "score_key", "ok"),
    ({"name": "p", "instructions": POLITE, "examples": [{"example": {"query": "q"}, "prediction": {"response": "r"},
                                                         "answer": {"verdict": "maybe"}}]}, "examples", "answer"),
    ({"name": "p", "instructions": POLITE, "examples": [{"prediction": {"response": "r"},
                                                         "answer": {"verdict": "pass"}}]}, "examples", "example.query"),
])
def test_bad_definitions_name_their_parameter(params, name, match):
    with pytest.raises(ParameterError, match=match) as caught:
        evalcore.get_metric("judge/custom", judge=lambda prompt: "{}", **params)
    assert f"parameter {name!r}" in str(caught.value) and "\n" not in str(caught.value)


def test_bad_judge_file_names_the_file(tmp_path):
    (tmp_path / "bad.toml").write_text('name = "x"\ninstruction = "typo"\n')
    with pytest.raises(InputError, match=r"bad\.toml.*unknown keys \['instruction'\]"):
        evalcore.get_metric("judge/custom", file=str(tmp_path / "bad.toml"), judge=lambda prompt: "{}")
    (tmp_path / "broken.toml").write_text('name = "x\n')
    with pytest.raises(InputError, match=r"broken\.toml.*not a judge file"):
        evalcore.get_metric("judge/custom", file=str(tmp_path / "broken.toml"), judge=lambda prompt: "{}")
    (tmp_path / "var.toml").write_text('instructions = "Is {response} polite?"\n')
    with pytest.raises(InputError, match=r"var\.toml.*instructions.*\{response\}"):
        evalcore.get_metric("judge/custom", file=str(tmp_path / "var.toml"), judge=lambda prompt: "{}")


def test_edited_judge_is_a_new_definition_compare_refuses(tmp_path, judge_server):
    pytest.importorskip("evalcore_stats")
    judge_file = tmp_path / "polite.toml"
    metric = f"judge/custom(file='{judge_file}')"
    data = records_file(tmp_path)

    def run(name, text):
        judge_file.write_text(text)
        evalcore.evaluate(str(data), [metric], output=str(tmp_path / name), cache_dir=str(tmp_path / "cache"),
                          settings={"judge": {"base_url": judge_server.base_url, "model": "m"}})
        return str(tmp_path / name)

    first = run("a.json", TOML)
    edited = run("b.json", TOML.replace("Is the reply polite?", "Is the reply polite and kind?"))
    again = run("c.json", TOML.replace("Is the reply polite?", "Is the reply polite and kind?"))
    assert json.loads(open(first).read())["metrics"][metric]["value"] == pytest.approx(2 / 3)
    refused = run_evalcore("compare", first, edited, "--test", "fisher", check=False)
    assert refused.returncode != 0 and "prompt_hash=" in refused.stderr and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert evalcore.compare(edited, again, tests=["fisher"]).metrics == [metric]  # the same text compares
