"""sandbox, test_pass and verification_delta run real processes."""

import sys
import time

import evalcore
import pytest
from evalcore import Status
from evalcore_outcome.process import CommandError, run_command
from evalcore_outcome.test_output import passed_count

PY = sys.executable


def py(code):
    return [PY, "-c", code]


def test_sandbox_exit_codes(tmp_path):
    ok = evalcore.get_metric("outcome/sandbox", command=py("import sys; sys.exit(3)"), expected_exit_code=3)
    s = ok.score_one({}, {})
    assert s.value == 1.0 and s.details["exit_code"] == 3
    bad = evalcore.get_metric("outcome/sandbox", command=py("print('out'); import sys; sys.exit(1)"))
    s = bad.score_one({}, {})
    assert s.value == 0.0 and s.details["stdout"].strip() == "out" and "exit code 1" in s.feedback


def test_working_directory(tmp_path):
    (tmp_path / "marker.txt").write_text("here")
    m = evalcore.get_metric("outcome/sandbox", command=py("open('marker.txt')"))
    assert m.score_one({}, {"workdir": str(tmp_path)}).value == 1.0
    assert evalcore.get_metric("outcome/sandbox", command=py("open('marker.txt')"),
                               cwd=str(tmp_path)).score_one({}, {}).value == 1.0
    s = m.score_one({}, {"workdir": str(tmp_path / "nope")})
    assert s.status is Status.ERROR and "prediction.workdir" in s.error_message


def test_output_flood_is_an_error():
    m = evalcore.get_metric("outcome/test_pass", command=py("import sys\nwhile True: sys.stdout.write('x' * 65536)"),
                            max_output_bytes=1_000_000, timeout_s=30)
    started = time.monotonic()
    s = m.score_one({}, {})
    assert time.monotonic() - started < 10
    assert s.status is Status.ERROR and "output exceeded 1000000 bytes" in s.error_message


def test_missing_executable_is_an_error():
    m = evalcore.get_metric("outcome/test_pass", command=["no-such-program-evalcore", "--x"])
    s = m.score_one({}, {})
    assert s.status is Status.ERROR and "cannot start 'no-such-program-evalcore'" in s.error_message


def test_output_is_truncated_in_details():
    m = evalcore.get_metric("outcome/sandbox", command=py("print('a' * 5000 + 'END')"), output_tail_chars=100)
    s = m.score_one({}, {})
    assert len(s.details["stdout"]) <= 101 and s.details["stdout"].rstrip().endswith("END")
    assert s.details["output_bytes"] > 5000


def test_background_child_keeping_pipes_open_does_not_hang():
    code = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])"
    started = time.monotonic()
    result = run_command(py(code), timeout_s=30)
    assert result.returncode == 0 and time.monotonic() - started < 10


def test_bad_command_parameter():
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("outcome/sandbox", command=[])
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("outcome/sandbox", command=[1, 2])
    assert evalcore.get_metric("outcome/sandbox", command="echo hi").argv == ("echo", "hi")
    with pytest.raises(CommandError):
        run_command(py("import time; time.sleep(5)"), timeout_s=0.2)


@pytest.mark.parametrize("output, expected", [
    ("===== 3 passed, 1 failed in 0.12s =====", 3),
    ("collected 5 items\n... \n== 5 passed in 0.01s ==", 5),
    ("test result: ok. 24 passed; 0 failed; 0 ignored\n"
     "test result: FAILED. 2 passed; 1 failed; 0 ignored", 26),
    ("==== 2 failed in 0.3s ====", None),
    ("", None),
])
def test_passed_count(output, expected):
    assert passed_count(output) == expected


def test_verification_delta():
    cargo_like = py("print('test result: ok. 7 passed; 0 failed; 0 ignored')")
    m = evalcore.get_metric("outcome/verification_delta", command=cargo_like)
    # 7 passing now vs 5 before -> improved -> 1.0; vs 7 -> 0.5; vs 9 -> regressed -> 0.0
    assert m.score_one({"tests_passing": 5}, {}).value == 1.0
    assert m.score_one({"tests_passing": 7}, {}).value == 0.5
    s = m.score_one({"tests_passing": 9}, {})
    assert s.value == 0.0 and s.details["delta"] == -2
    # no baseline: the seed's default of 0 -> improved
    s = m.score_one({}, {})
    assert s.value == 1.0 and s.details["baseline_recorded"] is False
    s = m.score_one({"tests_passing": "five"}, {})
    assert s.status is Status.ERROR and "example.tests_passing" in s.error_message


def test_verification_delta_pytest_output():
    m = evalcore.get_metric("outcome/verification_delta", command=py("print('== 4 passed, 1 failed in 0.2s ==')"))
    s = m.score_one({"tests_passing": 4}, {})
    assert s.value == 0.5 and s.details["tests_after"] == 4 and s.details["count_found"]


def test_test_pass_reports_passed_count():
    m = evalcore.get_metric("outcome/test_pass", command=py("print('== 2 passed in 0.1s ==')"))
    s = m.score_one({}, {})
    assert s.value == 1.0 and s.details["tests_passed"] == 2
