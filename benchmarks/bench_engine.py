"""Evaluator overhead against a plain loop, and peak memory, at 10k / 100k / 1M records.

Standalone: ``python benchmarks/bench_engine.py [--sizes 10000 100000 1000000] [--repeats 3]``.
Each configuration runs in its own subprocess (so peak RSS is its own), the runs of one
size are interleaved, and the table shows the min and median wall time of each, the min
and median CPU time (user + system of the child: steadier than wall time on a busy
machine), and the ratios of the minimums to the plain loop's: ``json.loads`` on each
line, then the same metric's ``score`` on the parsed example and prediction, summed — the
least any evaluator must do — and the loop a user writes by hand with DSPy's normalisation
(``json.loads``, DSPy's ``normalize_text`` and ``EM`` or ``F1`` inline; no evalcore). Every process
pays its own start-up (imports, the registry). Each metric of ``--metrics`` gets its own table,
with the ratios of evalcore's times to the DSPy-style loop's and a check that every runner's mean
value is the same.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

METRICS = ("overlap/exact_match", "overlap/token_f1")
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
from collections import Counter
# DSPy's normalize_text, EM and F1 (dspy/evaluate/metrics.py), inline: the loop a user writes by hand
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
def f1_score(prediction, ground_truth):
    prediction_tokens = normalize_text(prediction).split()
    ground_truth_tokens = normalize_text(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)
def f1(prediction, answers):
    return max(f1_score(prediction, a) for a in answers)
compare = {"overlap/exact_match": em, "overlap/token_f1": f1}[sys.argv[2]]
total = n = 0
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        record = json.loads(line)
        ref = record["example"]["reference_answer"]
        total += compare(record["prediction"]["response"], ref if isinstance(ref, list) else [ref])
        n += 1
print(total / n)
"""

CLI_VALUE = """
import json, sys
print(json.load(open(sys.argv[1], encoding="utf-8"))["metrics"][sys.argv[2]]["value"])
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


def commands(path: Path, metric: str) -> dict[str, list[str]]:
    py = [sys.executable, "-c", WRAP]
    return {
        "plain loop": [*py, "-c", PLAIN, str(path), metric],
        "DSPy-style loop": [*py, "-c", DSPY_LOOP, str(path), metric],
        "evalcore.evaluate": [*py, "-c", PYTHON_API, str(path), metric],
        "evalcore CLI": [*py, "evalcore", "evaluate", str(path), "-m", metric, "--no-progress", "--overwrite",
                         "--samples", f"{path}.rows.jsonl", "-o", f"{path}.result.json"],
    }


def cli_value(path: Path, metric: str) -> str:
    """The value the CLI wrote to its JSON report."""
    return subprocess.run([sys.executable, "-c", CLI_VALUE, f"{path}.result.json", metric],
                          capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--metrics", nargs="+", default=list(METRICS), choices=METRICS)
    args = parser.parse_args()
    print(f"min / median of {args.repeats} interleaved runs; ratios of the minimums to the plain loop's "
          "and to the DSPy-style loop's; peak RSS of the largest run")
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = Path(folder) / f"records-{size}.jsonl"
            make_records(path, size)
            for metric in args.metrics:
                bench(path, size, metric, args.repeats)
            print(f"{'':>9}  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def bench(path: Path, size: int, metric: str, repeats: int) -> None:
    """One table: every runner ``repeats`` times, interleaved; the equality of their values checked."""
    cmds = commands(path, metric)
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    cpus: dict[str, list[float]] = {name: [] for name in cmds}
    peaks: dict[str, float] = {}
    values: dict[str, str] = {}
    for _ in range(repeats):
        for name, command in cmds.items():
            wall, cpu, peak, last = run(command)
            walls[name].append(wall)
            cpus[name].append(cpu)
            peaks[name] = max(peaks.get(name, 0.0), peak)
            values[name] = cli_value(path, metric) if name == "evalcore CLI" else last
    print(f"\n{metric}, {size} records")
    print(f"{'records':>9}  {'runner':<18} {'wall min':>8} {'median':>7} {'/plain':>6} {'/DSPy':>6}  "
          f"{'cpu min':>8} {'median':>7} {'/plain':>6} {'/DSPy':>6}  {'peak MB':>7}")
    wall_base, cpu_base = min(walls["plain loop"]), min(cpus["plain loop"])
    wall_dspy, cpu_dspy = min(walls["DSPy-style loop"]), min(cpus["DSPy-style loop"])
    for name in cmds:
        print(f"{size:>9}  {name:<18} {min(walls[name]):>8.2f} {statistics.median(walls[name]):>7.2f} "
              f"{min(walls[name]) / wall_base:>6.2f} {min(walls[name]) / wall_dspy:>6.2f}  {min(cpus[name]):>8.2f} "
              f"{statistics.median(cpus[name]):>7.2f} {min(cpus[name]) / cpu_base:>6.2f} "
              f"{min(cpus[name]) / cpu_dspy:>6.2f}  {peaks[name]:>7.0f}")
    for name in ("evalcore.evaluate", "evalcore CLI"):
        print(f"{'':>9}  {name} speed against the DSPy-style loop: wall {wall_dspy / min(walls[name]):.2f}x, "
              f"cpu {cpu_dspy / min(cpus[name]):.2f}x (target >= 1x)")
    same = len({round(float(v), 9) for v in values.values()}) == 1
    print(f"{'':>9}  values: {', '.join(f'{name} {value}' for name, value in values.items())} "
          f"-> {'identical' if same else 'DIFFERENT'}")
    assert same, f"{metric}: the runners' values differ"


if __name__ == "__main__":
    main()
