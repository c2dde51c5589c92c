"""Multimodal faithfulness and relevance against ragas' MultiModalFaithfulness and MultiModalRelevance
(``ragas.metrics.collections``), both calling one scripted OpenAI-compatible server on 127.0.0.1.

The images are real one-colour PNG files; the server decodes every image part it receives and reads
its colour. Its verdict, for whoever asks: yes when the response's last word (its claim: a colour or
a word) is the colour of an image it was sent or a word of a text context; no otherwise. So both
libraries give the same number only if both sent the same images and texts, and the value is the
verdict (1 for yes, 0 for no), as ragas scores it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re

import evalcore
import pytest
from click.testing import CliRunner
from colour_images import colour_of
from evalcore._cli.main import main
from evalcore.plugin import InputError
from evalcore.testing import Reply, ScriptedServer
from evalcore_http.images import image_part, image_url, is_image

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def _verdict(request):
    """(task, verdict) from the parts of the request's user message."""
    parts = [p for m in request["messages"] if m["role"] == "user" and isinstance(m["content"], list)
             for p in m["content"]]
    texts = [p["text"] for p in parts if p["type"] == "text"]
    seen = {colour_of(p["image_url"]["url"]) for p in parts if p["type"] == "image_url"}
    head = texts[0]
    response = re.search(r"Response to evaluate:\s*(.*?)\n\n", head, re.S).group(1)
    words = {w.lower() for t in texts if t.startswith("Context ") for w in re.findall(r"\w+", t.split(":", 1)[1])}
    claim = re.findall(r"\w+", response)[-1].lower()
    task = "relevant" if "RELEVANT" in head else "faithful"
    return task, claim in seen or claim in words


def oracle(request):
    task, verdict = _verdict(request)
    answer = json.dumps({task: verdict, "reason": "scripted"})
    if request.get("tools"):  # ragas asks through instructor, for a tool call
        name = request["tools"][0]["function"]["name"]
        body = {"id": "c", "object": "chat.completion", "model": "m", "usage": {**USAGE, "total_tokens": 15},
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": None,
                    "tool_calls": [{"id": "t", "type": "function", "function": {"name": name, "arguments": answer}}]}}]}
        return Reply(200, body)
    return Reply.chat(answer, usage=USAGE)


@pytest.fixture
def scripted():
    with ScriptedServer(default=oracle) as running:
        yield running


def _cases(images):
    data_blue = "data:image/png;base64," + base64.b64encode(open(images["blue"], "rb").read()).decode()
    return [
        ("q1", "What colour is the car?", "The car is red", [images["red"], "The car is parked."], []),
        ("q2", "What colour is the car?", "The car is green", [images["red"], "The car is parked."], []),
        ("q3", "What is in the picture?", "A sky that is blue", ["A picture."], [data_blue]),
        ("q4", "Where is it?", "It is parked", ["The car is parked."], [images["green"]]),
        ("q5", "What colour?", "It is blue", ["Nothing here."], [images["red"], images["green"]]),
    ]


def _ragas(server, metric_name, case):
    pytest.importorskip("instructor")
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics import collections

    llm = llm_factory("m", client=AsyncOpenAI(base_url=server.base_url, api_key="scripted", max_retries=0))
    _, query, response, docs, extra = case
    metric = getattr(collections, metric_name)(llm=llm)
    kwargs = {"response": response, "retrieved_contexts": [*docs, *extra]}
    if metric_name == "MultiModalRelevance":
        kwargs["user_input"] = query
    return asyncio.run(metric.ascore(**kwargs)).value


def _ragas_importable():
    import importlib.util
    import sys
    import types

    try:
        import langchain_community.chat_models.vertexai  # noqa: F401
    except ImportError:
        if importlib.util.find_spec("langchain_community") is None:
            pytest.skip("ragas needs langchain-community")
        stub = types.ModuleType("langchain_community.chat_models.vertexai")
        stub.ChatVertexAI = type("ChatVertexAI", (), {})
        sys.modules.setdefault(stub.__name__, stub)
    pytest.importorskip("ragas")


