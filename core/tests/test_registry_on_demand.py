"""With a valid listing cache, resolving a metric id loads only the plugin that provides it.

Each check runs a fresh interpreter (the same folder and ``sys.path`` each time, so the runs share
one cache file) over the installed plugins plus two toy plugins in ``site``: ``toy`` (package
``toy_pkg``) and ``other`` (package ``other_pkg``). A run with ``EVALCORE_NO_LIST_CACHE=1`` loads
every plugin, as before the cache existed; the results must be the same.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

DATA = pathlib.Path(__file__).resolve().parents[2] / "examples" / "rag.jsonl"

CHILD = """
import json, sys, evalcore
from evalcore._registry.registry import Registry
mode, argument = sys.argv[1:3]
out = {}
try:
    if mode == "list":
        evalcore.list_metrics()
    elif mode == "evaluate":
        out["metrics"] = evalcore.evaluate(DATA, [argument]).to_dict()["metrics"]
    elif mode == "describe":
        out["info"] = evalcore.describe(argument).to_dict()
    elif mode == "expand":
        out["ids"] = evalcore.expand_metrics([argument])
    elif mode == "readers":
        out["readers"] = [[r.namespace, r.name] for r in Registry().readers()]
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
out["plugins"] = sorted({m.split(".")[0] for m in sys.modules
                         if m.startswith(("evalcore_", "toy_pkg", "other_pkg"))})
