"""Helpers for the cross-package tests: run Python and the CLI in a fresh interpreter."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

collect_ignore = ["fixtures"]  # third parties' distributions: their tests run where a test installs them


@pytest.fixture(scope="session")
def install_fixture(tmp_path_factory: pytest.TempPathFactory):
    """Install the distribution ``tests/fixtures/NAME`` into a folder of its own, as a third party's
    package is installed; returns the environment that puts it on the path, ``{"PYTHONPATH": folder}``."""

    def install(name: str) -> dict[str, str]:
        target = tmp_path_factory.mktemp("site")
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
             "--target", str(target), str(ROOT / "tests" / "fixtures" / name)],
            check=True, capture_output=True, text=True, timeout=300,
        )
        return {"PYTHONPATH": str(target)}

    return install


@pytest.fixture
def root() -> pathlib.Path:
    """The repository root."""
    return ROOT


@pytest.fixture
def shared() -> pathlib.Path:
    """The shared reference data beside the repository (skips the test when absent)."""
    if not SHARED.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED}")
    return SHARED


@pytest.fixture
def run_python():
    """Run code in a fresh interpreter; returns the completed process."""

    def run(code: str, *, env: dict[str, str] | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})

    return run


@pytest.fixture
def evalcore_cli(tmp_path):
    """Run ``evalcore ARGS`` (as ``python -m evalcore``) and return the completed process."""

    def run(*args: str, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "evalcore", *args], capture_output=True, text=True,
                              timeout=timeout, cwd=tmp_path, env={**os.environ, **(env or {})})

    return run


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches (the listing of ``evalcore list``, model answers) go to a fresh folder, not the user's."""
    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
