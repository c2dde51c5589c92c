"""Judge alignment (``evalcore align``, ``evalcore_judge.align``): held-out agreement of the old and the
new judge, and a new judge learnt from labels that the next run uses.

A scripted OpenAI-compatible server on 127.0.0.1 judges politeness. People call a reply polite when it
says "please". The scripted judge does so only when its prompt carries an example whose reply says
"please"; without one it passes the replies that say "thank" instead. So the old judge (no examples)
agrees with people on half the records, and a judge whose examples the optimiser chose from the labels
agrees on all of them only if the optimiser found such an example.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from chat_messages import message_text
from evalcore.plugin import EvalcoreError, InputError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge import align
from evalcore_judge.alignment import _kappa
from sklearn.metrics import cohen_kappa_score

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

JUDGE = '''name = "polite"
output = "pass_fail"
instructions = """
Is the reply polite?
Reply: {prediction.response}
"""
'''
REPLIES = ["Please wait a moment.", "Thank you, it ships today.", "Please, thank you for asking.", "It ships today.",
           "Please check the tracking page.", "Thanks, done.", "Please hold, thanks.", "No.",
           "Please retry later.", "Thank you for waiting.", "Please and thank you.", "Wait.",
           "Please see the FAQ.", "Thanks a lot.", "Please, many thanks.", "Closed."]


def polite(reply: str) -> bool:
    """The people's rule."""
    return "please" in reply.lower()


def untaught(reply: str) -> bool:
    """The scripted judge's rule without an example that says please."""
    return "thank" in reply.lower()


def judged(reply: str, shown: list[str]) -> tuple[bool, bool]:
    """Whether the examples' replies ``shown`` taught the scripted judge the people's rule (one says
    please), and its verdict on ``reply``."""
    taught = any(polite(example) for example in shown)
    return taught, polite(reply) if taught else untaught(reply)


def oracle(request):
    messages = request["messages"]
    reply = message_text(messages[-1]).split("Reply: ", 1)[1].strip()
    taught, verdict = judged(reply, [message_text(m).split("Reply: ", 1)[-1] for m in messages[1:-1]
                                     if m["role"] == "user"])
    answer = {"reason": "please" if taught else "thanks", "verdict": "pass" if verdict else "fail"}
    return Reply.chat(json.dumps(answer), usage={"prompt_tokens": 20, "completion_tokens": 5})


@pytest.fixture(scope="module")
def judge_server():
    with ScriptedServer(oracle, max_requests=20_000) as server:
        yield server


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory, judge_server):
    """A run of the old judge over the records, and people's labels of every record."""
    tmp_path = tmp_path_factory.mktemp("run")
    (tmp_path / "polite.toml").write_text(JUDGE)
    records = write_records(tmp_path / "records.jsonl", [
        {"id": f"r{i}", "example": {"query": "Where is my order?"}, "prediction": {"response": reply}}
        for i, reply in enumerate(REPLIES)])
    metric = f"judge/custom(file='{tmp_path / 'polite.toml'}')"
    run_evalcore("evaluate", str(records), "-m", metric, "--judge-base-url", judge_server.base_url,
                 "--judge-model", "m", "--cache-mode", "off", "-o", str(tmp_path / "run.json"))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"r{i}", "label": int(polite(r))}) + "\n"
                              for i, r in enumerate(REPLIES)))
    return tmp_path / "run.json", labels, records


def judge_settings(server):
    return {"judge": {"base_url": server.base_url, "model": "m"}}


def test_alignment_raises_held_out_agreement(tmp_path, judge_server, scored_run):
    run, labels, _ = scored_run
    result = align(run, labels, output=tmp_path / "aligned.toml", settings=judge_settings(judge_server),
                   cache_mode="off", seed=3, candidates=4)
    assert len(result.train) == len(result.held_out) == 8 and not set(result.train) & set(result.held_out)
    assert result.before.n == 8
    # the old judge ("thank") and people ("please") disagree where exactly one of the words is there
    assert {d["id"] for d in result.before.disagreements} == {
        r for r in result.held_out if polite(REPLIES[int(r[1:])]) != untaught(REPLIES[int(r[1:])])}
    reply = {r: REPLIES[int(r[1:])] for r in result.held_out}
    people = ["pass" if polite(reply[r]) else "fail" for r in result.held_out]
    judged = ["pass" if untaught(reply[r]) else "fail" for r in result.held_out]
    assert result.before.labels == ["fail", "pass"]
    assert result.before.kappa == pytest.approx(cohen_kappa_score(people, judged))
    assert result.before.confusion == [[sum(p == "fail" and j == "fail" for p, j in zip(people, judged)),
                                        sum(p == "fail" and j == "pass" for p, j in zip(people, judged))],
                                       [sum(p == "pass" and j == "fail" for p, j in zip(people, judged)),
                                        sum(p == "pass" and j == "pass" for p, j in zip(people, judged))]]
    assert result.after.disagreements == [] and result.after.agreement == 1.0 and result.after.kappa == 1.0
    assert result.before.kappa < 0.5 and result.kappa_change > 0.5
    # 8 held-out records: wide intervals, each around its estimate (the paired one resamples both judges alike)
    assert result.before.kappa_ci[0] <= result.before.kappa <= result.before.kappa_ci[1]
    assert result.kappa_change_ci[0] <= result.kappa_change <= result.kappa_change_ci[1]
    assert result.after.kappa_ci == (1.0, 1.0) and result.after.agreement_ci == (1.0, 1.0)
    assert result.prompt_hash[0] != result.prompt_hash[1]
    # the new judge file keeps the instructions and carries an example that says please, with its label
    text = (tmp_path / "aligned.toml").read_text()
    assert "Is the reply polite?" in text and "[[examples]]" in text and 'id = "r' not in text
    added = tomllib.loads(text)["examples"]
    assert len(added) == result.examples <= 4
    assert any(polite(e["prediction"]["response"]) and e["answer"]["verdict"] == "pass" for e in added)
    # the candidates' agreement on the train part: the judge as it was (3 of 8 right) up to every one
    assert max(result.candidates) == 1.0 and min(result.candidates) == 3 / 8


