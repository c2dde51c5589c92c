"""The pytest plugin loads into every pytest run where evalcore-pytest is installed: importing it must
load none of evalcore's machinery (a fixture imports what it needs when a test asks for it)."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

pytest_plugins = ["pytester"]
ALLOWED = ["evalcore_pytest", "evalcore_pytest.plugin"]


def test_the_plugin_module_imports_nothing_of_evalcore():
    code = "import evalcore_pytest.plugin, sys; print(sorted(m for m in sys.modules if m.startswith('evalcore')))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ALLOWED


def test_the_plugin_is_the_pytest11_entry_point_and_the_core_ships_none():
    plugins = {ep.value: ep.dist.name for ep in metadata.entry_points(group="pytest11") if ep.name == "evalcore"}
    assert plugins == {"evalcore_pytest.plugin": "evalcore-pytest"}


def test_the_server_fixture_is_given_to_every_test_suite(pytester):
    pytester.makepyfile("""
        def test_server(scripted_server):
            assert scripted_server.base_url.startswith("http://127.0.0.1:")
    """)
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:asyncio", "-p", "no:deepeval")
    outcome.assert_outcomes(passed=1)
