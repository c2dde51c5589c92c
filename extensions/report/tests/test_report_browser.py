"""The HTML report rendered by a real headless Chromium: no console errors, the script runs,
data never runs as script, and the page's own script works under its Content-Security-Policy.

Run by the ``report_browser`` nox session; skipped where no Chromium is installed. With
``EVALCORE_REPORT_SCREENSHOT`` set, the screenshot is also written there (docs/img/report.png).
The interactive checks drive Chromium over the DevTools protocol on a pipe
(``--remote-debugging-pipe``), so they need no package beyond the standard library.
"""

import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from evalcore import write_report
from evalcore.testing import write_journal

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")


def chromium(tmp_path, *args):
    profile = tmp_path / "profile"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           *args], capture_output=True, text=True, timeout=120)
    return proc


def console_errors(stderr):
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line and re.search(r"Uncaught|Error|Refused|violates|Content Security Policy", line)]


@pytest.fixture
def report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the page names its inputs as given: short relative names
    rng = np.random.default_rng(4)
    header = {m: {"granularity": "sample", "direction": "higher", "metric_version": "1"}
              for m in ("retrieval/ndcg@10", "retrieval/recall@10", "overlap/f1")}
    paths = []
    for name, shift in (("baseline", 0.0), ("reranker", 0.12), ("smaller-model", -0.02)):
        rows = {}
        for i in range(60):
            rows[f"q{i:03d}"] = {m: float(np.clip(rng.beta(2, 3) + shift, 0, 1)) for m in header}
        rows["q007"]["overlap/f1"] = {"value": None, "status": "skipped", "reason": "no reference answer"}
        for i in (11, 23):
            rows[f"q{i:03d}"]["overlap/f1"] = {"value": None, "status": "error",
                                               "error": {"type": "TimeoutError", "message": "model call timed out"}}
        paths.append(str(write_journal(f"{name}.jsonl", rows, metrics=header)))
    return write_report(paths[0], tmp_path / "report.html", compare_with=paths[1:], n_resamples=1000)


