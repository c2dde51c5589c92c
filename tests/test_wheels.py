"""The packages install for real: wheels built, installed from a folder that holds only them and their
dependencies (no index), into fresh environments."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tomllib

import pytest

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAMILIES = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
EXTENSIONS = sorted(p.parent for p in ROOT.glob("extensions/*/pyproject.toml"))
PACKAGES = [ROOT / "core", *FAMILIES, *EXTENSIONS]
PLUGINS = [name for package in PACKAGES[1:]
           for name in tomllib.loads((package / "pyproject.toml").read_text())["project"]
           .get("entry-points", {}).get("evalcore.plugins", {})]
"""The namespaces of the plugins: each metric family's and each extension's that registers one."""


def _run(*args: str | os.PathLike, env: dict[str, str] | None = None, timeout: int = 900) -> str:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


def _isolated_env() -> dict[str, str]:
    """The environment without pip settings, so the folder given is the only source of packages."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> pathlib.Path:
    """Every package's wheel and the wheels of all their (base and ``all``) dependencies."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", folder, *PACKAGES)
    return folder


def _fresh_venv(path: pathlib.Path) -> pathlib.Path:
    _run(sys.executable, "-m", "venv", path)
    return path / "bin"


def _install(bin_dir: pathlib.Path, wheelhouse: pathlib.Path, *requirements: str) -> None:
    _run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-index", "--find-links", wheelhouse,
         *requirements, env=_isolated_env())


def test_every_wheel_is_built(wheelhouse):
    names = {w.name.split("-")[0] for w in wheelhouse.glob("*.whl")}
    assert {"evalcore_core", *(f"evalcore_{package.name}" for package in PACKAGES[1:])} <= names
    assert "evalcore" not in names  # the unrelated project of that name is never pulled


def test_core_all_extra_installs_every_family_and_lists_them(wheelhouse, tmp_path):
    bin_dir = _fresh_venv(tmp_path / "venv")
    _install(bin_dir, wheelhouse, "evalcore-core[all]")
    plugins = json.loads(_run(bin_dir / "evalcore", "plugins", "--json", env=_isolated_env()))
    assert sorted(p["name"] for p in plugins) == sorted(PLUGINS)
    assert all(p["status"] == "loaded" for p in plugins), plugins
    listed = json.loads(_run(bin_dir / "evalcore", "--strict", "list", "--json", env=_isolated_env()))
    assert {m["namespace"] for m in listed} == {p.name for p in FAMILIES}  # the extensions add no metrics
    assert "retrieval/ndcg " in _run(bin_dir / "evalcore", "list", "--family", "retrieval", env=_isolated_env())


def test_the_retrieval_wheel_alone_pulls_evalcore_core(wheelhouse, tmp_path):
    bin_dir = _fresh_venv(tmp_path / "venv")
    _install(bin_dir, wheelhouse, "evalcore-retrieval")
    installed = {line.split("==")[0].lower() for line in
                 _run(bin_dir / "python", "-m", "pip", "freeze", env=_isolated_env()).split()}
    assert {"evalcore-core", "evalcore-retrieval"} <= installed
    assert "evalcore" not in installed
    listed = json.loads(_run(bin_dir / "evalcore", "list", "--json", env=_isolated_env()))
    assert {m["namespace"] for m in listed} == {"retrieval"}
