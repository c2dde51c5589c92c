"""Running a command safely: an argument list, a timeout, bounded output, no orphans.

The command runs in its own session (``start_new_session=True``) so that on timeout or
output flood the whole process group is killed (``os.killpg``), children included. It is
never run through a shell.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO

import attrs

# How long to wait for the pipes to close after the command exits (a background child
# that kept them open is killed with the group after this).
_DRAIN_SECONDS = 2.0


class CommandError(RuntimeError):
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
    env: Mapping[str, str] | None = None,
) -> CommandResult:
    """Run ``argv`` and return its exit code and output tails.

    Raises :class:`CommandError` when the command cannot start, runs past ``timeout_s``
    or writes more than ``max_output_bytes`` (stdout and stderr together); in the last two
    cases its whole process group is killed first.
    """
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv), cwd=cwd, env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise CommandError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
    total, lock = [0], threading.Lock()
    out = _Collector(proc.stdout, keep_bytes, total, lock)  # type: ignore[arg-type]
    err = _Collector(proc.stderr, keep_bytes, total, lock)  # type: ignore[arg-type]
    deadline = started + timeout_s
    problem = None
    while proc.poll() is None:
        if total[0] > max_output_bytes:
            problem = f"output exceeded {max_output_bytes} bytes"
            break
        if time.monotonic() >= deadline:
            problem = f"timed out after {timeout_s:g} s"
            break
        time.sleep(0.02)
    if problem is None:
        for collector in (out, err):
            collector.thread.join(_DRAIN_SECONDS)
    if problem is not None or out.thread.is_alive() or err.thread.is_alive():
        _kill_group(proc)  # also ends background children that keep the pipes open
        for collector in (out, err):
            collector.thread.join(_DRAIN_SECONDS)
    proc.wait()
    if problem is not None:
        raise CommandError(f"{shlex.join(argv)}: {problem}; process group killed")
    return CommandResult(
        tuple(argv), proc.returncode, out.text(), err.text(), total[0], time.monotonic() - started,
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill every process left in the command's process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