def test_chromium_renders_the_report_without_console_errors(tmp_path, report):
    url = f"file://{report}"
    dom = chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_errors(dom.stderr) == []
    assert "60 of 60 records shown" in dom.stdout  # the script ran to its end
    shot = tmp_path / "report.png"
    render = chromium(tmp_path, "--window-size=1460,1500", f"--screenshot={shot}", url)
    assert render.returncode == 0, render.stderr[-2000:]
    assert console_errors(render.stderr) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    target = os.environ.get("EVALCORE_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)


def test_the_console_check_catches_a_script_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>missingFunction();</script></body></html>")
    proc = chromium(tmp_path, "--dump-dom", f"file://{page}")
    assert any("missingFunction" in line for line in console_errors(proc.stderr))
    blocked = tmp_path / "blocked.html"  # a script the policy does not allow is reported too
    blocked.write_text("<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
                       "content=\"script-src 'none'\"></head><body><script>var x = 1;</script></body></html>")
    proc = chromium(tmp_path, "--dump-dom", f"file://{blocked}")
    assert any("Content Security Policy" in line for line in console_errors(proc.stderr))


# Recorded before the page's own script runs: every CSP violation the page reports.
PROBE = """window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI + " " + (e.sample || ""));
}, true);"""


class DevTools:
    """One headless Chromium, driven over the DevTools protocol on fds 3 and 4 (JSON, NUL-terminated)."""

    def __init__(self, tmp_path):
        command_read, self.commands = os.pipe()
        self.answers, answer_write = os.pipe()

        def protocol_fds():  # the browser reads commands on fd 3 and writes answers to fd 4
            read, write = os.dup(command_read), os.dup(answer_write)  # read < write, so 4 is free to take
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.log = open(tmp_path / "chromium-devtools.log", "w+")  # closed in close()
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'devtools-profile'}", "--remote-debugging-pipe",
             "--window-size=1400,1000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, pass_fds=(3, 4), preexec_fn=protocol_fds)
        os.close(command_read)
        os.close(answer_write)
        self.buffer, self.events, self.next_id, self.session = b"", [], 0, None

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.commands)
        os.close(self.answers)
        self.log.close()

    def send(self, method, session=True, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        return self.next_id

    def call(self, method, session=True, **params):
        """Send a command and return its result; events that arrive meanwhile are kept in ``events``."""
        wanted = self.send(method, session, **params)
        message = self._until(lambda m: m.get("id") == wanted, f"an answer to {method}")
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result", {})

    def wait(self, event, timeout=30):
        seen = next((m for m in self.events if m.get("method") == event), None)
        return seen or self._until(lambda m: m.get("method") == event, event, timeout)

    def _until(self, done, what, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "method" in message:
                    self.events.append(message)
                    if message["method"] == "Page.javascriptDialogOpening":  # never leave the page blocked
                        self.send("Page.handleJavaScriptDialog", accept=True)
                if done(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"no {what} from chromium; its log ends:\n{self.log.read()[-2000:]}")
            if select.select([self.answers], [], [], min(left, 1.0))[0]:
                self.buffer += os.read(self.answers, 1 << 20)

    def open(self, url):
        """A new tab at ``url``, loaded, with the violation probe installed before any of its script."""
        target = self.call("Target.createTarget", session=False, url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Page.addScriptToEvaluateOnNewDocument", source=PROBE)
        self.events.clear()
        self.call("Page.navigate", url=url)
        self.wait("Page.loadEventFired")

    def js(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector):
        """A real mouse click in the middle of the element (scrolled into view first)."""
        box = self.js(f"(function () {{ var e = document.querySelector({json.dumps(selector)});"
                      "e.scrollIntoView({block: 'center'}); var r = e.getBoundingClientRect();"
                      "return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }())")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)

    def backspace(self):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key="Backspace", code="Backspace", windowsVirtualKeyCode=8)

    def problems(self):
        """Script errors, dialogs and console errors or warnings seen so far, and reported CSP violations."""
        found = [m["params"] for m in self.events
                 if m["method"] in ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")
                 or (m["method"] == "Log.entryAdded" and m["params"]["entry"]["level"] in ("error", "warning"))
                 or (m["method"] == "Runtime.consoleAPICalled" and m["params"]["type"] in ("error", "warning"))]
        return found + (self.js("window.__violations") or [])


@pytest.fixture
def devtools(tmp_path):
    browser = DevTools(tmp_path)
    yield browser
    browser.close()


HOSTILE = ("</script><script>window.__pwned=1</script>", '"><img src=x onerror="window.__pwned=1">',
           "<img src=x onerror=alert(1)>", "javascript:alert(1)", "\u2028</style><svg onload=window.__pwned=1>")


@pytest.fixture
def hostile_report(tmp_path, monkeypatch):
    """A report, its journal and a compared journal whose ids, values, statuses and messages are markup."""
    monkeypatch.chdir(tmp_path)
    metric_ids = [f"toy/{HOSTILE[0]}", HOSTILE[1], HOSTILE[3]]
    journals = []
    for name, step in (("base", 7), (HOSTILE[2], 3)):  # a compared run is named after its file
        rows = {}
        for n in range(12):
            rows[f"{HOSTILE[n % 5]} #{n}"] = {m: (n * step + k) % 10 / 10 for k, m in enumerate(metric_ids)}
        rows[f"{HOSTILE[1]} #1"][metric_ids[0]] = {"value": HOSTILE[2], "status": HOSTILE[4], "reason": HOSTILE[0]}
        rows[f"{HOSTILE[2]} #2"][metric_ids[1]] = {"value": None, "status": "error",
                                                   "error": {"type": HOSTILE[3], "message": HOSTILE[1]}}
        rows[f"{HOSTILE[3]} #3"][metric_ids[2]] = {"value": None, "status": "skipped", "reason": HOSTILE[2]}
        header = {m: {"granularity": "sample", "direction": "higher", "metric_version": HOSTILE[step % 5],
                      "params": {HOSTILE[0]: HOSTILE[1]}} for m in metric_ids}
        journals.append(str(write_journal(f"{name}.jsonl", rows, metrics=header)))
    fields = ("value", "n", "n_skipped", "n_errors", "stderr", "ci", "direction", "granularity", "metric_version",
              "distribution", "distribution_version")
    summary = {m: {field: HOSTILE[(k + j) % 5] for j, field in enumerate(fields)} for k, m in enumerate(metric_ids)}
    with open("base.json", "w", encoding="utf-8") as handle:
        json.dump({"metrics": summary, "stopped": HOSTILE[1], "samples_file": "base.jsonl",
                   "rejected": [{"source": HOSTILE[0], "message": HOSTILE[2]}],
                   "provenance": {HOSTILE[4]: HOSTILE[0], "input": HOSTILE[3]}}, handle)
    proc = subprocess.run([sys.executable, "-m", "evalcore", "report", "base.json", "--compare", journals[1],
                           "-o", "hostile.html", "--resamples", "100", "--allow-version-mismatch"],
                          capture_output=True, text=True, timeout=300)  # the runs' metric versions differ
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "hostile.html"


def test_hostile_report_runs_no_script_and_still_works(devtools, hostile_report):
    devtools.open(f"file://{hostile_report}")
    assert devtools.js("typeof window.__pwned") == "undefined"
    assert devtools.problems() == []
    assert devtools.js("document.getElementById('record-count').textContent") == "12 of 12 records shown"
    assert devtools.js("document.querySelectorAll('img, iframe, object, embed, [onerror], [onload]').length") == 0
    assert devtools.js("document.querySelectorAll('#comparison tbody tr').length") == 3
    assert devtools.js("document.querySelectorAll('svg.hist').length") == 6  # 3 metrics, both runs
    records = "document.getElementById('records')"
    ids = f"Array.prototype.map.call({records}.tBodies[0].rows, function (r) {{ return r.cells[0].textContent; }})"
    assert f"{HOSTILE[0]} #0" in devtools.js(ids)  # shown as text, as written

    column = (f"Array.prototype.map.call({records}.tBodies[0].rows, function (r) "
              "{ return r.cells[2].getAttribute('data-sort'); })")
    devtools.click("#records thead th:nth-child(3)")
    assert devtools.js(f"{records}.tHead.rows[0].cells[2].getAttribute('aria-sort')") == "ascending"
    values = [float(v) for v in devtools.js(column) if v]
    assert values == sorted(values) and len(values) == 11
    devtools.click("#records thead th:nth-child(3)")
    assert devtools.js(f"{records}.tHead.rows[0].cells[2].getAttribute('aria-sort')") == "descending"
    values = [float(v) for v in devtools.js(column) if v]
    assert values == sorted(values, reverse=True)

    devtools.click("#record-filter")
    devtools.call("Input.insertText", text="#1")
    assert devtools.js("document.getElementById('record-count').textContent") == "3 of 12 records shown"
    shown = devtools.js(f"Array.prototype.filter.call({records}.tBodies[0].rows, function (r) "
                        "{ return !r.hidden; }).map(function (r) { return r.cells[0].textContent; })")
    assert sorted(shown) == sorted(f"{HOSTILE[n % 5]} #{n}" for n in (1, 10, 11))
    devtools.backspace()
    assert devtools.js("document.getElementById('record-filter').value") == "#"
    assert devtools.js("document.getElementById('record-count').textContent") == "12 of 12 records shown"
    devtools.backspace()
    devtools.call("Input.insertText", text="<IMG")  # the ids that hold an <img ...> tag, matched as text
    assert devtools.js("document.getElementById('record-count').textContent") == "5 of 12 records shown"

    assert devtools.js("typeof window.__pwned") == "undefined"
    assert devtools.problems() == []


def test_the_probes_see_injected_script(tmp_path, devtools):
    """Without a policy an injected script runs and is seen; under the page's policy it is blocked and reported."""
    from evalcore_report.page import content_security_policy

    injected = '<script>window.__pwned=1</script><div id="x"></div>'
    bare = tmp_path / "bare.html"
    bare.write_text(f"<!DOCTYPE html><html><head></head><body>{injected}</body></html>")
    devtools.open(f"file://{bare}")
    assert devtools.js("window.__pwned") == 1
    guarded = tmp_path / "guarded.html"
    guarded.write_text(f"<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\""
                       f"{content_security_policy('p {}', 'var ok = 1;')}\"></head><body>{injected}"
                       "<img src=x onerror=\"window.__pwned=2\"></body></html>")
    devtools.open(f"file://{guarded}")
    assert devtools.js("typeof window.__pwned") == "undefined"
    violations = devtools.js("window.__violations")
    assert any(v.startswith("script-src") for v in violations), violations
    assert any(v.startswith("img-src") for v in violations), violations


RATIONALE = "The answer names Paris, which the first retrieved passage states."
LONG_DOC = "Paris is the capital and most populous city of France. " * 20


@pytest.fixture
def judged_report(tmp_path, monkeypatch):
    """A real run of judge/faithfulness (answered by a scripted judge) and token F1 over records with
    labels, one record whose judge answer does not parse (an error row), and hostile text; its report."""
    pytest.importorskip("evalcore_judge")
    pytest.importorskip("evalcore_overlap")
    from evalcore.testing import Reply, ScriptedServer, requested_schema, schema_instance, write_records

    monkeypatch.chdir(tmp_path)
    records = [{"id": f"q{n}", "example": {"query": f"question {n}: capital of France?", "reference_answer": "Paris",
                                           "labels": {"scenario": "typo" if n % 3 == 0 else "base"}},
                "prediction": {"response": "Paris" if n % 2 else "It is Lyon.",
                               "retrieved": [{"doc_id": "d1", "text": LONG_DOC}]}} for n in range(9)]
    records[4]["prediction"]["response"] = HOSTILE[0]
    records[5]["example"]["labels"]["scenario"] = HOSTILE[2]
    records[7]["example"]["query"] = "BROKEN JUDGE question"
    write_records("data.jsonl", records)

    def reply(request):
        if "BROKEN JUDGE" in json.dumps(request):
            return Reply.chat("no verdict here", usage={"prompt_tokens": 50, "completion_tokens": 3})
        return Reply.chat(json.dumps(schema_instance(requested_schema(request), text=RATIONALE)),
                          usage={"prompt_tokens": 120, "completion_tokens": 30})

    with ScriptedServer(default=reply) as server:
        proc = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "data.jsonl", "-m", "judge/faithfulness",
                               "-m", "overlap/token_f1", "--judge-base-url", server.base_url, "--judge-model",
                               "judge-model", "--cache-mode", "off", "-o", "run.json"],
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "evalcore", "report", "run.json", "-o", "run.html"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "run.html"