@pytest.mark.parametrize(("metric_id", "ragas_name"), [
    ("judge/multimodal_faithfulness", "MultiModalFaithfulness"),
    ("judge/multimodal_relevance", "MultiModalRelevance"),
])
def test_equal_to_ragas_given_the_same_verdicts(scripted, images, tmp_path, metric_id, ragas_name):
    _ragas_importable()
    cases = _cases(images)
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps({
        "id": qid, "example": {"query": query, **({"images": extra} if extra else {})},
        "prediction": {"response": response, "retrieved": [{"doc_id": f"d{i}", "text": d} for i, d in enumerate(docs)]},
    }) + "\n" for qid, query, response, docs, extra in cases))
    result = CliRunner().invoke(main, ["evaluate", str(records), "-m", metric_id, "--judge-base-url", scripted.base_url,
                                       "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"),
                                       "--samples", str(tmp_path / "rows.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    ours = {r["id"]: r["scores"][metric_id]["value"] for r in rows if "scores" in r}
    theirs = {case[0]: _ragas(scripted, ragas_name, case) for case in cases}
    assert ours == theirs == {"q1": 1.0, "q2": 0.0, "q3": 1.0, "q4": 1.0, "q5": 0.0}
    ours_name = metric_id.split("/")[1]
    sent = [r["json"] for r in scripted.requests
            if ((r["json"].get("response_format") or {}).get("json_schema") or {}).get("name") == ours_name]
    assert sum(p["type"] == "image_url" for r in sent for m in r["messages"] if isinstance(m["content"], list)
               for p in m["content"]) == 6  # evalcore's: q1, q2, q3, q4 one image each, q5 two


def test_python_api_and_the_reason(scripted, images, tmp_path):
    metric = evalcore.get_metric("judge/multimodal_faithfulness", base_url=scripted.base_url, model="m",
                                 cache_dir=str(tmp_path / "cache"))
    (score,) = metric.score_many([{"images": [images["blue"]]}], [{"response": "It is blue", "retrieved": []}])
    assert score.value == 1.0 and score.feedback == "scripted"
    (request,) = [r["json"] for r in scripted.requests]
    part = [p for m in request["messages"] if isinstance(m["content"], list) for p in m["content"]][1]
    assert part == {"type": "image_url", "image_url": {"url": image_url(images["blue"])}}
    assert part["image_url"]["url"].startswith("data:image/png;base64,")


def test_an_image_over_the_limit_is_an_error_naming_it(scripted, images, tmp_path):
    metric = evalcore.get_metric("judge/multimodal_faithfulness", base_url=scripted.base_url, model="m",
                                 cache_dir=str(tmp_path / "cache"), max_image_bytes=10)
    (score,) = metric.score_many([{"images": [images["red"]]}], [{"response": "red", "retrieved": []}])
    assert score.status.value == "error" and "over the limit of 10" in score.error_message
    assert "red.png" in score.error_message and scripted.requests == []


def test_images_are_read_as_ragas_reads_them(images, tmp_path):
    assert is_image(images["red"]) and is_image("https://example.org/a.JPG") and is_image("data:image/png;base64,AAAA")
    assert not is_image("The car is red.") and not is_image("https://example.org/page")
    assert image_part("https://example.org/a.png") == {"type": "image_url",
                                                       "image_url": {"url": "https://example.org/a.png"}}
    with pytest.raises(InputError, match=r"example\.images.*not found"):
        image_url(str(tmp_path / "missing.png"), field="example.images")
    with pytest.raises(InputError, match="not a base64 data URL"):
        image_url("data:text/plain;base64,AAAA")


def test_a_text_only_backend_refuses_images_in_one_line(images):
    metric = evalcore.get_metric("judge/multimodal_faithfulness", judge=lambda prompt: 1.0, cache_mode="off")
    (score,) = metric.score_many([{"images": [images["red"]]}], [{"response": "red", "retrieved": []}])
    assert score.status.value == "error"
    assert "this judge backend takes text only" in score.error_message and "\n" not in score.error_message
