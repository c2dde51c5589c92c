"""Configuration errors through the command, as users meet them: one line naming the place, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore_watch import load_config


@pytest.mark.parametrize(("text", "expected"), [
    ("[[score]]\nmetrics = ['checks/format']\nrate = 1.5\n", "[[score]] #1: rate: must lie in (0, 1], got 1.5"),
    ("[[score]]\nmetrics = ['nope/missing']\n", "[[score]] #1: metrics: unknown metric 'nope/missing'"),
    ("[[score]]\nmetrics = ['checks/format']\nsampling = 0.1\n", "[[score]] #1: unknown setting 'sampling'"),
    ("[[score]]\nmetrics = ['checks/format']\n[[monitor]]\nmetric = 'checks/format'\n",
     "[[monitor]] #1: a monitor needs a floor or a baseline"),
    ("[[score]]\nmetrics = ['checks/format']\n[[monitor]]\nmetric = 'checks/format'\nfloor = 0.5\nscorer = 'x'\n",
     "[[monitor]] #1: scorer: no scorer named 'x'"),
    ("[watch]\nport = 'a'\n[[score]]\nmetrics = ['checks/format'\n", "not valid TOML"),
    ("", "nothing to score"),
    ("[watch]\nexecutor = 'nowhere'\n[[score]]\nmetrics = ['checks/format']\n",
     "[watch]: executor: no executor named 'nowhere' is installed"),
    ("[watch]\nexecutor_options = { address = 'auto' }\n[[score]]\nmetrics = ['checks/format']\n",
     "[watch]: executor_options: options ['address'] need an executor other than 'local'"),
])
def test_a_bad_config_is_one_line_naming_its_place(tmp_path: Path, text: str, expected: str) -> None:
    config = tmp_path / "watch.toml"
    config.write_text(text)
    result = CliRunner().invoke(main, ["watch", "--config", str(config), "--store", str(tmp_path / "s")])
    assert result.exit_code != 0
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert str(config) in line and expected in line, line


def test_flags_override_the_file_and_m_adds_a_scorer_of_every_trace(tmp_path: Path) -> None:
    config = tmp_path / "watch.toml"
    config.write_text("[watch]\nport = 5000\nbatch_size = 7\n[[score]]\nname = 'judged'\nmetrics = ['checks/format']\n"
                      "rate = 0.1\n[budget]\nper_hour_msats = 10\n")
    found = load_config(config, ["checks/length"], port=6000, store=None)
    assert (found.port, found.batch_size, found.budget.per_hour_msats) == (6000, 7, 10)
    assert [(r.name, r.metrics, r.rate) for r in found.rules] == [("all", ("checks/length",), 1.0),
                                                                  ("judged", ("checks/format",), 0.1)]


def test_executor_flags_reach_the_runs_options_and_a_bad_pair_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "watch.toml"
    config.write_text("[watch]\nconcurrency = 4\nchunk_size = 10\n[[score]]\nmetrics = ['checks/format']\n")
    assert load_config(config).evaluate_options() == {"chunk_size": 10, "concurrency": 4}
    result = CliRunner().invoke(main, ["watch", "--config", str(config), "--executor", "local",
                                       "--executor-option", "address", "--store", str(tmp_path / "s")])
    assert result.exit_code != 0
    assert result.output.strip() == "error: --executor-option: expected NAME=VALUE, got 'address'"


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "evalcore", "watch", "-m", "checks/format", "--port", str(port),
                                 "--store", str(tmp_path / "s")], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "address already in use" in result.stderr
    assert f"127.0.0.1', {port}" in result.stderr
