"""Images inside conversation turns: sent to the conversation metrics' judge as OpenAI-compatible
image parts after the prompt's text, each named ``Image N`` in its turn.

The scripted server decodes every image part it receives (real one-colour PNG files) and judges by
them: the last assistant message is relevant (``yes``) when it names the colour of the image of
``Image 1``; an assistant turn is out of character when it names a colour no image sent shows. A
record's number is right only if its images arrived, in order, with their labels.
"""

from __future__ import annotations

import base64
import json
import re

import evalcore
import pytest
from chat_messages import message_text
from click.testing import CliRunner
from colour_images import colour_of
from evalcore._cli.main import main
from evalcore.testing import Reply, ScriptedServer, write_records

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
WEB_IMAGE = "https://example.org/blue.png"


def sent_images(request):
    """The user message's images by label: ``Image N`` -> the colour decoded, or the URL as sent."""
    parts = [p for m in request["messages"] if isinstance(m["content"], list) for p in m["content"]]
    found = {}
    for label, part in zip(parts, parts[1:]):
        if part["type"] == "image_url":
            assert label["type"] == "text" and re.fullmatch(r"Image \d+:", label["text"])
            url = part["image_url"]["url"]
            found[label["text"][:-1]] = colour_of(url) if url.startswith("data:") else url
    return found


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    images = sent_images(request)
    name = request["response_format"]["json_schema"]["name"]
    turns = json.loads(text.split("Messages:\n", 1)[1].split("\n\n", 1)[0])
    labelled = [label for turn in turns for label in turn.get("images", [])]
    assert labelled == sorted(images), (labelled, images)  # every label in the turns has its image, in order
    if name == "out_of_character":
        colours = set(images.values())
        verdicts = [{"index": i, "reason": "a colour no image shows"} for i, t in enumerate(turns)
                    if t["role"] == "assistant" and set(re.findall(r"red|blue|green", t["content"])) - colours]
        return Reply.chat(json.dumps({"verdicts": verdicts}), usage=USAGE)
    last = [t for t in turns if t["role"] == "assistant"][-1]["content"]
    shown = images.get("Image 1", "not sent")
    verdict = "yes" if shown in last else "no"
    return Reply.chat(json.dumps({"reason": f"Image 1 is {shown}", "verdict": verdict}), usage=USAGE)


@pytest.fixture
def scripted():
    with ScriptedServer(default=oracle) as running:
        yield running


def data_url(path):
    with open(path, "rb") as image:
        return "data:image/png;base64," + base64.b64encode(image.read()).decode()


def record(rid, image, answer):
    return {"id": rid, "example": {"turns": [{"role": "user", "content": "What colour is this?", "images": image}]},
            "prediction": {"turns": [{"role": "assistant", "content": answer}]}}


def test_turn_images_reach_the_judge_through_evaluate(scripted, images, tmp_path):
    data = write_records(tmp_path / "records.jsonl", [
        record("path", [images["red"]], "It is red."),
        record("data_url", data_url(images["blue"]), "It is blue."),
        record("wrong", [images["red"]], "It is blue."),
        record("text_only", None, "It is red."),
    ])
    result = CliRunner().invoke(main, [
        "evaluate", str(data), "-m", "judge/conversation_relevancy", "--judge-base-url", scripted.base_url,
        "--judge-model", "vision", "--cache-dir", str(tmp_path / "cache"), "--samples", str(tmp_path / "rows.jsonl")])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    values = {r["id"]: r["scores"]["judge/conversation_relevancy"]["value"] for r in rows if "scores" in r}
    assert values == {"path": 1.0, "data_url": 1.0, "wrong": 0.0, "text_only": 0.0}
    sent = [sent_images(r["json"]) for r in scripted.requests]
    assert sorted(map(str, sent)) == sorted(map(str, [{"Image 1": "red"}, {"Image 1": "blue"}, {"Image 1": "red"}, {}]))
    text_only = next(r["json"] for r in scripted.requests if not sent_images(r["json"]))
    assert all(isinstance(m["content"], str) for m in text_only["messages"])  # as before: no parts without images


