"""JSON lines read as bytes: one value, or an :class:`InputError` naming the line, per non-blank line."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from .errors import InputError

_BOM = b"\xef\xbb\xbf"
_MAX_LINE_BYTES = 64 * 1024 * 1024


def parse_json_line(line: bytes, source: str) -> Any:
    """One JSON value from one line, or :class:`InputError` naming the line.

    Valid JSON that orjson does not hold is read by Python's json: an integer beyond 64 bits, and
    a lone surrogate escape (``"\\ud800"``), which becomes a string holding that code point (as
    ``json.loads`` gives it; :func:`dump_json` writes it back as the same escape).
    """
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        message = str(exc)
    if "64-bit" in message or "surrogate" in message:
        try:
            value = json.loads(line)
            if "64-bit" in message:
                json.dumps(value, ensure_ascii=False).encode()
            return value
        except (ValueError, RecursionError, UnicodeError) as exc:
            message = str(exc)
    return InputError(f"malformed JSON: {_short(message)}", source=source)


def dump_json(value: Any, default: Callable[[Any], Any], option: int = 0) -> bytes:
    """``orjson.dumps(value, default=default, option=option)``; a string holding a lone surrogate,
    which orjson (UTF-8 only) refuses, is written by Python's json as its ``\\uXXXX`` escape (keys
    sorted and a newline appended where ``option`` asks for them; numpy values through ``default``)."""
    try:
        return orjson.dumps(value, default=default, option=option)
    except TypeError as exc:
        if "surrogates" not in str(exc):
            raise
    text = json.dumps(value, default=lambda v: v.tolist() if hasattr(v, "tolist") else default(v),
                      sort_keys=bool(option & orjson.OPT_SORT_KEYS), separators=(",", ":"))
    return (text + ("\n" if option & orjson.OPT_APPEND_NEWLINE else "")).encode()


_BLANK_START = frozenset(b" \t\n\r\x0b\x0c")  # what bytes.strip() removes


def open_lines(path: Path) -> BinaryIO:
    """``path`` opened to read its lines as bytes, or :class:`InputError` naming it."""
    try:
        return open(os.fspath(path), "rb")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=os.fspath(path)) from None


def iter_json_lines(path: Path, handle: BinaryIO | None = None) -> Iterator[tuple[str, int, Any]]:
    """``(source, line number, value or InputError)`` for each non-blank line of ``path`` (read
    through ``handle`` when given: its position says how far reading has come); the file is closed
    at the end, also when the caller stops early."""
    name = os.fspath(path)
    handle = open_lines(path) if handle is None else handle
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    with handle:
        for lineno, line in enumerate(handle, start=1):  # binary files split on b"\n" only
            if lineno == 1 and line.startswith(_BOM):
                line = line[len(_BOM):]
            if (not line or line[0] in _BLANK_START) and not line.strip():
                continue
            source = f"{name}:{lineno}"
            if len(line) > _MAX_LINE_BYTES:
                yield source, lineno, InputError(f"line longer than {_MAX_LINE_BYTES} bytes", source=source)
                continue
            try:
                value = loads(line)
            except decode_error:
                value = parse_json_line(line, source)
            yield source, lineno, value


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[:limit] + "…"
