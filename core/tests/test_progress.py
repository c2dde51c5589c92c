"""The progress display: on standard error only, sizes from the bytes read, a steady rate, a real ETA,
redrawn in place at most ten times a second and within the terminal's width."""

from __future__ import annotations

import io
import json
import pathlib
import re
import sys
from typing import Any

import evalcore
import pytest
from evalcore._engine.progress import RunProgress
from evalcore.testing import run_evalcore, write_records


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class PartRead:
    """A source of 45.6 MB of which 12.3 MB are read."""

    bytes_read = 12_300_000

    def size(self) -> int:
        return 45_600_000


class Terminal(io.StringIO):
    """Text written to a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> Terminal:
    """An 80-column terminal."""
    monkeypatch.setenv("COLUMNS", "80")
    return Terminal()


def shown_on(stream: io.StringIO, enabled: bool | None = None, **kwargs: Any) -> RunProgress:
    """A progress display made while ``stream`` is standard error."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", stream)
        return RunProgress(enabled, **kwargs)


def screen(text: str) -> list[str]:
    """What a terminal shows after ``text``: carriage returns, new lines, cursor-up and clear-to-end applied."""
    tokens = re.findall(r"\x1b\[\d+A|\x1b\[K|\r|\n|[^\x1b\r\n]+", text)
    assert "".join(tokens) == text, "no other control sequence"
    rows, row, col = [""], 0, 0
    for token in tokens:
        if token == "\r":
            col = 0
        elif token == "\n":
            row, col = row + 1, 0
            rows += [""] * (row + 1 - len(rows))
        elif token == "\x1b[K":
            rows[row] = rows[row][:col]
        elif token.startswith("\x1b["):
            row -= int(token[2:-1])
            assert row >= 0
        else:
            rows[row] = rows[row][:col] + token + rows[row][col + len(token):]
            col += len(token)
    assert rows[-1] == "" and row == len(rows) - 1, "the cursor ends below the lines"
    return rows[:-1]


def bar(filled: int, width: int = 40) -> str:
    """A bar ``width`` characters wide, ``filled`` of them done."""
    return "#" * filled + "." * (width - filled)


def test_the_records_to_come_are_estimated_from_the_bytes_read(terminal):
    clock = Clock()
    progress = shown_on(terminal, total=None, source=PartRead(), clock=clock)
    progress.start()
    assert screen(terminal.getvalue()) == ["reading      " + bar(0) + "   0%", "scoring"]
    clock.now = 101.0
    progress.read(1000)  # 1000 records in the first 12.3 MB of 45.6: about 3707 in all
    clock.now = 110.0
    progress.scored(1000, errors=0)  # 1000 records in 10 s: 100/s, 2707 more to go
    assert screen(terminal.getvalue()) == [
        "reading      " + bar(8, 29) + "  27%  12.3 of 45.6 MB",
        "scoring      " + bar(8, 29) + "  27%  1,000 records  100/s  eta 0:27",
    ]


def test_redraws_are_at_most_ten_a_second(terminal):
    clock = Clock()
    progress = shown_on(terminal, total=1000, clock=clock)
    progress.start()
    drawn = terminal.getvalue()
    clock.now = 100.0625
    progress.read(100)
    progress.scored(100, errors=0)
    assert terminal.getvalue() == drawn  # too soon
    clock.now = 100.125
    progress.scored(100, errors=3)
    assert screen(terminal.getvalue()) == [
        "reading      " + bar(2, 18) + "  10%  100 records",
        "scoring      " + bar(4, 18) + "  20%  200 records  1,600/s  eta 0:01  errors: 3",
    ]
    assert terminal.getvalue().count("\x1b[2A") == 1  # the two lines rewritten in place


def test_stop_leaves_the_final_lines_with_the_summary_metric_by_metric(terminal):
    clock = Clock()
    progress = shown_on(terminal, total=None, clock=clock)
    progress.start()
    for _ in range(3):
        clock.now += 5
        progress.read(100)
        progress.scored(100, errors=0)
    progress.summarising(2)
    progress.summarised("overlap/token_f1")
    progress.stop()
    assert screen(terminal.getvalue()) == [
        "reading      " + bar(40) + " 100%  300 records",
        "scoring      " + bar(40) + " 100%  300 records  20/s",
        "summarising  " + bar(20) + "  50%  overlap/token_f1",
    ]
    written = terminal.getvalue()
    progress.summarised("overlap/exact_match")
    progress.stop()
    assert terminal.getvalue() == written  # nothing after the end


def test_an_interrupted_run_marks_the_scoring_line_and_keeps_its_errors(terminal):
    clock = Clock()
    progress = shown_on(terminal, total=400, clock=clock)
    progress.start()
    clock.now = 102.0
    progress.read(200)
    progress.scored(100, errors=2)
    progress.interrupted()
    progress.stop()
    assert screen(terminal.getvalue()) == [
        "reading      " + bar(16, 31) + "  50%  200 records",
        "interrupted  " + bar(8, 31) + "  25%  100 records  50/s  errors: 2",
    ]


def test_each_line_fits_a_narrow_terminal(terminal, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    clock = Clock()
    progress = shown_on(terminal, total=None, source=PartRead(), clock=clock)
    progress.start()
    progress.read(1000)
    clock.now = 110.0
    progress.scored(1000, errors=12)
    progress.summarising(1)
    progress.summarised("retrieval/ndcg(gain='exp2')@10")
    progress.stop()
    assert screen(terminal.getvalue()) == [  # the bars go first, then the ends of the lines
        "reading      100%  12.3 of 45.6 MB",
        "scoring      100%  1,000 records  100/s",
        "summarising  100%  retrieval/ndcg(gain=",
    ]


def test_silent_when_standard_error_is_not_a_terminal():
    stream = io.StringIO()
    progress = shown_on(stream, total=10, source=PartRead(), clock=Clock())
    progress.start()
    progress.read(10)
    progress.scored(10, errors=0)
    progress.summarising(1)
    progress.summarised("overlap/token_f1")
    progress.stop()
    assert not progress.enabled and stream.getvalue() == ""


def test_asked_for_off_a_terminal_it_writes_the_final_lines_once(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    stream, clock = io.StringIO(), Clock()
    progress = shown_on(stream, True, total=10, clock=clock)
    progress.start()
    clock.now = 101.0
    progress.read(10)
    progress.scored(10, errors=0)
    assert stream.getvalue() == ""
    progress.stop()
    assert stream.getvalue() == ("reading      " + bar(40) + " 100%  10 records\n"
                                 "scoring      " + bar(40) + " 100%  10 records  10/s\n")


def test_no_module_of_the_core_imports_rich():
    package = pathlib.Path(evalcore.__file__).parent
    importing = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if re.search(r"^\s*(import|from)\s+rich\b", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert importing == []


def test_json_output_stays_valid_with_progress_on(tmp_path):
    data = write_records(tmp_path / "r.jsonl", [
        {"id": i, "example": {"reference_answer": "the cat"}, "prediction": {"response": "the cat sat"}}
        for i in range(300)])
    proc = run_evalcore("evaluate", str(data), "-m", "overlap/token_f1", "--json", "--progress",
                        "--chunk-size", "50")
    report = json.loads(proc.stdout)  # nothing but the report on standard output
    assert report["metrics"]["overlap/token_f1"]["n"] == 300
    assert re.search(r"reading.*100%.*MB", proc.stderr) and "summarising" in proc.stderr
    assert re.search(r"scoring.*300 records", proc.stderr)
    assert "\x1b" not in proc.stderr  # not a terminal: the final lines, written once
