"""``list_metrics()`` reads the listing cache: a fresh process lists every metric without importing
pydantic, pyarrow, asyncio or a plugin, and gets what loading every plugin gives.

Each check runs ``python -c`` in a fresh process (the same folder and ``sys.path`` each time, so
the runs share one cache file) over the installed plugins (if any) plus a toy plugin in ``site``.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

HEAVY = ("pydantic", "pyarrow", "asyncio", "attr", "importlib.metadata", "toy_pkg")

LIST = ("import json, sys, evalcore\n"
        "infos = evalcore.list_metrics()\n"
        "print(json.dumps({'keys': [i.key for i in infos], 'modules': sorted(sys.modules)}))\n")


@pytest.fixture
def child(site: pathlib.Path, tmp_path: pathlib.Path):
    """Run ``code`` in a fresh interpreter that also discovers the distributions in ``site``;
    returns what it printed, read as JSON."""

    def run(code: str, **env: str) -> dict:
        environment = {**os.environ, "PYTHONPATH": str(site), "EVALCORE_STRICT_PLUGINS": "",
                       "EVALCORE_NO_LIST_CACHE": "", **env}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                              env=environment, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    return run


@pytest.fixture
def toy(make_distribution, toy_plugin):
    """Install the toy plugin ``toy/overlap`` (its package is ``toy_pkg``)."""
    return make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))


def test_a_warm_cache_lists_every_metric_without_pydantic_pyarrow_asyncio_or_a_plugin(child, toy):
    cold = child(LIST)
    assert "importlib.metadata" in cold["modules"] and "toy_pkg" in cold["modules"]  # no cache: every plugin loaded
    warm = child(LIST)
    assert warm["keys"] == cold["keys"] and "toy/overlap" in warm["keys"]
    assert [m for m in HEAVY if m in warm["modules"]] == []
    assert not [m for m in warm["modules"] if m.startswith("evalcore_")]


def test_the_cached_metrics_equal_those_of_a_full_load(child, toy):
    child(LIST)
    found = child(
        "import json, sys, evalcore\n"
        "cached, toys = evalcore.list_metrics(), evalcore.list_metrics('toy')\n"
        "assert 'pydantic' not in sys.modules\n"
        "shown = {'dicts': [i.to_dict() for i in cached], 'ids': [i.default_id for i in cached],\n"
        "         'toys': [i.key for i in toys]}\n"
        "from evalcore._registry.registry import Registry\n"
        "full = Registry().metrics()\n"
        "print(json.dumps({**shown, 'same': cached == full,\n"
        "                  'types': {type(i).__name__ for i in cached} == {'MetricInfo'},\n"
        "                  'reprs': [repr(i) for i in cached] == [repr(i) for i in full],\n"
        "                  'origins': [i.origin for i in cached] == [i.origin for i in full],\n"
        "                  'specs': [i.spec for i in cached] == [i.spec for i in full],\n"
        "                  'factories': [i.factory for i in cached] == [i.factory for i in full]}))\n")
    assert all(found[check] for check in ("same", "types", "reprs", "origins", "specs", "factories"))
    loaded = child("import json, evalcore\ninfos = evalcore.list_metrics()\n"
                   "print(json.dumps({'dicts': [i.to_dict() for i in infos], 'ids': [i.default_id for i in infos],\n"
                   "                  'toys': [i.key for i in evalcore.list_metrics('toy')]}))\n",
                   EVALCORE_NO_LIST_CACHE="1")
    assert {k: found[k] for k in ("dicts", "ids", "toys")} == loaded
    assert found["toys"] == ["toy/overlap"]


def test_a_stale_cache_loads_every_plugin_and_is_written_again(child, toy, make_distribution, toy_plugin):
    child(LIST)
    make_distribution("evalcore-other", plugins={"other": "other_pkg._register"}, modules=toy_plugin("other_pkg"))
    stale = child(LIST)
    assert "other/overlap" in stale["keys"] and "toy_pkg" in stale["modules"] and "other_pkg" in stale["modules"]
    again = child(LIST)
    assert again["keys"] == stale["keys"] and "toy_pkg" not in again["modules"] and "pydantic" not in again["modules"]


@pytest.mark.parametrize("switch", ["EVALCORE_NO_LIST_CACHE", "EVALCORE_STRICT_PLUGINS"])
def test_the_cache_switches_and_strict_mode_load_every_plugin(child, toy, switch):
    child(LIST)
    assert "toy_pkg" in child(LIST, **{switch: "1"})["modules"]


def test_a_metric_registered_in_the_process_is_listed_after_a_cached_listing(child, toy):
    child(LIST)
    found = child("import json, evalcore\nbefore = [i.key for i in evalcore.list_metrics()]\n"
                  "evalcore.register_metric('my_len', lambda gold, pred, trace=None: float(len(pred.response)))\n"
                  "print(json.dumps([before, [i.key for i in evalcore.list_metrics()]]))\n")
    before, after = found
    assert "local/my_len" not in before and sorted(after) == sorted([*before, "local/my_len"])


def test_a_cached_info_is_a_frozen_value_that_pickles_as_the_registry_s_own(child, toy):
    child(LIST)  # the cache is written
    found = child(
        "import json, pickle, evalcore\n"
        "from evalcore._registry.registry import default_registry, default_registry_loaded\n"
        "[cached] = evalcore.list_metrics('toy')\n"
        "from_cache = not default_registry_loaded()\n"
        "try:\n"
        "    cached.factory = print\n"
        "    frozen = False\n"
        "except AttributeError:\n"
        "    frozen = True\n"
        "copy = pickle.loads(pickle.dumps(cached))\n"
        "[loaded] = default_registry().metrics('toy')\n"
        "print(json.dumps({'from_cache': from_cache, 'frozen': frozen, 'equal': copy == cached == loaded,\n"
        "                  'dicts': copy.to_dict() == cached.to_dict() == loaded.to_dict()}))\n")
    assert found == {"from_cache": True, "frozen": True, "equal": True, "dicts": True}


BLAS_THREADS = ("import contextlib, io, json, sys, threadpoolctl\n"
                "if sys.argv[1:] == ['command']:\n"
                "    from evalcore._cli.main import main\n"
                "    with contextlib.redirect_stdout(io.StringIO()):\n"
                "        main(['plugins'], standalone_mode=False)\n"
                "import numpy\n"
                "print(json.dumps([p['num_threads'] for p in threadpoolctl.threadpool_info()"
                " if p['internal_api'] == 'openblas']))\n")


def test_the_command_runs_numpy_on_one_blas_thread_unless_told_otherwise(child):
    """A command's arrays are small: OpenBLAS's thread pool would only spin a core at start-up."""
    pytest.importorskip("threadpoolctl")
    alone = child(BLAS_THREADS.replace("sys.argv[1:]", "[]"))
    if not alone:
        pytest.skip("numpy does not use OpenBLAS here")
    assert child(BLAS_THREADS.replace("sys.argv[1:]", "['command']")) == [1]
    assert child(BLAS_THREADS.replace("sys.argv[1:]", "['command']"), OPENBLAS_NUM_THREADS="2") == [2]
