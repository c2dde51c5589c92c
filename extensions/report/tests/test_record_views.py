"""Plugins' views of a record in the report: the agent plugin's trace view through the command line,
every value escaped, a failing view as one note; and the report's commands without the extension."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from evalcore import Record, write_report
from evalcore.plugin import RecordViewSpec
from evalcore.testing import run_evalcore, write_journal
from evalcore_report.record_view import view_of

ROOT = pathlib.Path(__file__).resolve().parents[3]
HOSTILE = "<script>alert(1)</script>"


def _attribute(span: dict, key: str, value: str) -> None:
    for attribute in span["attributes"]:
        if attribute["key"] == key:
            attribute["value"] = {"stringValue": value}


@pytest.fixture
def trace_report(tmp_path: pathlib.Path) -> str:
    pytest.importorskip("evalcore_agent")
    data = json.loads((ROOT / "examples" / "traces" / "agent_otlp.json").read_text(encoding="utf-8"))
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    city = next(s for s in spans if s["name"] == "execute_tool search_city")
    _attribute(city, "gen_ai.tool.call.arguments", json.dumps({"q": HOSTILE}))
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps(data), encoding="utf-8")
    examples = tmp_path / "expected.jsonl"
    examples.write_text("".join(json.dumps({"query": q, "expected_tool_calls": [{"name": n, "arguments": {}}]}) + "\n"
                                for q, n in (("weather in Paris?", "get_weather"),
                                             ("book a flight to Oslo", "find_flights"))), encoding="utf-8")
    run_evalcore("evaluate", "--reader", "otel", str(traces), "--trace-examples", str(examples),
                 "-m", "agent/tool_call_correctness", "-o", str(tmp_path / "r.json"))
    # the report reads records back as JSONL; a reader's run is given them with --input
    from evalcore_agent.traces import read_traces

    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in read_traces(traces, examples)), encoding="utf-8")
    run_evalcore("report", str(tmp_path / "r.json"), "--input", str(records), "-o", str(tmp_path / "r.html"))
    return (tmp_path / "r.html").read_text(encoding="utf-8")


def test_a_trace_record_shows_its_task_answer_tool_calls_and_llm_calls(trace_report):
    page = trace_report
    assert "Agent trace" in page
    for shown in ("Task", "weather in Paris?", "Final answer", "18 C and sunny", "Tool calls (2)", "search_city",
                  "get_weather", "18 C, sunny", "LLM calls (3)", "toy-model", "10 prompt + 4 completion"):
        assert shown in page, shown
    assert "Tool calls (2)" in page and "find_flights" in page  # the second trace's record


def test_every_value_of_a_view_is_escaped(trace_report):
    assert HOSTILE not in trace_report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in trace_report.replace("\\&quot;", "&quot;")
    assert trace_report.count("<script>") == 1  # the page's own script


def _one_record_run(tmp_path: pathlib.Path) -> tuple[str, list[dict]]:
    records = [{"id": "a", "example": {"query": "q"}, "prediction": {"response": "r"}}]
    journal = write_journal(tmp_path / "rows.jsonl", {"a": {"overlap/exact_match": 1.0}})
    return str(journal), records


def test_a_view_that_raises_is_one_note_and_the_page_still_renders(tmp_path, monkeypatch):
    broken = RecordViewSpec(name="broken", implementation="json:loads", namespace="acme")  # loads(Record) raises
    plain = RecordViewSpec(name="plain", implementation="evalcore_report_tests_views:plain", namespace="acme")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "evalcore_report_tests_views.py").write_text(
        "def plain(record):\n    return {'title': 'Plain <b>', 'sections': [{'heading': 'h', 'code': '<i>x</i>'}]}\n")
    monkeypatch.setattr("evalcore_report.page.installed_views", lambda: [broken, plain])
    journal, records = _one_record_run(tmp_path)
    page = open(write_report(journal, tmp_path / "r.html", inputs=records), encoding="utf-8").read()
    assert "the acme plugin's view broken failed: TypeError:" in page
    assert "Plain &lt;b&gt;" in page and "&lt;i&gt;x&lt;/i&gt;" in page and "<i>x</i>" not in page
    assert page.count("view-error") == 1


def test_a_view_applies_only_to_records_with_its_field():
    spec = RecordViewSpec(name="v", implementation="json:loads", applies_to="prediction.trajectory")
    assert view_of(spec, Record(id="a", example={}, prediction={"response": "r"})) is None


HIDE = ("import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] == 'evalcore_report':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n")


def _hidden(code: str, tmp_path: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HIDE + code], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**__import__("os").environ, "EVALCORE_NO_LIST_CACHE": "1"})


def test_write_report_without_the_extension_names_it(tmp_path):
    proc = _hidden("import evalcore\ntry:\n    evalcore.write_report\nexcept ModuleNotFoundError as exc:\n"
                   "    print(exc)\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("evalcore.write_report is part of evalcore-report, which is not installed: "
                                   "pip install evalcore-report")


def test_the_report_command_without_the_extension_is_one_line_naming_it(tmp_path):
    journal, _ = _one_record_run(tmp_path)
    proc = _hidden(f"import runpy\nsys.argv = ['evalcore', 'report', {journal!r}]\n"
                   "runpy.run_module('evalcore', run_name='__main__')\n", tmp_path)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: evalcore report is part of evalcore-report, which is not installed: "
                      "pip install evalcore-report"], proc.stderr
