"""Diversity qrels files (ndeval's format) read into ``relevant_docs`` entries with subtopics."""

from __future__ import annotations

import os
from typing import Any

from evalcore.plugin import InputError

from ._trec_lines import _decode, _integer, file_bytes

_BOM = b"\xef\xbb\xbf"
_COLUMNS = ("qid", "subtopic", "docno", "rel")


def read_subtopic_qrels(path: str | os.PathLike[str]) -> dict[str, list[dict[str, Any]]]:
    """Each query's judgements from a diversity qrels file, as ``example.relevant_docs`` entries.

    Lines are ``qid subtopic docno rel`` (ndeval's format, the one of the TREC Web track's
    diversity qrels): the second column, which trec_eval ignores, names the subtopic, and a
    document relevant to several subtopics has one line for each. Each line becomes
    ``{"doc_id": docno, "subtopic": subtopic, "relevance": rel}``, in file order. As in
    trec_eval 10's files, blank lines are skipped and a line whose first field starts with
    ``#`` is a comment. Bad lines, and a (query, subtopic, document) judged twice, raise
    :class:`~evalcore.plugin.InputError` naming ``file:line`` and the field.
    """
    name, data = file_bytes(path)
    body = bytes(data[len(_BOM):] if data[:len(_BOM)] == _BOM else data)
    queries: dict[str, list[dict[str, Any]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for lineno, line in enumerate(body.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        source = f"{name}:{lineno}"
        if len(fields) != len(_COLUMNS):
            raise InputError(f"expected 4 columns '{' '.join(_COLUMNS)}', got {len(fields)}", source=source,
                             field="columns")
        qid, subtopic, docno, rel = (_decode(f, column, source) for f, column in zip(fields, _COLUMNS))
        if (qid, subtopic, docno) in seen:
            raise InputError(f"document {docno!r} is judged twice for subtopic {subtopic!r} of query {qid!r}",
                             source=source, field="docno")
        seen.add((qid, subtopic, docno))
        queries.setdefault(qid, []).append({"doc_id": docno, "subtopic": subtopic, "relevance": _integer(rel, source)})
    if not queries:
        raise InputError(f"no qrels lines (expected '{' '.join(_COLUMNS)}')", source=name)
    return queries