def shown_ids(devtools):
    return devtools.js("Array.prototype.filter.call(document.getElementById('records').tBodies[0].rows, "
                       "function (r) { return !r.hidden; }).map(function (r) { return r.cells[0].textContent; })")


def test_a_click_opens_the_record_with_its_judge_rationale(devtools, judged_report):
    devtools.open(f"file://{judged_report}")
    assert devtools.problems() == []
    visible = "Array.prototype.filter.call(document.querySelectorAll('#record-view .record'), " \
              "function (e) { return !e.hidden; }).map(function (e) { return e.id; })"
    assert devtools.js(visible) == []
    devtools.click("#records tbody tr[data-record='1'] td")
    assert devtools.js(visible) == ["record-1"]
    view = devtools.js("document.getElementById('record-1').innerText")
    for text in ("question 1: capital of France?", "Paris", RATIONALE, "judge-model", "scenario = base"):
        assert text in view, text
    assert devtools.js("document.getElementById('record-1').getBoundingClientRect().height") > 100
    target = os.environ.get("EVALCORE_REPORT_SCREENSHOT")
    if target:  # the record view beside the table, for the docs
        devtools.js("document.getElementById('records-section').scrollIntoView()")
        shot = devtools.call("Page.captureScreenshot", format="png")["data"]
        with open(os.path.join(os.path.dirname(target), "report-record.png"), "wb") as handle:
            handle.write(base64.b64decode(shot))
    # the long retrieved passage shows its start; a click opens the rest in place
    summary = "#record-1 .docs details summary"
    assert not devtools.js(f"document.querySelector({json.dumps(summary)}).parentNode.open")
    devtools.click(summary)
    assert devtools.js(f"document.querySelector({json.dumps(summary)}).parentNode.open")

    devtools.click("#records tbody tr[data-record='7'] td")  # the judge answer that did not parse
    assert devtools.js(visible) == ["record-7"]
    view = devtools.js("document.getElementById('record-7').innerText")
    assert "UnparseableJudgement" in view and "no verdict here" in view
    assert devtools.js("typeof window.__pwned") == "undefined"
    assert devtools.problems() == []


