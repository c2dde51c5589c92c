"""``--log-to NAME`` where no installed plugin provides the tracker NAME (evalcore-mlflow not installed):
one line naming the trackers that are installed, before any record is scored."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from evalcore._registry.registry import Registry

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
# the command with the mlflow plugin's entry point hidden, as where evalcore-mlflow is not installed
WITHOUT_MLFLOW = """
import sys
from importlib import metadata

found = metadata.entry_points


def entry_points(**selection):
    points = found(**selection)
    if selection.get("group") != "evalcore.plugins":
        return points
    return metadata.EntryPoints(ep for ep in points if ep.name != "mlflow")


metadata.entry_points = entry_points
from evalcore._cli.main import main

main(sys.argv[1:], prog_name="evalcore")
"""


def test_log_to_a_tracker_not_installed_names_the_installed_ones(tmp_path):
    others = sorted({spec.name for spec in Registry(listing_cache=False).components("trackers")} - {"mlflow"})
    output = tmp_path / "result.json"
    env = {"EVALCORE_NO_LIST_CACHE": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", WITHOUT_MLFLOW, "evaluate", str(EXAMPLES / "rag.jsonl"), "-m", "overlap/token_f1",
         "-o", str(output), "--log-to", "mlflow"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode != 0
    [line] = proc.stderr.strip().splitlines()
    assert line == ("error: log_to: no tracker named 'mlflow' is installed "
                    f"(trackers: {', '.join(others) or 'none installed'})")
    assert not output.exists() and not (tmp_path / "result.rows.jsonl").exists()  # refused before the run