out["pydantic"] = "pydantic" in sys.modules
print(json.dumps(out))
""".replace("DATA", repr(str(DATA)))


@pytest.fixture
def child(site: pathlib.Path, tmp_path: pathlib.Path, make_distribution, toy_plugin):
    """Run :data:`CHILD` (``mode``, ``argument``) in a fresh interpreter that also discovers the toy
    plugins; ``cache=False`` sets ``EVALCORE_NO_LIST_CACHE``. Returns what it printed, read as JSON."""
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    make_distribution("evalcore-other", plugins={"other": "other_pkg._register"},
                      modules=toy_plugin("other_pkg", name="other_overlap"))

    def command(args: list[str], *, cache: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        environment = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": "",
                       "EVALCORE_NO_LIST_CACHE": "" if cache else "1", **env}
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=environment, timeout=120)

    def run(mode: str, argument: str = "", *, cache: bool = True, **env: str) -> dict:
        proc = command(["-c", CHILD, mode, argument], cache=cache, **env)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    run("list")  # writes the listing cache
    run.command = command  # type: ignore[attr-defined]
    return run


def _installed(package: str) -> None:
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")


@pytest.mark.parametrize("metric_id", ["toy/overlap@2", "overlap"])
def test_evaluating_a_toy_metric_loads_its_plugin_alone(child, metric_id):
    warm = child("evaluate", metric_id)
    assert warm["plugins"] == ["toy_pkg"]
    full = child("evaluate", metric_id, cache=False)
    assert "other_pkg" in full["plugins"]
    assert warm["metrics"] == full["metrics"] and "error" not in warm


def test_evaluating_an_overlap_metric_imports_no_other_plugin(child):
    _installed("evalcore_overlap")
    warm = child("evaluate", "overlap/exact_match")
    # evalcore-text is the overlap family's library (its normalisation), not another plugin
    assert warm["plugins"] == ["evalcore_overlap", "evalcore_text"]
    assert not warm["pydantic"]  # specs need no validation models
    full = child("evaluate", "overlap/exact_match", cache=False)
    assert warm["metrics"] == full["metrics"] and "error" not in warm


def test_a_metric_that_wraps_another_loads_both_plugins_only(child):
    _installed("evalcore_robustness")
    _installed("evalcore_overlap")
    metric_id = "robustness/noise_robustness(metric='overlap/token_f1')"
    warm = child("evaluate", metric_id)
    assert warm["plugins"] == ["evalcore_overlap", "evalcore_robustness", "evalcore_text"]
    assert warm["metrics"] == child("evaluate", metric_id, cache=False)["metrics"]


@pytest.mark.parametrize("metric_id", ["toy/overlapp", "tyo/overlap", "toy/OVERLAP", "ovrlap@3", "toy/overlap(k=0)"])
def test_a_misspelled_or_invalid_id_gets_the_same_answer_as_a_full_load(child, metric_id):
    warm, full = child("describe", metric_id), child("describe", metric_id, cache=False)
    assert (warm.get("error"), warm.get("info")) == (full.get("error"), full.get("info"))


def test_describe_of_a_known_id_equals_a_full_load(child):
    warm = child("describe", "toy/overlap@2")
    assert warm["plugins"] == ["toy_pkg"]
    assert warm["info"] == child("describe", "toy/overlap@2", cache=False)["info"]


def test_two_plugins_with_one_metric_name_need_the_full_load(child, make_distribution, toy_plugin):
    # a third plugin also names a metric "overlap": the bare name is ambiguous, so every plugin
    # loads (after the cache is made again: a new distribution makes it stale)
    make_distribution("evalcore-third", plugins={"third": "third_pkg._register"}, modules=toy_plugin("third_pkg"))
    child("list")
    warm, full = child("describe", "overlap"), child("describe", "overlap", cache=False)
    assert "other_pkg" in warm["plugins"]
    assert warm["error"] == full["error"] and warm["error"].startswith("AmbiguousMetricError")


def test_metric_sets_and_readers_load_only_the_plugins_that_provide_them(child):
    _installed("evalcore_retrieval")
    warm, full = child("expand", "all_trec"), child("expand", "all_trec", cache=False)
    assert warm["ids"] == full["ids"] and len(warm["ids"]) > 1
    assert warm["plugins"] == ["evalcore_retrieval"]
    not_a_set = child("expand", "toy/overlap")
    assert (not_a_set["ids"], not_a_set["plugins"]) == (["toy/overlap"], [])
    warm, full = child("readers"), child("readers", cache=False)
    assert warm["readers"] == full["readers"] and warm["readers"]
    assert warm["plugins"] == []  # the cached listing holds the readers' fields


def test_an_evaluation_that_missed_the_cache_writes_it_for_the_next(child, tmp_path: pathlib.Path):
    fresh = str(tmp_path / "fresh-cache")
    first = child("evaluate", "toy/overlap@2", EVALCORE_CACHE_DIR=fresh)
    assert "other_pkg" in first["plugins"]  # no listing yet: every plugin loads
    assert list((tmp_path / "fresh-cache" / "listing").glob("*.json"))
    second = child("evaluate", "toy/overlap@2", EVALCORE_CACHE_DIR=fresh)
    assert second["plugins"] == ["toy_pkg"] and second["metrics"] == first["metrics"]


def test_the_command_adds_reader_options_without_loading_a_plugin(child, tmp_path: pathlib.Path):
    """``evalcore evaluate`` lists every reader's options (``--qrels``) from the cached listing; only
    the metric's plugin and the used reader's implementation are imported."""
    _installed("evalcore_retrieval")
    script = ("import sys\nfrom evalcore._cli.main import main\ntry:\n    main()\nfinally:\n"
              "    print(sorted({m.split('.')[0] for m in sys.modules if m.startswith(('evalcore_', 'toy_pkg'))}),"
              " file=sys.stderr)\n")
    child.command(["-c", script, "list"])
    proc = child.command(["-c", script, "evaluate", str(DATA), "-m", "toy/overlap@2", "--no-progress",
                          "-o", str(tmp_path / "toy.json")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "['toy_pkg']"
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    proc = child.command(["-c", script, "evaluate", "--qrels", str(qrels), "--run", str(run),
                          "-m", "retrieval/mrr", "--no-progress", "-o", str(tmp_path / "trec.json")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "['evalcore_retrieval']"
    # d1, the one relevant document, is ranked second: reciprocal rank 1/2 (trec_eval's recip_rank)
    assert json.loads((tmp_path / "trec.json").read_text())["metrics"]["retrieval/mrr"]["value"] == 0.5


def test_a_stale_cache_falls_back_to_loading_every_plugin(child, site: pathlib.Path):
    registration = site / "other_pkg" / "_register.py"
    registration.write_text(registration.read_text().replace('"other_overlap"', '"renamed"'))
    found = child("evaluate", "other/renamed@2")  # the cached listing knows no such metric
    assert "error" not in found and "toy_pkg" in found["plugins"]
    assert found["metrics"] == child("evaluate", "other/renamed@2", cache=False)["metrics"]


def test_strict_mode_loads_every_plugin(child):
    found = child("evaluate", "toy/overlap", EVALCORE_STRICT_PLUGINS="1")
    assert "other_pkg" in found["plugins"] and "error" not in found


def test_the_command_prints_the_same_with_and_without_the_cache(child, tmp_path: pathlib.Path):
    child.command(["-m", "evalcore", "list"])  # the command's own cache file (its sys.path differs)
    for args in (["describe", "toy/overlap@2"], ["evaluate", str(DATA), "-m", "toy/overlapp", "--no-progress"]):
        warm, full = child.command(["-m", "evalcore", *args]), child.command(["-m", "evalcore", *args], cache=False)
        assert (warm.returncode, warm.stdout, warm.stderr) == (full.returncode, full.stdout, full.stderr)
    assert "did you mean 'toy/overlap'" in warm.stderr
    runs = []
    for cache in (True, False):
        output = tmp_path / f"result-{cache}.json"
        proc = child.command(["-m", "evalcore", "evaluate", str(DATA), "-m", "toy/overlap@2", "--no-progress",
                              "-o", str(output)], cache=cache)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(output.read_text())["metrics"])
    assert runs[0] == runs[1]
