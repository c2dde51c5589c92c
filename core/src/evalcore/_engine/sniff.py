"""What a file given as JSONL records looks like when none of its lines is a record."""

from __future__ import annotations

from pathlib import Path

import orjson

_WHOLE_FILE_LIMIT = 64 * 1024 * 1024  # read a file whole only up to this size to tell what it is
_EXPECTED = "expected JSON lines, one record object per line"


def not_records(path: Path) -> str | None:
    """A one-line description of what ``path`` holds instead of JSONL records, with what to do;
    ``None`` when it looks like JSON lines that are merely bad (each line's error says why)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64 * 1024)
    except OSError:
        return None
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    first = text.split(b"\n", 1)[0].strip().decode("utf-8", "replace")
    if text.startswith(b"["):
        return (f"holds a JSON array, not JSON lines; {_EXPECTED} "
                "(convert it with: jq -c '.[]' FILE > FILE.jsonl)")
    if text.startswith(b"{"):
        return _one_document(path)
    if "," in first or "\t" in first:
        return (f"looks like CSV (first line: {first[:80]!r}), not JSON lines; {_EXPECTED}: "
                "name it .csv (or .tsv) to read it as a table")
    if len(first.split()) in (4, 6):
        return (f"looks like a TREC qrels or run file (first line: {first[:80]!r}), not JSON lines; "
                "give TREC files with --qrels QRELS --run RUN")
    return None


def _one_document(path: Path) -> str | None:
    """A pretty-printed JSON object: an evalcore report, or one document over several lines."""
    try:
        if path.stat().st_size > _WHOLE_FILE_LIMIT:
            return None
        value = orjson.loads(path.read_bytes().lstrip(b"\xef\xbb\xbf"))
    except (OSError, orjson.JSONDecodeError):
        return None
    if isinstance(value, dict) and "metrics" in value and "provenance" in value:
        return ("is an evalcore report (JSON), not records; open it with: evalcore report FILE -o page.html, "
                "or compare it with evalcore compare")
    if isinstance(value, dict):
        return f"holds one JSON object over several lines, not JSON lines; {_EXPECTED}"
    return None