def test_filters_by_status_and_label_and_sorts_worst_first(devtools, judged_report):
    devtools.open(f"file://{judged_report}")
    assert devtools.js("document.getElementById('record-count').textContent") == "9 of 9 records shown"

    def choose(select_id, value):  # as a person picking the option: the value changes, then "change" fires
        devtools.js(f"(function () {{ var s = document.getElementById({json.dumps(select_id)}); "
                    f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }}())")

    choose("status-filter", "error")
    assert shown_ids(devtools) == ["q7"]
    choose("status-filter", "")
    choose("label-filter", "scenario=typo")
    assert sorted(shown_ids(devtools)) == ["q0", "q3", "q6"]
    choose("label-filter", f"scenario={HOSTILE[2]}")  # a label value holding markup, matched as text
    assert shown_ids(devtools) == ["q5"]
    options = devtools.js("Array.prototype.map.call(document.getElementById('label-filter').options, "
                          "function (o) { return o.textContent; })")
    assert f"scenario = {HOSTILE[2]}" in options
    choose("label-filter", "")
    # a click on token F1's column sorts ascending: the worst (lowest) first
    headers = devtools.js("Array.prototype.map.call(document.querySelectorAll('#records thead th'), "
                          "function (h) { return h.textContent; })")
    column = headers.index("overlap/token_f1")
    devtools.click(f"#records thead th:nth-child({column + 1})")
    values = devtools.js("Array.prototype.map.call(document.getElementById('records').tBodies[0].rows, "
                         f"function (r) {{ return parseFloat(r.cells[{column}].getAttribute('data-sort')); }})")
    assert values == sorted(values) and values[0] == 0.0 and values[-1] == 1.0  # "It is Lyon." vs "Paris"
    slices = devtools.js("document.getElementById('slice-table').innerText")
    assert "typo" in slices and HOSTILE[2] in slices
    devtools.click("#records tbody tr[data-record='4'] td")  # the response that tries to end the script
    assert HOSTILE[0] in devtools.js("document.getElementById('record-4').innerText")
    assert devtools.js("typeof window.__pwned") == "undefined"
    assert devtools.problems() == []


