"""The progress display: on standard error only, sizes from the bytes read, a steady rate, a real ETA."""

from __future__ import annotations

import json
import re

from evalcore._engine.progress import RunProgress
from evalcore.testing import run_evalcore, write_records


class HalfRead:
    """A source 1000 bytes long of which 500 are read."""

    bytes_read = 500

    def size(self):
        return 1000


def test_the_records_to_come_are_estimated_from_the_bytes_read():
    clock = iter([100.0, 110.0])
    progress = RunProgress(True, total=None, source=HalfRead(), clock=lambda: next(clock))
    progress.start()
    progress.read(250)  # 250 records in the first 500 bytes: about 500 in all
    assert progress._bar.tasks[progress._scoring].total == 500
    progress.scored(250, errors=0)  # 250 records in 10 s: 25/s, 250 more to go
    fields = progress._bar.tasks[progress._scoring].fields
    assert fields["rate"] == "25/s" and fields["eta"] == "eta 0:10"
    progress.summarising(2)
    progress.summarised("t/a")
    assert progress._bar.tasks[progress._summary].completed == 1
    progress.stop()


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
