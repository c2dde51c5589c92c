"""The README's demo command runs and prints a readable table."""

import subprocess
import sys


def test_demo_prints_a_table(root):
    proc = subprocess.run([sys.executable, str(root / "examples" / "demo.py")], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(line for line in lines if line.startswith("metric"))
    assert header.split() == ["metric", "value", "scale", "n", "95%", "CI", "skipped", "errors"]
    assert any(line.startswith("retrieval/ndcg@10") for line in lines)