WIDE_METRICS = [f"toy/a_rather_long_metric_name_number_{n:02d}" for n in range(24)]


@pytest.fixture
def wide_report(tmp_path, monkeypatch):
    """Two runs of 24 metrics with long ids: tables far wider than the page."""
    monkeypatch.chdir(tmp_path)
    header = {m: {"granularity": "sample", "direction": "higher", "metric_version": "1"} for m in WIDE_METRICS}
    paths = []
    for name, shift in (("first-run", 0.0), ("second-run", 0.1)):
        rows = {f"record-{i:03d}": {m: (i * 7 + k) % 10 / 10 * (1 - shift) for k, m in enumerate(WIDE_METRICS)}
                for i in range(40)}
        paths.append(str(write_journal(f"{name}.jsonl", rows, metrics=header)))
    return write_report(paths[0], tmp_path / "wide.html", compare_with=paths[1:], n_resamples=100)


def box(devtools, selector):
    return devtools.js(f"(function () {{ var r = document.querySelector({json.dumps(selector)})"
                       ".getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, "
                       "width: r.width}; }())")


def test_wide_tables_scroll_inside_their_panels_with_the_id_column_fixed(devtools, wide_report):
    devtools.open(f"file://{wide_report}")
    assert devtools.problems() == []
    title = devtools.js("document.title")
    assert "first-run" in title and "second-run" in title
    assert devtools.js("document.querySelector('h1').textContent") == title
    # nothing is wider than the page: the page never scrolls sideways
    assert devtools.js("document.documentElement.scrollWidth") <= devtools.js("document.documentElement.clientWidth")
    assert devtools.js("document.body.scrollWidth") <= devtools.js("document.body.clientWidth")
    overflowing = devtools.js(  # every table (or the panel it scrolls in) ends inside its section
        "Array.prototype.map.call(document.querySelectorAll('table'), function (t) {"
        " return t.parentNode.classList.contains('table-wrap') ? t.parentNode : t; }).filter(function (t) {"
        " return t.getBoundingClientRect().right > t.parentNode.closest('section').getBoundingClientRect().right + 1"
        " || t.scrollWidth > t.clientWidth && getComputedStyle(t).overflowX === 'visible'; }).length")
    assert overflowing == 0
    assert devtools.js("document.querySelectorAll('#aggregates table, #provenance table').length") == 2
    wrap = "#records-section .table-wrap"
    assert devtools.js(f"document.querySelector('{wrap}').scrollWidth") > devtools.js(
        f"document.querySelector('{wrap}').clientWidth")  # the records table scrolls inside its panel
    first_id = "#records tbody tr:first-child td:first-child"
    before = box(devtools, first_id)
    devtools.js(f"document.querySelector('{wrap}').scrollLeft = 600")
    assert devtools.js(f"document.querySelector('{wrap}').scrollLeft") > 300
    after = box(devtools, first_id)
    assert abs(after["left"] - before["left"]) < 1  # the id column stays where it was
    assert abs(box(devtools, "#records thead th:first-child")["left"] - before["left"]) < 1
    # a cell further right did move
    assert box(devtools, "#records tbody tr:first-child td:nth-child(3)")["left"] < before["right"] + 50
    # the record opens beside the list: the table keeps its place and width, its id column in view
    table_before = box(devtools, wrap)
    devtools.click("#records tbody tr[data-record='3'] td")
    assert devtools.js("document.getElementById('record-3').hidden") is False
    view, table_after = box(devtools, "#record-view"), box(devtools, wrap)
    assert view["left"] >= table_after["right"] - 1
    assert abs(view["top"] - table_after["top"]) < 200
    assert (table_after["left"], table_after["width"]) == (table_before["left"], table_before["width"])
    assert box(devtools, first_id)["left"] >= table_after["left"] - 1
    # the side-by-side table scrolls inside its panel too, its id column fixed
    side = "#side-by-side .table-wrap"
    devtools.js(f"document.querySelector('{side}').scrollLeft = 500")
    side_id = box(devtools, "#side-0 tbody tr:first-child td:first-child")
    assert abs(side_id["left"] - box(devtools, side)["left"]) < 2
    assert devtools.problems() == []


