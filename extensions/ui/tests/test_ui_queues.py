"""Annotation queues in a real Chromium: two annotators label a run's records with the keyboard (one
skips and comes back), their agreement is shown, and the exported labels feed ``evaluate --labels``."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import urllib.request

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"
EVALCORE = [sys.executable, "-m", "evalcore"]


def open_queue(page, url: str, who: str) -> None:
    page.goto(url + "#/queues")
    page.fill("#annotator", who)
    page.press("#annotator", "Enter")


def label_all(page, keys: dict[str, str], skip_first: bool = False) -> list[str]:
    """Label every record the queue proposes with the key ``keys[record id]``; the order they came in."""
    seen = []
    if skip_first:
        page.wait_for_selector("#record h3")
        skipped = page.text_content("#record h3")
        seen.append("skipped:" + skipped)
        page.keyboard.press("s")
        page.wait_for_function("t => document.querySelector('#record h3')?.textContent !== t", arg=skipped)
    while True:
        page.wait_for_selector("#record h3, #done")
        if page.locator("#done").count():
            return seen
        rid = page.text_content("#record h3")
        before = page.text_content("#progress")
        page.keyboard.press(keys[rid])
        page.wait_for_function("t => document.querySelector('#progress')?.textContent !== t", arg=before)
        seen.append(rid)


def test_two_annotators_label_with_the_keyboard_and_the_export_feeds_evaluate(serve, runs, browser, env, tmp_path):
    from sklearn.metrics import cohen_kappa_score

    ids = [json.loads(line)["id"] for line in (EXAMPLES / "rag.jsonl").read_text().splitlines()]
    alice = {rid: "p" if n % 3 else "f" for n, rid in enumerate(ids)}
    bob = {rid: "f" if n in (0, 3, 6, 10) else "p" for n, rid in enumerate(ids)}
    with serve(str(runs)) as url:
        first = browser.new_context(viewport={"width": 1366, "height": 768})
        second = browser.new_context(viewport={"width": 1366, "height": 768})
        first.set_default_timeout(10_000)
        second.set_default_timeout(10_000)
        page, other = first.new_page(), second.new_page()
        open_queue(page, url, "alice")
        page.fill("#queue-name", "faithfulness check")
        page.select_option("#queue-run", label="a")
        page.select_option("#queue-metric", "judge/faithfulness")
        page.click("#queue-open")
        order = label_all(page, alice, skip_first=True)
        assert order[0] == "skipped:q1" and order[1] == "q2" and order[-1] == "q1"  # skipped, then back at the end
        open_queue(other, url, "bob")
        other.click("#queues a >> text=faithfulness check")
        label_all(other, bob)
        other.reload()
        other.wait_for_selector("#agreement li.kappa")
        kappa = other.text_content("#agreement li.kappa")
        estimate = other.text_content("#estimate")
        with urllib.request.urlopen(url + "api/queues/faithfulness%20check/export") as answer:
            exported = answer.read().decode()
        first.close()
        second.close()
    expected = cohen_kappa_score([alice[r] for r in ids], [bob[r] for r in ids])
    assert kappa == f"alice & bob: Cohen's κ {expected:.4f} on 12 records"
    lines = [json.loads(line) for line in exported.splitlines()]
    means = {r: ((alice[r] == "p") + (bob[r] == "p")) / 2 for r in ids}
    assert {(x["metric"], x["id"], x["label"]) for x in lines} == {("judge/faithfulness", r, means[r]) for r in ids}

    labels = tmp_path / "exported.jsonl"
    labels.write_text(exported)
    done = subprocess.run([*EVALCORE, "evaluate", str(EXAMPLES / "rag.jsonl"), "-m", "judge/faithfulness",
                           "--labels", str(labels), "-o", str(tmp_path / "labelled.json"), "--allow-code"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    entry = json.loads((tmp_path / "labelled.json").read_text())["ppi"]["entries"][0]
    assert entry["n_labelled"] == 12
    assert entry["labelled"]["value"] == pytest.approx(sum(means.values()) / 12)
    shown = [str(int(x)) if float(x).is_integer() else f"{x:.4f}"  # as the page writes numbers
             for x in (entry["ppi"]["value"], *entry["ppi"]["ci"])]
    assert f"prediction-powered {shown[0]} [{shown[1]}, {shown[2]}]" in estimate  # as evaluate --labels says


def test_a_label_outside_the_rubric_is_one_line_naming_it(serve, runs):
    with serve(str(runs)) as url:
        run = json.load(urllib.request.urlopen(url + "api/runs"))[0]["id"]
        origin = url.rstrip("/")

        def post(path, body):
            request = urllib.request.Request(url + path, json.dumps(body).encode(), method="POST", headers={
                "Content-Type": "application/json", "Origin": origin})
            try:
                with urllib.request.urlopen(request) as answer:
                    return answer.status, json.load(answer)
            except urllib.error.HTTPError as exc:
                return exc.code, json.load(exc)

        assert post("api/queues", {"name": "s", "run": run, "kind": "scale", "scale": 5})[0] == 200
        status, answer = post("api/queues/s/labels", {"record": "q1", "annotator": "ann", "label": "7"})
        assert status == 400 and answer["error"] == "label: '7': the scale rubric takes 1, 2, 3, 4, 5"
        status, answer = post("api/queues/s/labels", {"record": "nope", "annotator": "ann", "label": "3"})
        assert status == 400 and "nope" in answer["error"] and "\n" not in answer["error"]
