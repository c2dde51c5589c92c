"""Monitors decided with anytime-valid confidence sequences: over many simulated streams watched after
every value, false alarms stay under 1 - confidence while a fixed threshold re-checked after every
value alarms in most streams; a real drop is found within a window or two."""

from __future__ import annotations

import numpy as np
from evalcore_watch import Monitor, MonitorSpec

STREAMS, LENGTH = 200, 1500


def _first_alarm(spec: MonitorSpec, values: np.ndarray) -> int | None:
    alarms = Monitor(spec).add_many(list(values), [str(i) for i in range(len(values))])
    return int(alarms[0]["trace_id"]) if alarms else None


def test_watching_continuously_keeps_false_alarms_under_the_stated_level() -> None:
    rng = np.random.default_rng(11)
    streams = (rng.random((STREAMS, LENGTH)) < 0.9).astype(float)  # quality 0.9, floor 0.85: no alarm is due
    spec = MonitorSpec("m", "x", floor=0.85, window=300, confidence=0.95)
    false = sum(_first_alarm(spec, s) is not None for s in streams)
    assert false / STREAMS <= 0.05
    # the check the confidence sequence replaces: the window's mean below the floor, re-checked after each value
    windows = streams.reshape(STREAMS, -1, 300)
    running = np.cumsum(windows, axis=-1) / np.arange(1, 301)
    fixed = np.any(running[..., 20:] < 0.85, axis=(1, 2))
    assert fixed.mean() > 0.5


def test_a_drop_below_the_floor_is_found_after_it_and_not_before() -> None:
    rng = np.random.default_rng(12)
    spec = MonitorSpec("m", "x", floor=0.8, window=200, confidence=0.95)
    found = []
    for _ in range(50):
        values = np.concatenate([rng.random(1000) < 0.95, rng.random(1000) < 0.5]).astype(float)
        found.append(_first_alarm(spec, values))
    assert all(f is not None and f >= 1000 for f in found)
    assert max(found) - 1000 < 400  # within two windows of the drop


def test_a_baseline_monitor_alarms_on_a_fall_from_the_baseline_only() -> None:
    rng = np.random.default_rng(13)
    spec = MonitorSpec("m", "x", baseline=400, margin=0.05, window=200, confidence=0.95)
    steady = (rng.random(2000) < 0.9).astype(float)
    assert _first_alarm(spec, steady) is None
    fall = np.concatenate([rng.random(1200) < 0.9, rng.random(800) < 0.6]).astype(float)
    first = _first_alarm(spec, fall)
    assert first is not None and first >= 1200
