"""Without evalcore-stats, its public names and commands say in one line what to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# a fresh interpreter in which evalcore-stats is not importable, as when it is not installed
HIDE_STATS = textwrap.dedent("""
    import sys

    class HideStats:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "evalcore_stats":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, HideStats())
""")
MISSING = "is part of evalcore-stats, which is not installed: pip install evalcore-stats"


def run_hidden(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", HIDE_STATS + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env={"EVALCORE_NO_LIST_CACHE": "1", "PATH": ""})


def test_a_public_name_of_the_extension_names_the_distribution():
    proc = run_hidden("""
        import evalcore
        for name in ("compare", "Comparison", "ppi", "gate", "plan_sample_size", "runs", "RecordMismatchError"):
            try:
                getattr(evalcore, name)
            except ModuleNotFoundError as exc:
                print(exc)
        from evalcore.judge import calibrate
    """)
    lines = proc.stdout.splitlines()
    assert lines[0] == f"evalcore.compare {MISSING}"
    assert len(lines) == 7 and all(line.endswith(MISSING) for line in lines)
    assert proc.stderr.strip().splitlines()[-1] == f"ModuleNotFoundError: evalcore.judge.calibrate {MISSING}"


def test_evaluate_with_labels_names_the_distribution_before_the_run():
    proc = run_hidden("""
        import evalcore
        records = [{"id": "a", "example": {"reference_answer": "x"}, "prediction": {"response": "x"}}]
        try:
            evalcore.evaluate(records, ["overlap/exact_match"], labels={"a": 1.0})
        except evalcore.EvalcoreError as exc:
            print(exc)
        print(evalcore.evaluate(records, ["overlap/exact_match"]).metrics["overlap/exact_match"].value)
    """)
    assert proc.stdout.splitlines() == ["labels needs evalcore-stats: pip install evalcore-stats", "1.0"], proc.stderr


def test_a_command_of_the_extension_names_the_distribution():
    proc = run_hidden("""
        import sys
        from evalcore._cli.main import main
        sys.argv = ["evalcore", "compare", "a.json", "b.json"]
        main()
    """)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == f"error: evalcore compare {MISSING}"
