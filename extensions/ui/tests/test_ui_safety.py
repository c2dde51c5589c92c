"""Safe to open: hostile record content shown as text, cross-site writes refused, a token beyond
127.0.0.1, and the Content-Security-Policy on every answer."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

HOSTILE = {
    "query": "<script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">",
    "reference_answer": "javascript:window.pwned=3",
    "long": "x" * 300_000,
}
EVALCORE = [sys.executable, "-m", "evalcore"]


def hostile_run(env, folder) -> None:
    record = {"id": "<b>bold</b>", "example": {**HOSTILE, "query": HOSTILE["query"] + " \ud800 alone"},
              "prediction": {"response": "<a href=\"javascript:window.pwned=4\">click</a> " + "y" * 30_000,
                             "retrieved": [{"doc_id": "<i>d</i>", "text": "<iframe src=javascript:1></iframe>"}]}}
    data = folder / "hostile.jsonl"
    data.write_text(json.dumps(record) + "\n")  # json writes the lone surrogate as its \\ud800 escape
    (folder / "runs").mkdir()
    done = subprocess.run([*EVALCORE, "evaluate", str(data), "-m", "overlap/token_f1", "-o",
                           str(folder / "runs" / "h.json")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_hostile_record_content_is_shown_as_text(serve, env, tmp_path, page):
    hostile_run(env, tmp_path)
    with serve(str(tmp_path / "runs")) as url:
        page.goto(url)
        page.click("#runs a >> text=h")
        page.click("#records tr.row >> nth=0")
        page.wait_for_selector("#record table.fields")
        record = page.locator("#record")
        shown = record.text_content()
        markup = record.evaluate("r => r.querySelectorAll('script, img, iframe, a, b, i').length")
        pwned = page.evaluate("window.pwned")
        cells = record.locator("table.fields td").all_text_contents()
        surrogate = record.evaluate("r => r.textContent.includes('\\ud800 alone')")  # the lone surrogate, kept
    assert pwned is None and markup == 0
    assert "<b>bold</b>" in shown and "<iframe src=javascript:1></iframe>" in shown
    assert cells[0].startswith(HOSTILE["query"]) and cells[1] == HOSTILE["reference_answer"]
    assert cells[2].startswith('<a href="javascript:window.pwned=4">click</a> yyy')
    assert surrogate is True
    assert "(280000 more characters in the input)" in shown


def test_cross_site_writes_are_refused_and_every_answer_has_the_policy(serve, runs, browser):
    with serve(str(runs)) as url:
        with urllib.request.urlopen(url) as answer:
            policy = answer.headers["Content-Security-Policy"]
        run = json.load(urllib.request.urlopen(url + "api/runs"))[0]["id"]
        body = json.dumps({"name": "x", "run": run, "kind": "pass_fail"}).encode()
        refused = []
        for headers in ({"Content-Type": "application/json", "Origin": "http://evil.example"},
                        {"Content-Type": "application/json"},
                        {"Content-Type": "text/plain", "Origin": url.rstrip("/")}):
            request = urllib.request.Request(url + "api/queues", body, method="POST", headers=headers)
            try:
                urllib.request.urlopen(request)
            except urllib.error.HTTPError as exc:
                refused.append(exc.code)
        # a page of another site posts to the workbench from a real browser
        context = browser.new_context()
        other = context.new_page()
        other.route("http://evil.example/", lambda route: route.fulfill(
            body="<p>hi</p>", content_type="text/html", headers={}))
        other.goto("http://evil.example/")
        other.evaluate("""([target, body]) => fetch(target, {method: 'POST', mode: 'no-cors', body,
                              headers: {'Content-Type': 'text/plain'}}).catch(() => null)""",
                       [url + "api/queues", body.decode()])
        other.evaluate("""([target, body]) => fetch(target, {method: 'POST', body,
                              headers: {'Content-Type': 'application/json'}}).catch(() => null)""",
                       [url + "api/queues", body.decode()])
        context.close()
        queues = json.load(urllib.request.urlopen(url + "api/queues"))
        try:  # a name of another site resolving to 127.0.0.1 (DNS rebinding)
            urllib.request.urlopen(urllib.request.Request(url + "api/runs", headers={"Host": "evil.example:80"}))
        except urllib.error.HTTPError as exc:
            refused.append(exc.code)
    assert refused == [403, 403, 415, 403]
    assert "x" not in [q["name"] for q in queues]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy


def test_beyond_127_0_0_1_a_token_is_required(serve, runs):
    with serve(str(runs), "--host", "127.0.0.2") as url:
        assert url.startswith("http://127.0.0.2:") and "?token=" in url
        bare = url.split("?")[0]
        try:
            urllib.request.urlopen(bare + "api/runs")
            status = 200
        except urllib.error.HTTPError as exc:
            status = exc.code
        with urllib.request.urlopen(url) as answer:
            cookie = answer.headers["Set-Cookie"]
        token = url.split("token=")[1]
        request = urllib.request.Request(bare + "api/runs", headers={"Cookie": cookie.split(";")[0]})
        with urllib.request.urlopen(request) as answer:
            listed = json.load(answer)
    assert status == 401
    assert cookie.startswith(f"evalcore_ui_token={token};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert [r["name"] for r in listed] == ["a", "b"]
