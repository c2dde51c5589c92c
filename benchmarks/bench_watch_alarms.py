"""False alarms and detection delay of evalcore watch's monitors against a fixed-threshold check.

Streams of pass/fail values (a metric such as ``checks/format``) are watched value by value, in
windows of ``--window`` values, against a floor of ``--floor``:

* the monitor of evalcore-watch (``evalcore_watch.Monitor``): alarms when the anytime-valid
  confidence sequence of the window's mean (at level ``1 - alpha / (w (w + 1))`` in window ``w``)
  lies wholly below the floor;
* the fixed-threshold check the online-evaluation tools use: alarms when the window's mean so far
  (after at least ``--min-n`` values) is below the floor, re-checked after every value.

Null streams keep a pass rate of ``--quality`` (above the floor) for ``--length`` values: any alarm is
false. Drop streams fall to ``--dropped`` at the middle: the delay is the number of values from the
drop to the first alarm, and an alarm before the drop is counted apart. Reported over ``--streams``
streams.

    python benchmarks/bench_watch_alarms.py
    python benchmarks/bench_watch_alarms.py --length 20000 --streams 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from evalcore_watch import Monitor, MonitorSpec


def first_monitor_alarm(values: np.ndarray, spec: MonitorSpec) -> int | None:
    alarms = Monitor(spec).add_many(list(values), [str(i) for i in range(len(values))])
    return int(alarms[0]["trace_id"]) if alarms else None


def first_fixed_alarm(values: np.ndarray, floor: float, window: int, min_n: int) -> int | None:
    n = len(values) // window * window
    running = np.cumsum(values[:n].reshape(-1, window), axis=1) / np.arange(1, window + 1)
    below = running < floor
    below[:, :min_n - 1] = False
    hits = np.flatnonzero(below.reshape(-1))
    return int(hits[0]) if hits.size else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--length", type=int, default=10000)
    parser.add_argument("--window", type=int, default=500)
    parser.add_argument("--floor", type=float, default=0.85)
    parser.add_argument("--quality", type=float, default=0.9)
    parser.add_argument("--dropped", type=float, default=0.7)
    parser.add_argument("--min-n", type=int, default=30)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = MonitorSpec("bench", "x", floor=args.floor, window=args.window, confidence=args.confidence)
    rng = np.random.default_rng(args.seed)
    drop_at = args.length // 2
    rows = {name: {"false": 0, "early": 0, "delays": [], "missed": 0} for name in ("monitor", "fixed")}
    started = time.perf_counter()
    for _ in range(args.streams):
        null = (rng.random(args.length) < args.quality).astype(float)
        drop = np.concatenate([rng.random(drop_at) < args.quality,
                               rng.random(args.length - drop_at) < args.dropped]).astype(float)
        for name, first in (("monitor", lambda v: first_monitor_alarm(v, spec)),
                            ("fixed", lambda v: first_fixed_alarm(v, args.floor, args.window, args.min_n))):
            rows[name]["false"] += first(null) is not None
            found = first(drop)
            if found is None:
                rows[name]["missed"] += 1
            elif found < drop_at:
                rows[name]["early"] += 1
            else:
                rows[name]["delays"].append(found - drop_at)
    elapsed = time.perf_counter() - started
    print(f"{args.streams} streams of {args.length} values, window {args.window}, floor {args.floor}, "
          f"quality {args.quality} -> {args.dropped} at value {drop_at}, confidence {args.confidence}")
    print(f"{'check':<34} {'false alarm rate':>16} {'before the drop':>15} {'median delay':>13} {'p90 delay':>10} "
          f"{'missed':>7}")
    for name, label in (("monitor", "anytime-valid monitor (evalcore)"), ("fixed", "fixed threshold, every value")):
        r = rows[name]
        delays = np.array(r["delays"]) if r["delays"] else np.array([np.nan])
        print(f"{label:<34} {r['false'] / args.streams:>16.3f} {r['early'] / args.streams:>15.3f} "
              f"{np.median(delays):>13.0f} "
              f"{np.percentile(delays, 90):>10.0f} {r['missed']:>7d}")
    print(f"({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
