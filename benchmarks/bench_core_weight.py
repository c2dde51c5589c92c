"""What ``evalcore-core`` alone weighs: its installed size and the time of ``import evalcore`` plus one
``evaluate``, against an earlier commit of the core, printed as ratios.

Standalone: ``python benchmarks/bench_core_weight.py [--before REF] [--repeats 11]``. Two fresh
virtual environments are made in a temporary folder: one with the core of ``REF`` (default
``49581fb``, the core before its optional parts became extensions) and one with the core of this
tree, each with ``pip install CORE`` alone (its own dependencies, nothing else), plus
evalcore-overlap for the evaluation. Then:

* **installed size**: the bytes under each environment's ``site-packages`` that ``pip install CORE``
  added to a bare environment (pip and setuptools not counted), and the number of distributions;
* **start-up**: fresh processes, interleaved, each running ``import evalcore;
  evalcore.evaluate(examples/rag.jsonl, ["overlap/exact_match"])`` (12 records, one cheap metric,
  the listing cache warm), the least and the median wall time of each.

The TREC command-line ratio against pytrec_eval is ``bench_retrieval.py``'s ``command line`` row.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag.jsonl"
EVALUATE = ("import evalcore; evalcore.evaluate({path!r}, ['overlap/exact_match'], progress=False, "
            "output={out!r}, overwrite=True)")


def make_env(folder: Path, core: Path) -> tuple[Path, int, int]:
    """A virtual environment with ``core`` and evalcore-overlap; its python, the bytes and the number of
    distributions ``pip install core`` added."""
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    site = next((folder / "lib").glob("python*/site-packages"))
    bare = _tree_size(site), len(list(site.glob("*.dist-info")))
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(core)], check=True)
    added = _tree_size(site) - bare[0], len(list(site.glob("*.dist-info"))) - bare[1]
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", str(ROOT / "plugins" / "overlap")],
                   check=True)
    return python, *added


def _tree_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def export_core(ref: str, folder: Path) -> Path:
    """The ``core/`` folder of commit ``ref``, written to ``folder``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "core"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "core"


def time_once(python: Path, cache: Path, out: Path) -> float:
    env = {**os.environ, "EVALCORE_CACHE_DIR": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    subprocess.run([python, "-c", EVALUATE.format(path=str(EXAMPLE), out=str(out))], check=True, env=env,
                   capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="49581fb", help="the commit whose core is compared (default 49581fb)")
    parser.add_argument("--repeats", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalcore-weight-") as scratch:
        scratch_path = Path(scratch)
        (scratch_path / "src").mkdir()
        cores = {f"core at {args.before}": export_core(args.before, scratch_path / "src"), "core now": ROOT / "core"}
        envs = {}
        for label, core in cores.items():
            envs[label] = make_env(scratch_path / label.replace(" ", "-"), core)
            print(f"{label}: installed {envs[label][1] / 2**20:.1f} MiB in {envs[label][2]} distributions")
        before, now = (envs[label][1] for label in cores)
        print(f"installed size: now {now / 2**20:.1f} MiB = {now / before:.2f}x the core at {args.before}")
        times: dict[str, list[float]] = {label: [] for label in envs}
        for label, (python, _, _) in envs.items():  # a first run warms the listing cache and the bytecode
            time_once(python, scratch_path / f"cache-{label}", scratch_path / "result.json")
        for _ in range(args.repeats):
            for label, (python, _, _) in envs.items():  # interleaved: load on the machine hits both alike
                times[label].append(time_once(python, scratch_path / f"cache-{label}", scratch_path / "result.json"))
        print(f"\nimport evalcore + evaluate (12 records, 1 metric), {args.repeats} fresh processes each:")
        for label, seconds in times.items():
            least, median = min(seconds) * 1000, statistics.median(seconds) * 1000
            print(f"  {label:<24} least {least:6.0f} ms   median {median:6.0f} ms")
        first, second = times.values()
        print(f"  ratio (before / now): least {min(first) / min(second):.2f}x, "
              f"median {statistics.median(first) / statistics.median(second):.2f}x")


if __name__ == "__main__":
    sys.exit(main())
