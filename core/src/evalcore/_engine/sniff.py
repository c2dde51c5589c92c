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
    encoding = _other_encoding(head)
    if encoding is not None:
        return encoding
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    first = text.split(b"\n", 1)[0].strip().decode("utf-8", "replace")
    if text.startswith(b"["):
        return (f"holds a JSON array, not JSON lines; {_EXPECTED} "
                "(convert it with: jq -c '.[]' FILE > FILE.jsonl)")
    if text.startswith(b"{"):
        return _one_document(path)
    trec = _trec_kind(first)
    if trec is not None:
        return (f"looks like a TREC {trec} file (first line: {first[:80]!r}), not JSON lines; "
                "give TREC files with --qrels QRELS --run RUN")
    if "," in first or "\t" in first:
        return (f"looks like CSV (first line: {first[:80]!r}), not JSON lines; {_EXPECTED}: "
                "name it .csv (or .tsv) to read it as a table")
    return None


_UTF16_BOMS = {b"\xff\xfe": "UTF-16LE", b"\xfe\xff": "UTF-16BE"}


def _other_encoding(head: bytes) -> str | None:
    """What to do with a file that is not UTF-8: UTF-16 (a byte-order mark, or NUL bytes between
    ASCII characters) or bytes UTF-8 cannot decode (Latin-1, Windows-1252)."""
    name = next((name for bom, name in _UTF16_BOMS.items() if head.startswith(bom)), None)
    if name is None and b"\x00" in head[:512]:
        name = "UTF-16LE" if head[1:2] == b"\x00" else "UTF-16BE" if head[:1] == b"\x00" else None
    if name is not None:
        source = "UTF-16" if head[:2] in _UTF16_BOMS else name  # iconv drops the byte-order mark it reads
        return (f"is encoded as {name}, not UTF-8; evalcore reads UTF-8: convert it with "
                f"iconv -f {source} -t UTF-8 FILE > FILE.utf8")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not merely a character cut at the end of the sample read
            return (f"is not UTF-8 (byte 0x{head[exc.start]:02x} at offset {exc.start}; perhaps Latin-1 or "
                    "Windows-1252); evalcore reads UTF-8: convert it with iconv -f LATIN1 -t UTF-8 FILE > FILE.utf8")
    return None


def _trec_kind(line: str) -> str | None:
    """``"run"`` or ``"qrels"`` when ``line`` has the shape of a TREC run line (query, Q0, document,
    rank, score, tag) or qrels line (query, iteration, document, relevance), whitespace- or tab-separated."""
    fields = line.split()
    if len(fields) == 6 and _is_number(fields[3], int) and _is_number(fields[4], float):
        return "run"
    if len(fields) == 4 and _is_number(fields[3], int):
        return "qrels"
    return None


def _is_number(text: str, kind: type) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


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
