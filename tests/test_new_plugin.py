"""`evalcore new-plugin NAME` gives a package that builds, installs, is listed and passes its own tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def test_a_scaffolded_plugin_builds_installs_is_listed_and_passes_its_tests(tmp_path, evalcore_cli):
    created = evalcore_cli("new-plugin", "acme_x", "--dir", str(tmp_path))
    assert created.returncode == 0, created.stderr
    package = tmp_path / "evalcore-acme-x"
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(package)], check=True, capture_output=True, text=True, timeout=600)
    env = {"PYTHONPATH": str(site)}
    listed = json.loads(evalcore_cli("--strict", "list", "--family", "acme_x", "--json", env=env).stdout)
    assert [(m["id"], m["distribution"], m["version"]) for m in listed] == [
        ("acme_x/mean_words", "evalcore-acme-x", "0.1.0"), ("acme_x/word_overlap@10", "evalcore-acme-x", "0.1.0")]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=package, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "failed" not in proc.stdout and " passed" in proc.stdout


def test_new_plugin_refuses_a_bad_name_and_an_existing_folder(tmp_path, evalcore_cli):
    bad = evalcore_cli("new-plugin", "Acme-X", "--dir", str(tmp_path))
    assert bad.returncode == 2 and "'Acme-X' cannot be a namespace" in bad.stderr
    assert evalcore_cli("new-plugin", "acme", "--dir", str(tmp_path)).returncode == 0
    again = evalcore_cli("new-plugin", "acme", "--dir", str(tmp_path))
    assert again.returncode == 2 and "already exists" in again.stderr


@pytest.mark.parametrize("kind", ["executor", "tracker", "command"])
def test_a_scaffolded_component_plugin_builds_installs_and_passes_the_kit(kind, tmp_path, evalcore_cli):
    created = evalcore_cli("new-plugin", f"acme-{kind}", "--kind", kind, "--dir", str(tmp_path))
    assert created.returncode == 0, created.stderr
    package = tmp_path / f"evalcore-acme-{kind}"
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(package)], check=True, capture_output=True, text=True, timeout=600)
    env = {"PYTHONPATH": str(site)}
    plugins = {p["name"]: p for p in json.loads(evalcore_cli("--strict", "plugins", "--json", env=env).stdout)}
    assert plugins[f"acme_{kind}"][f"{kind}s"] == [f"acme_{kind}" if kind != "command" else f"acme-{kind}"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=package, capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "failed" not in proc.stdout and " passed" in proc.stdout

