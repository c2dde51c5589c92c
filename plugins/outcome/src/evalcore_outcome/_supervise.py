"""Runs one command and leaves none of its descendants behind (standard library only).

Started as ``python -I -S _supervise.py STATUS_FD ARGV...`` by :mod:`evalcore_outcome.process`.
It becomes a child subreaper (Linux), so every orphaned descendant of the command —
a ``setsid`` grandchild, a backgrounded ``sleep`` — is re-parented to it instead of to
init. The command runs in a new session; when it exits, or when this process gets
SIGTERM (the caller's timeout), the command's process group is killed and then every
remaining descendant, until none is left. On ``STATUS_FD`` it writes ``pid N`` when the
command started, then ``exit N`` (``-S`` for a signal) or ``error MESSAGE``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_CHILD_SUBREAPER = 36


class _Stop(Exception):
    """SIGTERM from the caller: stop the command now."""


def _stop(signum: int, frame: object) -> None:
    raise _Stop


def _become_subreaper() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the process group kill still applies
        pass


def _children() -> list[int]:
    """Processes whose parent is this one (read from /proc; empty where there is none)."""
    me, found = os.getpid(), []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        if int(stat.rsplit(b")", 1)[1].split()[1]) == me:
            found.append(int(name))
    return found


def _kill_everything(group: int) -> None:
    """Kill the command's process group, then every descendant re-parented here."""
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
    while True:
        children = _children()
        if not children:
            break
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _start(argv: list[str], status: int) -> int:
    """Fork and exec ``argv`` in a new session; a failed exec is reported on ``status``.

    SIGTERM is blocked around the fork, so the caller's stop cannot come between the
    fork and knowing the command's pid; the command starts with it unblocked and default.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    pid = os.fork()
    if pid == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            os.setsid()
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(status, f"error cannot start {argv[0]!r}: {exc.strerror or exc}\n".encode())
        finally:
            os._exit(127)
    os.write(status, f"pid {pid}\n".encode())
    return pid


def main(argv: list[str]) -> int:
    status = int(argv[0])
    os.set_inheritable(status, False)  # the command itself never sees it
    signal.signal(signal.SIGTERM, _stop)
    _become_subreaper()
    pid = _start(argv[1:], status)
    code = 124
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        os.write(status, f"exit {code}\n".encode())
    except _Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _kill_everything(pid)
    return 0 if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