def test_each_judge_call_opens_with_its_prompt_and_raw_answer(devtools, judged_report):
    devtools.open(f"file://{judged_report}")
    devtools.click("#records tbody tr[data-record='1'] td")
    calls = "#record-1 details.judge-call"
    assert devtools.js(f"document.querySelectorAll('{calls}').length") >= 1
    assert devtools.js(f"document.querySelector('{calls}').open") is False
    devtools.click(f"{calls} summary")
    assert devtools.js(f"document.querySelector('{calls}').open") is True
    transcript = devtools.js(f"document.querySelector('{calls}').innerText")
    assert "question 1: capital of France?" in transcript  # the prompt as sent
    assert "system" in transcript and "user" in transcript
    assert RATIONALE in transcript and '"explanation"' in transcript  # the answer as received, raw JSON
    devtools.click("#records tbody tr[data-record='7'] td")  # the answer that did not parse: both tries shown
    devtools.click("#record-7 details.judge-call summary")
    broken = devtools.js("document.querySelector('#record-7 details.judge-call').innerText")
    assert "BROKEN JUDGE question" in broken and "no verdict here" in broken
    assert devtools.js("typeof window.__pwned") == "undefined"
    assert devtools.problems() == []


def test_a_trace_runs_record_shows_task_answer_and_calls_from_the_journal_alone(devtools, tmp_path, monkeypatch):
    pytest.importorskip("evalcore_agent")
    monkeypatch.chdir(tmp_path)
    traces = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "traces")
    proc = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--traces",
                           os.path.join(traces, "agent_otlp.json"), "--trace-examples",
                           os.path.join(traces, "expected.jsonl"), "-m", "agent/tool_call_correctness",
                           "-o", "traces.json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    header = json.loads(open("traces.rows.jsonl", encoding="utf-8").readline())
    assert header["reader"]["name"] == "otel"
    proc = subprocess.run([sys.executable, "-m", "evalcore", "report", "traces.rows.jsonl", "-o", "traces.html"],
                          capture_output=True, text=True, timeout=300)  # the journal alone, no --input
    assert proc.returncode == 0, proc.stderr
    devtools.open(f"file://{tmp_path / 'traces.html'}")
    rows = devtools.js("Array.prototype.map.call(document.querySelectorAll('#records tbody tr'), "
                       "function (r) { return r.getAttribute('data-record'); })")
    assert len(rows) == 2
    devtools.click(f"#records tbody tr[data-record='{rows[0]}'] td")
    view = devtools.js(f"document.getElementById('record-{rows[0]}').innerText")
    for text in ("Agent trace", "Task", "weather in Paris?", "Final answer", "18 C and sunny", "Tool calls (2)",
                 "search_city", "get_weather", "LLM calls (3)", "toy-model"):
        assert text in view, text
    assert devtools.problems() == []
