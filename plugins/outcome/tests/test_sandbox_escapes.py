"""Every escape route out of the command metrics, tried for real."""

import os
import shlex
import subprocess
import sys
import time

import evalcore
import pytest
from evalcore import Status
from evalcore_outcome.environment import Redactor, command_environment, looks_secret
from evalcore_outcome.isolation import unavailable
from evalcore_outcome.process import run_command

PY = sys.executable


def py(code):
    return [PY, "-c", code]


def alive(pid):
    """Whether ``pid`` runs (a zombie waiting for a reaper does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_dead(pid, seconds=5.0):
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def read_pid(path, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"{path} was never written")


def spawner(pidfile, *, new_session, then):
    """A command that starts a 60 s sleeper (its pid goes to ``pidfile``) and then runs ``then``."""
    return py(
        "import subprocess, sys, time;"
        f"p = subprocess.Popen(['sleep', '60'], start_new_session={new_session},"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL);"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid));"
        f"{then}"
    )


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="checks liveness through /proc")


@needs_proc
@pytest.mark.parametrize("new_session", [True, False], ids=["setsid-grandchild", "same-group-child"])
@pytest.mark.parametrize("then", ["time.sleep(60)", "sys.exit(0)"], ids=["on-timeout", "on-exit"])
def test_no_descendant_survives(tmp_path, new_session, then):
    pidfile = tmp_path / "child.pid"
    metric = evalcore.get_metric("outcome/sandbox", command=spawner(pidfile, new_session=new_session, then=then),
                                 timeout_s=2.0, isolation="none")  # the supervisor alone, PIDs as the host sees them
    started = time.monotonic()
    score = metric.score_one({}, {})
    assert time.monotonic() - started < 15
    if then.startswith("time"):
        assert score.status is Status.ERROR and "timed out after 2 s" in score.error_message
    else:
        assert score.value == 1.0
    assert wait_dead(read_pid(pidfile))


@needs_proc
@pytest.mark.parametrize("script", [
    "sleep 60 >/dev/null 2>&1 & echo $! > {pid}",
    "(setsid sleep 60 >/dev/null 2>&1 & echo $! > {pid})",
    "nohup sleep 60 >/dev/null 2>&1 & echo $! > {pid}; exit 3",
    "(sh -c 'echo $$ > {pid}; exec sleep 60' </dev/null >/dev/null 2>&1 &) ; sleep 0.2",
], ids=["background-sleep", "setsid-in-subshell", "nohup-then-fail", "double-fork"])
def test_shell_background_jobs_die_with_the_command(tmp_path, script):
    pidfile = tmp_path / "bg.pid"
    command = ["sh", "-c", script.format(pid=shlex.quote(str(pidfile)))]
    result = run_command(command, timeout_s=30)
    assert result.returncode in (0, 3)
    assert wait_dead(read_pid(pidfile))


def test_environment_is_an_allow_list(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret-123")
    monkeypatch.setenv("EVALCORE_PLAIN_SETTING", "visible-if-passed")
    dump = py("import os, json; print(json.dumps(dict(os.environ)))")
    metric = evalcore.get_metric("outcome/sandbox", command=dump, isolation="none")  # no shell in between
    env = __import__("json").loads(metric.score_one({}, {}).details["stdout"])
    assert "OPENAI_API_KEY" not in env and "EVALCORE_PLAIN_SETTING" not in env
    assert env.get("PATH") == os.environ["PATH"]
    assert set(env) <= {"PATH", "HOME", "LANG", "TMPDIR", "LC_CTYPE"}  # LC_CTYPE: Python's C-locale coercion
    passed = evalcore.get_metric("outcome/sandbox", command=dump, pass_env=["EVALCORE_PLAIN_SETTING"],
                                 env={"MODE": "ci"}, isolation="none")
    env = __import__("json").loads(passed.score_one({}, {}).details["stdout"])
    assert env["EVALCORE_PLAIN_SETTING"] == "visible-if-passed" and env["MODE"] == "ci"
    assert "OPENAI_API_KEY" not in env


def test_secrets_are_redacted_from_stored_output(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-very-secret-123")
    monkeypatch.setenv("DB_PASSWORD", "hunter2hunter2")
    # the command is given the key explicitly and prints it on both streams
    code = ("import os, sys; k = os.environ['OPENAI_API_KEY']; print('key=' + k);"
            " print(k + ' hunter2hunter2', file=sys.stderr)")
    metric = evalcore.get_metric("outcome/test_pass", command=py(code), pass_env=["OPENAI_API_KEY"])
    score = metric.score_one({}, {})
    stored = repr(score.to_dict())
    assert "sk-test-very-secret-123" not in stored and "hunter2hunter2" not in stored
    assert "[redacted OPENAI_API_KEY]" in score.details["stdout"]
    assert "[redacted DB_PASSWORD]" in score.details["stderr"]
    explicit = evalcore.get_metric("outcome/sandbox", command=py("import os; print(os.environ['GH_TOKEN'])"),
                                   env={"GH_TOKEN": "ghp_explicit_value"})
    assert explicit.score_one({}, {}).details["stdout"].strip() == "[redacted GH_TOKEN]"


def test_error_messages_are_redacted(monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", "tok-in-the-command-line")
    metric = evalcore.get_metric("outcome/sandbox", command=[PY, "-c", "import time; time.sleep(30)",
                                                             "tok-in-the-command-line"], timeout_s=0.5)
    score = metric.score_one({}, {})
    assert score.status is Status.ERROR and "tok-in-the-command-line" not in score.error_message
    assert "[redacted SERVICE_TOKEN]" in score.error_message


@pytest.mark.parametrize("name, secret", [
    ("OPENAI_API_KEY", True), ("GITHUB_TOKEN", True), ("aws_secret_access_key", True),
    ("DB_PASSWORD", True), ("SSH_PRIVATE_KEY_PATH", True), ("PATH", False), ("HOME", False), ("LANG", False),
])
def test_secret_names(name, secret):
    assert looks_secret(name) is secret


def test_redactor_longest_first_and_short_values_kept():
    redact = Redactor.from_environments({"API_KEY": "abcdef", "OTHER_TOKEN": "abcdefghij", "PIN_KEY": "12"})
    assert redact("abcdefghij abcdef 12") == "[redacted OTHER_TOKEN] [redacted API_KEY] 12"


def test_command_environment_takes_only_named_variables():
    parent = {"PATH": "/bin", "HOME": "/h", "SECRET_KEY": "x", "USER": "u"}
    assert command_environment(None, (), parent=parent) == {"PATH": "/bin", "HOME": "/h"}
    assert command_environment({"A": "1"}, ["USER", "MISSING"], parent=parent) == \
        {"PATH": "/bin", "HOME": "/h", "USER": "u", "A": "1"}


@pytest.mark.parametrize("params", [
    {"env": {"A": 1}}, {"env": ["A=1"]}, {"pass_env": "PATH"}, {"pass_env": [3]}, {"isolation": "docker"},
    {"cost_msats": -1},
])
def test_bad_sandbox_parameters_name_the_metric_and_parameter(params):
    with pytest.raises(evalcore.ParameterError) as info:
        evalcore.get_metric("outcome/sandbox", command=["true"], **params)
    assert "outcome/sandbox" in str(info.value) and next(iter(params)) in str(info.value)


def test_output_stored_is_capped():
    metric = evalcore.get_metric("outcome/sandbox", command=py("print('x' * 10**6)"), output_tail_chars=50)
    score = metric.score_one({}, {})
    assert score.value == 1.0 and len(score.details["stdout"]) <= 51 and score.details["output_bytes"] > 10**6


def test_execution_metrics_report_their_cost():
    spec_cost = evalcore.describe("outcome/sandbox").spec.cost_msats
    assert spec_cost > 0
    assert evalcore.get_metric("outcome/sandbox", command=["true"]).score_one({}, {}).cost_msats == spec_cost
    measured = evalcore.get_metric("outcome/sandbox", command=["false"], cost_msats=7)
    assert measured.score_one({}, {}).cost_msats == 7 and measured.estimate({}, {})["cost_msats"] == 7
    timed_out = evalcore.get_metric("outcome/test_pass", command=py("import time; time.sleep(5)"),
                                    timeout_s=0.2, cost_msats=9)
    score = timed_out.score_one({}, {})
    assert score.status is Status.ERROR and score.cost_msats == 9


def test_budget_counts_execution_metrics():
    records = [{"id": str(i), "example": {}, "prediction": {}} for i in range(6)]
    budget = evalcore.Budget(350)
    result = evalcore.evaluate(records, ["outcome/sandbox(command=['true'], cost_msats=100)"],
                               budget_msats=budget, concurrency=1)
    assert budget.spent == 300 and budget.refused == 3
    assert sum(row.get("status") == "ok" for s in result.samples for row in s["scores"].values()) == 3


ISOLATIONS = [
    pytest.param(mode, marks=pytest.mark.skipif(unavailable(mode) is not None,
                                                reason=f"isolation={mode!r}: {unavailable(mode)}"))
    for mode in ("bwrap", "unshare")
]


@pytest.mark.parametrize("mode", ISOLATIONS)
def test_isolation_no_network_readonly_root_private_tmp(tmp_path, mode):
    if os.path.realpath(sys.executable).startswith("/tmp/") or sys.prefix.startswith("/tmp/"):
        pytest.skip("the interpreter lives under /tmp, which the isolated command sees as a private, empty /tmp")
    outside = tmp_path / "outside"
    outside.mkdir()
    workdir = tmp_path / "work"
    workdir.mkdir()
    probe = (
        "import os, socket, sys\n"
        "results = {}\n"
        "def attempt(name, fn):\n"
        "    try:\n"
        "        fn(); results[name] = 'allowed'\n"
        "    except OSError:\n"
        "        results[name] = 'denied'\n"
        f"attempt('write_outside', lambda: open({str(outside / 'x')!r}, 'w').write('x'))\n"
        "attempt('write_home', lambda: open(os.path.expanduser('~/.evalcore-sandbox-probe'), 'w').write('x'))\n"
        "attempt('write_workdir', lambda: open('result.txt', 'w').write('x'))\n"
        "attempt('write_tmp', lambda: open('/tmp/evalcore-private', 'w').write('x'))\n"
        "attempt('connect', lambda: socket.create_connection(('1.1.1.1', 53), timeout=2))\n"
        "results['tmp_entries'] = sorted(os.listdir('/tmp'))\n"
        f"results['outside_visible'] = os.path.exists({str(outside)!r})\n"
        "print(results)\n"
    )
    metric = evalcore.get_metric("outcome/sandbox", command=py(probe), isolation=mode, timeout_s=60)
    score = metric.score_one({}, {"workdir": str(workdir)})
    assert score.status is Status.OK, score.error_message or score.details
    results = eval(score.details["stdout"])  # noqa: S307 - our own probe's repr
    assert results["write_outside"] == "denied" and results["write_home"] == "denied"
    assert results["connect"] == "denied"
    assert results["write_workdir"] == "allowed" and (workdir / "result.txt").exists()
    # the private /tmp holds what the command wrote and, when the workdir lies under /tmp, the
    # directories leading to it — nothing else of the host's /tmp
    leading = {workdir.relative_to("/tmp").parts[0]} if workdir.is_relative_to("/tmp") else set()
    assert results["write_tmp"] == "allowed"
    assert set(results["tmp_entries"]) - leading == {"evalcore-private"}
    assert results["outside_visible"] is (outside.is_relative_to("/tmp") is False)
    assert not os.path.exists("/tmp/evalcore-private") and not (outside / "x").exists()


PEEK = """
import json, sys, warnings, evalcore
warnings.simplefilter("ignore")
# the grandparent of the command's shell is the evaluating process: does its environment show?
peek = ["/bin/sh", "-c", "gp=$(cut -d' ' -f4 /proc/$PPID/stat); grep -c sk-parent /proc/$gp/environ || true"]
params = json.loads(sys.argv[1])
metric = evalcore.get_metric("outcome/sandbox", command=peek, **params)
print(json.dumps([metric.isolation, metric.score_one({}, {}).details["stdout"].strip()]))
"""


def peek_parent(**params):
    env = {**os.environ, "OPENAI_API_KEY": "sk-parent-secret-456"}
    proc = subprocess.run([PY, "-c", PEEK, __import__("json").dumps(params)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return __import__("json").loads(proc.stdout)


@needs_proc
def test_isolation_defaults_to_the_strongest_available_and_none_must_be_asked_for():
    from evalcore_outcome.commands import UnisolatedCommandWarning
    from evalcore_outcome.isolation import strongest

    best, reasons = strongest()
    if best is None:
        with pytest.raises(evalcore.ParameterError, match="no isolation is available here"):
            evalcore.get_metric("outcome/sandbox", command=["true"])
        pytest.skip(f"no isolation on this machine: {reasons}")
    isolation, found = peek_parent()
    assert isolation == best and found in ("", "0")  # the evaluating process is out of the sandbox's sight
    assert peek_parent(isolation="none") == ["none", "1"]  # unisolated, an API key it was not given shows
    with pytest.warns(UnisolatedCommandWarning, match="can read evalcore's environment"):
        evalcore.get_metric("outcome/sandbox", command=["true"], isolation="none")


@pytest.mark.parametrize("mode", ["bwrap", "unshare"])
def test_a_program_installed_under_tmp_runs_isolated_and_the_rest_of_tmp_stays_hidden(tmp_path, mode):
    reason = unavailable(mode)
    if reason is not None:
        pytest.skip(f"isolation={mode!r}: {reason}")
    prefix = tmp_path / "venv"  # a virtual environment made under /tmp, as a CI checkout may hold one
    (prefix / "bin").mkdir(parents=True)
    (prefix / "share.txt").write_text("installed")
    (tmp_path / "elsewhere.txt").write_text("private")
    program = prefix / "bin" / "tool"
    program.write_text(f"#!/bin/sh\ncat {prefix / 'share.txt'}; cat {tmp_path / 'elsewhere.txt'} 2>/dev/null; true\n")
    program.chmod(0o755)
    workdir = tmp_path / "work"
    workdir.mkdir()
    result = run_command([str(program)], timeout_s=30, cwd=workdir, isolation=mode)
    assert result.returncode == 0 and result.stdout.strip() == "installed"
