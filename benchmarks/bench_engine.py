"""Evaluator overhead against a plain loop, and peak memory, at 10k / 100k / 1M records.

Standalone: ``python benchmarks/bench_engine.py [--sizes 10000 100000 1000000] [--repeats 3]``.
Each configuration runs in its own subprocess (so peak RSS is its own), the runs of one
size are interleaved, and the table shows the min and median wall time of each, the min
and median CPU time (user + system of the child: steadier than wall time on a busy
machine), and the ratios of the minimums to the plain loop's: ``json.loads`` on each
line, then the same metric's ``score`` on the parsed example and prediction, summed — the
least any evaluator must do — and the loop a user writes by hand with DSPy's normalisation
(``json.loads``, DSPy's ``normalize_text`` and ``EM`` inline; no evalcore). Every process pays
its own start-up (imports, the registry).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

METRIC = "overlap/exact_match"
WORDS = "the a of paris london berlin capital city river france germany england is was big small".split()


def make_records(path: Path, n: int, seed: int = 7) -> None:
    """JSONL records with a query, a reference answer and a response (half of them exact)."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            answer = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
            response = answer if rng.random() < 0.5 else " ".join(rng.choice(WORDS) for _ in range(5))
            record = {"id": f"r{i}", "example": {"query": f"question {i} " + " ".join(rng.sample(WORDS, 6)),
                                                 "reference_answer": answer},
                      "prediction": {"response": response.capitalize() + "."}}
            handle.write(json.dumps(record) + "\n")


PLAIN = """
import json, sys, evalcore
metric = evalcore.get_metric(sys.argv[2])
total = n = 0
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        total += metric.score(record["example"], record["prediction"]).value
        n += 1
print(total / n)
"""

DSPY_LOOP = """
import json, re, string, sys, unicodedata
# DSPy's normalize_text and EM (dspy/evaluate/metrics.py), inline: the loop a user writes by hand
def normalize_text(s):
    s = unicodedata.normalize("NFD", s)
    def remove_articles(text): return re.sub(r"\\b(a|an|the)\\b", " ", text)
    def white_space_fix(text): return " ".join(text.split())
    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)
    return white_space_fix(remove_articles(remove_punc(s.lower())))
def em(prediction, answers):
    return max(float(normalize_text(prediction) == normalize_text(a)) for a in answers)
total = n = 0
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        ref = record["example"]["reference_answer"]
        total += em(record["prediction"]["response"], ref if isinstance(ref, list) else [ref])
        n += 1
print(total / n)
"""

PYTHON_API = """
import sys, evalcore
result = evalcore.evaluate(sys.argv[1], [sys.argv[2]], progress=False)
print(result.metrics[sys.argv[2]].value)
"""


def run(command: list[str]) -> tuple[float, float, float, str]:
    """Wall and CPU seconds, peak RSS (MB) of the child (it reports its own), and its last output line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, _peak_of(proc.stderr), proc.stdout.strip().splitlines()[-1]


WRAP = """
import resource, runpy, sys
sys.argv = sys.argv[1:]
try:
    if sys.argv[0] == "-c":
        code = sys.argv[1]; sys.argv = ["-c", *sys.argv[2:]]
        exec(compile(code, "<bench>", "exec"), {"__name__": "__main__"})
    else:
        runpy.run_module(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
finally:
    sys.stderr.write(f"\\nPEAK_RSS_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n")
"""


def _peak_of(stderr: str) -> float:
    for line in reversed(stderr.splitlines()):
        if line.startswith("PEAK_RSS_KB"):
            return int(line.split()[1]) / 1024
    return float("nan")


def commands(path: Path) -> dict[str, list[str]]:
    py = [sys.executable, "-c", WRAP]
    return {
        "plain loop": [*py, "-c", PLAIN, str(path), METRIC],
        "DSPy-style loop": [*py, "-c", DSPY_LOOP, str(path)],
        "evalcore.evaluate": [*py, "-c", PYTHON_API, str(path), METRIC],
        "evalcore CLI": [*py, "evalcore", "evaluate", str(path), "-m", METRIC, "--no-progress",
                         "--samples", f"{path}.rows.jsonl"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"metric {METRIC}; min / median of {args.repeats} interleaved runs; ratios of the minimums; "
          "peak RSS of the largest run")
    print(f"{'records':>9}  {'runner':<18} {'wall min':>8} {'median':>7} {'ratio':>6}  "
          f"{'cpu min':>8} {'median':>7} {'ratio':>6}  {'peak MB':>7}")
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = Path(folder) / f"records-{size}.jsonl"
            make_records(path, size)
            cmds = commands(path)
            walls: dict[str, list[float]] = {name: [] for name in cmds}
            cpus: dict[str, list[float]] = {name: [] for name in cmds}
            peaks: dict[str, float] = {}
            values: dict[str, str] = {}
            for _ in range(args.repeats):
                for name, command in cmds.items():
                    wall, cpu, peak, last = run(command)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    peaks[name] = max(peaks.get(name, 0.0), peak)
                    values[name] = last
            wall_base, cpu_base = min(walls["plain loop"]), min(cpus["plain loop"])
            for name in cmds:
                print(f"{size:>9}  {name:<18} {min(walls[name]):>8.2f} {statistics.median(walls[name]):>7.2f} "
                      f"{min(walls[name]) / wall_base:>6.2f}  {min(cpus[name]):>8.2f} "
                      f"{statistics.median(cpus[name]):>7.2f} {min(cpus[name]) / cpu_base:>6.2f}  {peaks[name]:>7.0f}")
            print(f"{'':>9}  values: plain {values['plain loop']}, DSPy-style {values['DSPy-style loop']}, "
                  f"evaluate {values['evalcore.evaluate']}")


if __name__ == "__main__":
    main()
