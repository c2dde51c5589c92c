"""Aligning a queue's judge in a real Chromium: a queue for a judge/custom metric, labelled by a person,
teaches the judge (``evalcore align``); the page shows the old and the new judge's held-out agreement
and the id of the new judge, which the next ``evaluate`` uses.

A scripted OpenAI-compatible server on 127.0.0.1 judges politeness as the person does ("please") only
when its prompt carries an example whose reply says please; without one it passes replies that say
"thank".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

import pytest
from evalcore.testing import Reply, ScriptedServer, write_records

EVALCORE = [sys.executable, "-m", "evalcore"]
REPLIES = ["Please wait a moment.", "Thank you, it ships today.", "Please, thank you for asking.", "It ships today.",
           "Please check the tracking page.", "Thanks, done.", "Please hold, thanks.", "No.",
           "Please retry later.", "Thank you for waiting.", "Please and thank you.", "Wait."]
JUDGE = 'name = "polite"\ninstructions = "Is the reply polite?\\nReply: {prediction.response}"\n'


def text_of(message):
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def oracle(request):
    messages = request["messages"]
    reply = text_of(messages[-1]).split("Reply: ", 1)[1]
    taught = any(m["role"] == "user" and "please" in text_of(m).split("Reply: ", 1)[-1].lower()
                 for m in messages[1:-1])
    passed = "please" in reply.lower() if taught else "thank" in reply.lower()
    return Reply.chat(json.dumps({"reason": "r", "verdict": "pass" if passed else "fail"}))


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Origin": url.split("/api/", 1)[0]})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())


def test_a_queue_aligns_its_judge_and_the_next_run_uses_it(serve, page, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    (tmp_path / "polite.toml").write_text(JUDGE)
    records = write_records(tmp_path / "records.jsonl", [
        {"id": f"r{i}", "example": {"query": "Where is my order?"}, "prediction": {"response": reply}}
        for i, reply in enumerate(REPLIES)])
    metric = f"judge/custom(file='{tmp_path / 'polite.toml'}')"
    with ScriptedServer(oracle, max_requests=20_000) as judge:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("EVALCORE_", "OPENAI_"))}
        environ.update(EVALCORE_JUDGE_BASE_URL=judge.base_url, EVALCORE_JUDGE_MODEL="m", EVALCORE_CACHE_DIR=str(
            tmp_path / "cache"))
        subprocess.run([*EVALCORE, "evaluate", str(records), "-m", metric, "-o", str(folder / "polite.json")],
                       env=environ, check=True, capture_output=True)
        with serve(str(folder), "--seed", "3", environ=environ) as url:
            run = json.loads(urllib.request.urlopen(url + "api/runs").read())[0]["id"]
            post(url + "api/queues", {"name": "politeness", "run": run, "kind": "pass_fail", "metric": metric})
            for i, reply in enumerate(REPLIES):
                post(url + "api/queues/politeness/labels",
                     {"record": f"r{i}", "annotator": "ann", "label": int("please" in reply.lower())})
            page.goto(url + "#/queues")
            page.fill("#annotator", "ann")
            page.press("#annotator", "Enter")
            page.click("#queues a >> text=politeness")
            page.click("#align")
            page.wait_for_selector("#alignment table", timeout=60_000)
            cells = {name: page.locator(f"#alignment tr.{name} td").all_text_contents() for name in ("old", "new")}
            aligned = page.text_content("#aligned-metric")
        used = subprocess.run([*EVALCORE, "evaluate", str(records), "-m", aligned, "--json"], env=environ,
                              check=True, capture_output=True, text=True)
    # 6 held out of 12; the old judge ("thank") is right where both or neither word is there
    assert cells["new"][2:4] == ["6", "1"] and cells["new"][7] == "0"
    assert float(cells["old"][3]) < 0.5 and cells["old"][1] != cells["new"][1]  # kappa; another prompt hash
    assert json.loads(used.stdout)["metrics"][aligned]["value"] == pytest.approx(6 / 12)  # the person's labels


def test_the_align_button_is_offered_for_one_call_built_in_judges_only(serve, page, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    records = write_records(tmp_path / "records.jsonl", [
        {"id": f"r{i}", "example": {"query": "Where is my order?"}, "prediction": {"response": reply}}
        for i, reply in enumerate(REPLIES[:4])])
    answer = Reply.chat(json.dumps({"explanation": "fine", "score": 1}))
    with ScriptedServer(lambda request: answer, max_requests=1_000) as judge:
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("EVALCORE_", "OPENAI_"))}
        environ.update(EVALCORE_JUDGE_BASE_URL=judge.base_url, EVALCORE_JUDGE_MODEL="m", EVALCORE_CACHE_DIR=str(
            tmp_path / "cache"))
        # judge/faithfulness cannot use the answer: its rows are errors, its queue can still be labelled
        subprocess.run([*EVALCORE, "evaluate", str(records), "-m", "judge/llm_judge", "-m", "judge/faithfulness",
                        "--max-errors", "100", "-o", str(folder / "both.json")], env=environ, capture_output=True)
        with serve(str(folder), environ=environ) as url:
            run = json.loads(urllib.request.urlopen(url + "api/runs").read())[0]["id"]
            offered = {}
            for name, metric in (("built-in", "judge/llm_judge"), ("several-calls", "judge/faithfulness")):
                post(url + "api/queues", {"name": name, "run": run, "kind": "pass_fail", "metric": metric})
                page.goto(url + "#/queues")
                page.fill("#annotator", "ann")
                page.press("#annotator", "Enter")
                page.click(f"#queues a >> text={name}")
                page.wait_for_selector("#export")
                offered[metric] = page.locator("#align").count()
    assert offered == {"judge/llm_judge": 1, "judge/faithfulness": 0}
