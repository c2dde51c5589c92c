"""The content-addressed cache: keys, modes, atomic entries, hit statistics."""

from __future__ import annotations

import json

import pytest
from evalcore.cache import ContentCache, cache_key, content_hash, run_cache

KEY_PARTS = dict(metric="judge/faithfulness", version="1", template_hash="abc", model="m",
                 decoding={"temperature": 0.0, "seed": 0}, inputs=[{"role": "user", "content": "hi"}])


def test_key_is_stable_and_covers_every_part():
    key = cache_key(**KEY_PARTS)
    assert key == cache_key(**{**KEY_PARTS, "decoding": {"seed": 0, "temperature": 0.0}})
    assert len(key) == 64
    for part, other in [("metric", "judge/x"), ("version", "2"), ("template_hash", "abd"), ("model", "n"),
                        ("decoding", {"temperature": 0.5, "seed": 0}), ("inputs", [{"role": "user", "content": "ho"}])]:
        assert cache_key(**{**KEY_PARTS, part: other}) != key, part


def test_content_hash_of_text_and_data():
    assert content_hash("x") != content_hash(["x"])
    assert content_hash({"a": 1, "b": (1, 2)}) == content_hash({"b": [1, 2], "a": 1})


def test_readwrite_round_trip_counts_hits_and_savings(tmp_path):
    cache = ContentCache(tmp_path, "readwrite")
    assert cache.get("k" * 64) is None
    entry = {"text": "a", "usage": {"prompt_tokens": 10, "completion_tokens": 3}, "cost_msats": 7}
    assert cache.put("k" * 64, entry)
    assert cache.contains("k" * 64)
    assert cache.get("k" * 64) == entry
    stats = cache.stats.to_dict()
    assert stats == {"hits": 1, "misses": 1, "writes": 1, "saved_prompt_tokens": 10,
                     "saved_completion_tokens": 3, "saved_cost_msats": 7}
    # one file, valid JSON, no temporary files left behind
    files = list(tmp_path.rglob("*"))
    assert [f.name for f in files if f.is_file()] == ["k" * 64 + ".json"]
    assert json.loads(files[-1].read_text() if files[-1].is_file() else cache.path("k" * 64).read_text())


def test_readonly_never_writes(tmp_path):
    ContentCache(tmp_path).put("a" * 64, 1)
    cache = ContentCache(tmp_path, "readonly")
    assert cache.get("a" * 64) == 1
    assert not cache.put("b" * 64, 2)
    assert not cache.path("b" * 64).exists()


def test_refresh_ignores_and_overwrites(tmp_path):
    ContentCache(tmp_path).put("a" * 64, 1)
    cache = ContentCache(tmp_path, "refresh")
    assert cache.get("a" * 64) is None
    assert not cache.contains("a" * 64)
    cache.put("a" * 64, 2)
    assert ContentCache(tmp_path).get("a" * 64) == 2


def test_off_and_bad_mode(tmp_path):
    cache = ContentCache(tmp_path, "off")
    assert not cache.put("a" * 64, 1) and cache.get("a" * 64) is None
    with pytest.raises(ValueError, match="cache mode"):
        ContentCache(tmp_path, "sometimes")


def test_corrupt_entry_is_a_miss(tmp_path):
    cache = ContentCache(tmp_path)
    cache.put("c" * 64, {"x": 1})
    cache.path("c" * 64).write_text("{not json")
    assert cache.get("c" * 64) is None
    assert cache.stats.misses == 1


def test_environment_sets_directory_and_mode_where_the_run_starts(tmp_path, monkeypatch):
    from evalcore.plugin import RunContext

    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("EVALCORE_CACHE_MODE", "readonly")
    context = RunContext.from_environment()
    monkeypatch.delenv("EVALCORE_CACHE_MODE")  # read once: later changes do not reach the run
    cache = run_cache(context)
    assert cache.directory == tmp_path / "env" and cache.mode == "readonly"
    assert run_cache(context, "refresh", str(tmp_path / "own")).mode == "refresh"  # a metric's own setting wins
    assert run_cache(context, "off") is None and run_cache(RunContext(cache_mode="off")) is None