def test_kappa_by_hand():
    # people  pass pass pass pass fail fail fail fail fail fail
    # judge   pass pass pass fail pass fail fail fail fail fail
    # observed 8/10; expected (4*4 + 6*6) / 100 = 0.52; kappa = (0.8 - 0.52) / 0.48 = 7/12
    import numpy as np

    people = np.array([[1, 1, 1, 1, 0, 0, 0, 0, 0, 0]])
    judge = np.array([[1, 1, 1, 0, 1, 0, 0, 0, 0, 0]])
    assert _kappa(people, judge, 2)[0] == pytest.approx(7 / 12)
    assert np.isnan(_kappa(np.array([[1, 1]]), np.array([[1, 1]]), 2)[0])  # one label throughout: undefined


def test_cli_align_then_evaluate_with_the_new_judge(tmp_path, judge_server, scored_run):
    run, labels, records = scored_run
    out = run_evalcore("align", str(run), "--labels", str(labels), "-o", str(tmp_path / "aligned.toml"),
                       "--judge-base-url", judge_server.base_url, "--judge-model", "m", "--cache-mode", "off",
                       "--candidates", "4", "--seed", "3")
    table = {line.split()[0]: line.split() for line in out.stdout.splitlines() if line.startswith(("old ", "new "))}
    assert table["new"][3] == "1.0000" and float(table["old"][3]) < 0.5  # kappa on the held-out part
    assert "kappa change 0.7500" in out.stdout and "aligned.toml" in out.stdout
    metric = f"judge/custom(file='{tmp_path / 'aligned.toml'}')"
    used = run_evalcore("evaluate", str(records), "-m", metric, "--judge-base-url", judge_server.base_url,
                        "--judge-model", "m", "--cache-mode", "off", "--json", "--samples",
                        str(tmp_path / "new.rows.jsonl"))
    rows = [json.loads(line) for line in (tmp_path / "new.rows.jsonl").read_text().splitlines()]
    values = {r["id"]: r["scores"][metric]["value"] for r in rows if "scores" in r}
    assert values == {f"r{i}": float(polite(reply)) for i, reply in enumerate(REPLIES)}
    header = rows[0]["metrics"][metric]["params"]
    assert header["prompt_hash"] == table["new"][1] != table["old"][1]
    assert json.loads(used.stdout)["metrics"][metric]["value"] == pytest.approx(8 / 16)


def test_bad_inputs_are_one_line(tmp_path, judge_server, scored_run):
    run, _, _ = scored_run
    few = tmp_path / "few.jsonl"
    few.write_text('{"id": "r0", "label": 1}\n{"id": "r1", "label": 0}\n')
    with pytest.raises(InputError, match="2 records of the run are labelled; align needs at least 4"):
        align(run, few, output=tmp_path / "x.toml", settings=judge_settings(judge_server))
    with pytest.raises(EvalcoreError, match="polite.toml is the old judge"):
        align(run, few, output=run.parent / "polite.toml", settings=judge_settings(judge_server))
    out = run_evalcore("align", str(run), "--labels", str(few), "-o", str(tmp_path / "x.toml"), check=False)
    assert out.returncode != 0 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert "align needs at least 4" in out.stderr


@pytest.mark.parametrize(("data", "labels", "grades", "answer"), [
    ({"output": "pass_fail"}, [0.0, 0.49, 0.5, 1.0], ["fail", "fail", "pass", "pass"],
     {"reason": "labelled by a person", "verdict": "pass"}),
    # 1-5: a label l is the grade 1 + 4 l, the nearest one (ties to the lower)
    ({"output": "scale", "scale": "1-5"}, [0.0, 0.3, 0.75, 1.0], ["1", "2", "4", "5"],
     {"reason": "labelled by a person", "score": 5}),
    ({"output": "categories", "categories": {"good": 1, "partly": 0.5, "bad": 0}}, [0.0, 0.4, 0.8, 1.0],
     ["bad", "partly", "good", "good"], {"reason": "labelled by a person", "category": "good"}),
])
def test_labels_read_as_the_judges_answers(data, labels, grades, answer):
    from evalcore_judge.alignment import _Grades
    from evalcore_judge.custom import Definition

    grade = _Grades(Definition({"name": "j", "instructions": "Rate {prediction.response}", **data}))
    assert [grade.of(label) for label in labels] == grades
    assert grade.answer(grades[-1]) == answer
    with pytest.raises(InputError, match="label 2.0 is outside the judge's range 0 to 1"):
        grade.of(2.0, "r1")


def test_records_changed_since_the_run_are_refused(tmp_path, judge_server, scored_run):
    import evalcore

    run, labels, records = scored_run
    copied = write_records(tmp_path / "records.jsonl", [json.loads(line) for line in records.read_text().splitlines()])
    metric = evalcore.get_metric("judge/custom", file=str(run.parent / "polite.toml"), base_url=judge_server.base_url,
                                 model="m", cache_mode="off")
    evalcore.evaluate(str(copied), [metric], output=str(tmp_path / "copy.json"))
    with copied.open("a") as more:
        more.write(json.dumps({"id": "extra", "example": {}, "prediction": {"response": "x"}}) + "\n")
    with pytest.raises(InputError, match=r"records\.jsonl\) changed since; give the ones it read with --records"):
        align(tmp_path / "copy.json", labels, output=tmp_path / "x.toml", settings=judge_settings(judge_server))
