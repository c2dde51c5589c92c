"""Trace files that cannot be read as they are say so in one line naming the span, through ``evalcore
evaluate --traces``: an impossible time, attributes nested too deeply or too large, a file nested
deeper than JSON can be read; a string attribute holding deeply nested JSON is kept as text."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore_agent import _spans

TRACE = "0af7651916cd43dd8448eb211c80319c"
SPAN = "b7ad6b7169203331"
WHERE = f"span 1 ('agent', trace {TRACE}, span {SPAN})"


def _file(tmp_path, *, start: str = "1700000000000000000", attributes: list | None = None, text: str | None = None):
    span = {"traceId": TRACE, "spanId": SPAN, "name": "agent", "startTimeUnixNano": start,
            "endTimeUnixNano": "1700000001000000000",
            "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "AGENT"}},
                           {"key": "input.value", "value": {"stringValue": "the task"}}, *(attributes or [])]}
    path = tmp_path / "traces.json"
    path.write_text(text if text is not None else json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    return str(path)


def _evaluate(path: str):
    result = CliRunner().invoke(main, ["evaluate", "--traces", path, "-m", "system/technical_performance",
                                       "--no-progress", "--json"])
    return result


def _one_line_error(result) -> str:
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    [line] = result.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize(("start", "why"), [
    ("2024-13-45T00:00:00Z", "impossible time '2024-13-45T00:00:00Z' (month must be in 1..12)"),
    ("2024-02-30T10:00:00.5Z", "impossible time '2024-02-30T10:00:00.5Z'"),
    (str(10**30), "impossible time 1000000000000000000000000000000"),
])
def test_a_span_with_an_impossible_time_is_named(tmp_path, start, why):
    line = _one_line_error(_evaluate(_file(tmp_path, start=start)))
    assert WHERE in line and "startTimeUnixNano" in line and why in line


def test_attributes_nested_too_deeply(tmp_path):
    value = {"stringValue": "x"}
    for _ in range(_spans.MAX_DEPTH + 1):
        value = {"kvlistValue": {"values": [{"key": "k", "value": value}]}}
    line = _one_line_error(_evaluate(_file(tmp_path, attributes=[{"key": "deep", "value": value}])))
    # named by the innermost key
    assert WHERE in line and f"attributes k: nested more than {_spans.MAX_DEPTH} levels deep" in line


def test_an_attribute_too_large(tmp_path, monkeypatch):
    monkeypatch.setattr(_spans, "MAX_ATTRIBUTE_CHARS", 1000)
    big = [{"key": "output.value", "value": {"stringValue": "x" * 1001}}]
    line = _one_line_error(_evaluate(_file(tmp_path, attributes=big)))
    assert WHERE in line and "attributes output.value: 1001 characters; an attribute may hold at most 1000" in line


def test_a_file_nested_deeper_than_json_can_be_read(tmp_path):
    path = _file(tmp_path, text='{"resourceSpans": ' + "[" * 100_000 + "]" * 100_000 + "}")
    line = _one_line_error(_evaluate(path))
    assert line.endswith("traces.json: a JSON value from line 1 is nested too deeply to read")


def test_a_string_attribute_holding_deeply_nested_json_is_kept_as_text(tmp_path):
    deep = [{"key": "output.value", "value": {"stringValue": "[" * 100_000 + "]" * 100_000}}]
    result = _evaluate(_file(tmp_path, attributes=deep))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metrics"]["system/technical_performance"]["n"] == 1
