"""A third party's plugin, built as a wheel and installed, appears like the bundled ones."""

import json
import subprocess
import sys


def test_an_installed_third_party_plugin_is_listed_and_evaluates(root, tmp_path, evalcore_cli):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(root / "tests" / "fixtures" / "evalcore-acme")],
        check=True, capture_output=True, text=True, timeout=300,
    )
    env = {"PYTHONPATH": str(target)}
    listed = json.loads(evalcore_cli("list", "--json", env=env).stdout)
    [acme] = [m for m in listed if m["namespace"] == "acme"]
    assert (acme["id"], acme["distribution"], acme["version"]) == ("acme/shout_ratio", "evalcore-acme", "0.3.0")
    plugins = {p["name"]: p for p in json.loads(evalcore_cli("plugins", "--json", env=env).stdout)}
    assert plugins["acme"]["status"] == "loaded"

    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "example": {}, "prediction": {"response": "HEllo"}}) + "\n")
    proc = evalcore_cli("evaluate", str(data), "-m", "shout_ratio", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["metrics"]["acme/shout_ratio"]["value"] == 0.4  # "HEllo": 2 of 5 letters upper-case
    assert report["provenance"]["metrics"]["acme/shout_ratio"]["distribution"] == "evalcore-acme"