def test_images_of_several_turns_in_order_and_a_url_as_it_is(scripted, images):
    metric = evalcore.get_metric("judge/role_adherence", base_url=scripted.base_url, model="vision", cache_mode="off")
    turns = [{"role": "user", "content": "Two pictures.", "images": [images["red"], WEB_IMAGE]},
             {"role": "assistant", "content": "One is red."},
             {"role": "user", "content": "And this?", "images": [images["blue"]]},
             {"role": "assistant", "content": "That one is green."}]
    (score,) = metric.score_many([{"turns": turns, "chatbot_role": "a describer of pictures"}], [{}])
    assert score.ok and score.value == 0.5  # one of two assistant turns names a colour no image shows
    (request,) = [r["json"] for r in scripted.requests]
    assert sent_images(request) == {"Image 1": "red", "Image 2": WEB_IMAGE, "Image 3": "blue"}
    assert score.details["out_of_character"][0]["message"] == "That one is green."


def test_a_text_only_backend_refuses_turn_images_in_one_line(images):
    metric = evalcore.get_metric("judge/conversation_completeness", judge=lambda prompt: "{}", cache_mode="off")
    (score,) = metric.score_many([record("r", [images["red"]], "red")["example"]], [{}])
    assert score.status.value == "error"
    assert "this judge backend takes text only" in score.error_message and "\n" not in score.error_message


def test_a_missing_image_is_an_error_naming_its_turn(scripted, tmp_path):
    metric = evalcore.get_metric("judge/knowledge_retention", base_url=scripted.base_url, model="vision",
                                 cache_mode="off")
    (score,) = metric.score_many([record("r", [str(tmp_path / "gone.png")], "red")["example"]], [{}])
    assert score.status.value == "error" and "\n" not in score.error_message
    assert "example.turns[0].images[0]" in score.error_message and "gone.png" in score.error_message
    assert scripted.requests == []


def test_goal_accuracy_and_knowledge_retention_send_the_images_they_show(images):
    def judge(request):
        """Right answers only when each request carries the images of the turns it shows, in order."""
        name, seen = request["response_format"]["json_schema"]["name"], sent_images(request)
        if name == "user_knowledge":
            facts = [{"name": "colour", "value": "red"}] if seen == {"Image 1": "red"} else []
            return Reply.chat(json.dumps({"facts": facts}), usage=USAGE)
        if name == "yes_no_verdict":  # keeps the fact ('no') when it sees the assistant's own image
            return Reply.chat(json.dumps({"reason": "r", "verdict": "no" if seen == {"Image 1": "blue"} else "yes"}),
                              usage=USAGE)
        both = seen == {"Image 1": "red", "Image 2": "blue"}
        return Reply.chat(json.dumps({"score": 1.0 if both else 0.0, "reason": "r"}), usage=USAGE)

    example = record("r", [images["red"]], "")["example"]
    prediction = {"turns": [{"role": "assistant", "content": "It is red.", "images": [images["blue"]]}]}
    with ScriptedServer(default=judge) as server:
        goal, knowledge = (evalcore.get_metric(metric_id, base_url=server.base_url, model="vision",
                                               cache_mode="off").score_one(example, prediction)
                           for metric_id in ("judge/conversation_goal_accuracy", "judge/knowledge_retention"))
        asked = [r["json"] for r in server.requests]
    assert goal.value == 1.0 and knowledge.value == 1.0
    assert knowledge.details["total"] == 1  # the fact came from the user's image, the verdict saw the reply's
    assert [sent_images(r) for r in asked] == [{"Image 1": "red", "Image 2": "blue"}] * 2 + [
        {"Image 1": "red"}, {"Image 1": "blue"}]
    extraction, verdict = asked[2:]
    assert "Latest user message:\nWhat colour is this? [Image 1]" in message_text(extraction["messages"][-1])
    assert "AI message:\nIt is red. [Image 1]" in message_text(verdict["messages"][-1])
