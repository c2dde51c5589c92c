"""Running a command safely: an argument list, a timeout, bounded output, no survivors.

The command runs under a small supervisor (:mod:`evalcore_outcome._supervise`) in a new
session. The supervisor is a child subreaper: when the command exits, or when the caller's
timeout or output limit stops it, the command's process group is killed and then every
descendant that left it (a ``setsid`` grandchild, a backgrounded ``sleep``). It is never
run through a shell. Optional isolation (:mod:`evalcore_outcome.isolation`) adds
namespaces around the command.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import attrs
from evalcore.plugin import EvalcoreError

from . import _supervise
from .isolation import installation_under_tmp, wrap

# How long to wait for the pipes to close after the command exits, and for the
# supervisor to clean up after SIGTERM, before the group is killed from here.
_DRAIN_SECONDS = 2.0
_SUPERVISOR = str(Path(_supervise.__file__).resolve())


class CommandError(EvalcoreError, RuntimeError):
    """The command could not be run to completion: it failed to start, hung or flooded."""


@attrs.frozen
class CommandResult:
    """Exit code and (truncated) output of a finished command."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    output_bytes: int
    duration_s: float

    def details(self, tail_chars: int) -> dict[str, Any]:
        """JSON-ready details with the output cut to its last ``tail_chars`` characters."""
        return {
            "command": list(self.argv), "exit_code": self.returncode,
            "stdout": _tail(self.stdout, tail_chars), "stderr": _tail(self.stderr, tail_chars),
            "output_bytes": self.output_bytes, "duration_s": round(self.duration_s, 3),
        }


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


def as_argv(command: Any) -> tuple[str, ...]:
    """A command as an argument tuple; a string (configuration, never data) is split with shlex."""
    if isinstance(command, str):
        argv = shlex.split(command)
    elif isinstance(command, Sequence) and all(isinstance(part, str) for part in command):
        argv = list(command)
    else:
        raise ValueError(f"a command must be a list of strings or a string; got {command!r}")
    if not argv:
        raise ValueError("the command is empty")
    return tuple(argv)


class _Collector:
    """Reads one pipe, keeping the last ``keep`` bytes and counting the total."""

    def __init__(self, pipe: BinaryIO, keep: int, total: list[int], lock: threading.Lock) -> None:
        self.pipe, self.keep, self.total, self.lock = pipe, keep, total, lock
        self.buffer = bytearray()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for chunk in iter(lambda: self.pipe.read1(65536), b""):
            with self.lock:
                self.total[0] += len(chunk)
            self.buffer += chunk
            if len(self.buffer) > 2 * self.keep:
                del self.buffer[:-self.keep]
        self.pipe.close()

    def text(self) -> str:
        return bytes(self.buffer[-self.keep:]).decode("utf-8", errors="replace")


def run_command(
    argv: Sequence[str], *, timeout_s: float, cwd: str | os.PathLike[str] | None = None,
    max_output_bytes: int = 10_000_000, keep_bytes: int = 65536,
    env: Mapping[str, str] | None = None, isolation: str = "none",
    redact: Callable[[str], str] = str,
) -> CommandResult:
    """Run ``argv`` and return its exit code and output tails (passed through ``redact``).

    Raises :class:`CommandError` when the command cannot start, runs past ``timeout_s``
    or writes more than ``max_output_bytes`` (stdout and stderr together); in the last two
    cases every process it started is killed first. ``env`` is its whole environment
    (``None``: this process's).
    """
    started = time.monotonic()
    workdir = os.path.realpath(cwd if cwd is not None else os.getcwd())
    if isolation != "none" and not _can_start(argv[0], env, workdir):  # else the wrapper's shell says 127
        raise CommandError(redact(f"cannot start {argv[0]!r}: No such file or directory"))
    status_read, status_write = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", _SUPERVISOR, str(status_write),
             *wrap(argv, isolation, workdir, installation_under_tmp(_program_path(argv[0], env, workdir)))],
            cwd=workdir, env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, pass_fds=(status_write,),
        )
    except OSError as exc:
        os.close(status_read)
        raise CommandError(redact(f"cannot start {argv[0]!r}: {exc.strerror or exc}")) from exc
    finally:
        os.close(status_write)
    total, lock = [0], threading.Lock()
    out = _Collector(proc.stdout, keep_bytes, total, lock)  # type: ignore[arg-type]
    err = _Collector(proc.stderr, keep_bytes, total, lock)  # type: ignore[arg-type]
    problem = _watch(proc, total, max_output_bytes, started + timeout_s, timeout_s)
    if problem is not None:
        _stop(proc)
    for collector in (out, err):
        collector.thread.join(_DRAIN_SECONDS)
    proc.wait()
    status = _read_status(status_read)
    if problem is None and status.get("error"):
        raise CommandError(redact(status["error"]))
    if problem is None and "exit" not in status:
        problem = "the supervisor ended without an exit status"
    if problem is not None:
        raise CommandError(redact(f"{shlex.join(argv)}: {problem}; every process it started was killed"))
    return CommandResult(
        tuple(redact(a) for a in argv), int(status["exit"]), redact(out.text()), redact(err.text()),
        total[0], time.monotonic() - started,
    )


def _program_path(program: str, env: Mapping[str, str] | None, workdir: str) -> str:
    """The path of the file ``program`` names, as the command's ``PATH`` finds it (``program`` itself
    when it is not found)."""
    if os.sep in program:
        return os.path.join(workdir, program)
    return shutil.which(program, path=None if env is None else env.get("PATH", "")) or program


def _can_start(program: str, env: Mapping[str, str] | None, workdir: str) -> bool:
    """Whether ``program`` names an executable file, as the command's ``PATH`` finds it."""
    path = _program_path(program, env, workdir)
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _watch(proc: subprocess.Popen[bytes], total: list[int], max_output_bytes: int,
           deadline: float, timeout_s: float) -> str | None:
    """Wait for the supervisor; why it had to be stopped, or ``None``."""
    while proc.poll() is None:
        if total[0] > max_output_bytes:
            return f"output exceeded {max_output_bytes} bytes"
        if time.monotonic() >= deadline:
            return f"timed out after {timeout_s:g} s"
        time.sleep(0.02)
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ask the supervisor to kill everything; kill its own group if it does not answer."""
    try:
        proc.send_signal(signal.SIGTERM)
        proc.wait(_DRAIN_SECONDS)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    except ProcessLookupError:
        pass


def _read_status(fd: int) -> dict[str, str]:
    """The supervisor's ``key value`` lines."""
    with os.fdopen(fd, "rb") as handle:
        lines = handle.read().decode(errors="replace").splitlines()
    return dict(line.split(" ", 1) for line in lines if " " in line)
