"""The spool: kept until every trace in it is in a claimed batch, then removed (earlier hours only)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from evalcore_watch.store import Store


def _request(*trace_ids: str) -> dict:
    return {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": t, "spanId": "01" * 8} for t in trace_ids]}]}]}


def test_an_earlier_hours_spool_goes_once_all_its_traces_are_claimed(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.append(_request("aa" * 16, "bb" * 16), now=datetime(2026, 3, 1, 8, tzinfo=UTC))
    store.append(_request("cc" * 16), now=datetime(2026, 3, 1, 9, tzinfo=UTC))
    store.append(_request("dd" * 16), now=datetime(2026, 3, 1, 10, tzinfo=UTC))  # the open hour
    assert store.compact({"aa" * 16}) == []  # bb is not claimed yet
    removed = store.compact({"aa" * 16, "bb" * 16, "cc" * 16, "dd" * 16})
    assert [p.name for p in removed] == ["2026030108.jsonl", "2026030109.jsonl"]
    assert [r["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] for r in store.spooled()] == ["dd" * 16]
    store.close()
