"""Optional stronger isolation of a command: no network, a read-only root, a private /tmp.

``isolation='bwrap'`` wraps the command in bubblewrap; ``isolation='unshare'`` uses
util-linux ``unshare`` (new user, network, mount and PID namespaces) and a short shell
script that re-mounts the whole tree read-only and chroots into it. In both, the working
directory stays writable and the command's PID namespace dies with it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence

MODES = ("none", "bwrap", "unshare")

# The first argument is a folder to keep visible read-only inside the private /tmp (or ""), the
# others are the command. The working directory is bound from "." (the shell's cwd) and the kept
# folder from a descriptor opened before the staging tmpfs hides the host's /tmp, where they may lie.
_UNSHARE_SCRIPT = r"""
keep=$1; shift
if [ -n "$keep" ]; then exec 3< "$keep"; fi
set -e
cwd=$(pwd -P)
mount -t tmpfs evalcore-stage /tmp
root=/tmp/root
mkdir "$root"
mount --rbind / "$root"
mount -o remount,bind,ro "$root"
awk -v r="$root/" 'index($5, r) == 1 {print $5}' /proc/self/mountinfo | while read -r m; do
    mount -o remount,bind,ro "$m" 2>/dev/null || true
done
mount -t tmpfs evalcore-tmp "$root/tmp"
if [ -n "$keep" ]; then
    mkdir -p "$root$keep"
    mount --bind /proc/self/fd/3 "$root$keep"
    mount -o remount,bind,ro "$root$keep"
fi
mkdir -p "$root$cwd"
mount --no-canonicalize --bind . "$root$cwd"
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
"""


def wrap(argv: Sequence[str], mode: str, cwd: str, keep: str | None = None) -> tuple[str, ...]:
    """``argv`` wrapped for ``mode`` (one of :data:`MODES`), to run in the absolute path ``cwd``;
    ``keep`` is a folder under /tmp (the program's installation) that stays visible, read-only."""
    if mode == "none":
        return tuple(argv)
    if mode == "bwrap":
        kept = ("--ro-bind", keep, keep) if keep else ()
        return (
            "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *kept,
            "--bind", cwd, cwd, "--chdir", cwd, "--unshare-all", "--die-with-parent", "--new-session", "--", *argv,
        )
    if mode == "unshare":
        return (
            "unshare", "--map-root-user", "--net", "--mount", "--pid", "--fork", "--kill-child",
            "--mount-proc", "--", "/bin/sh", "-c", _UNSHARE_SCRIPT, "evalcore-sandbox", keep or "", *argv,
        )
    raise ValueError(f"isolation must be one of {', '.join(MODES)}; got {mode!r}")


def strongest() -> tuple[str | None, dict[str, str]]:
    """The strongest mode that works here (``bwrap``, then ``unshare``), or ``None`` with why each failed."""
    reasons: dict[str, str] = {}
    for mode in ("bwrap", "unshare"):
        reason = unavailable(mode)
        if reason is None:
            return mode, reasons
        reasons[mode] = reason
    return None, reasons


def installation_under_tmp(program: str) -> str | None:
    """The folder a program is installed in (``<prefix>/bin/program`` -> ``<prefix>``) when it lies
    under /tmp, which the private /tmp would hide (a virtual environment made there, say)."""
    if not os.path.isabs(program):
        return None
    prefix = os.path.dirname(os.path.dirname(program))
    return prefix if prefix.startswith("/tmp/") and os.path.isdir(prefix) else None


@functools.cache
def unavailable(mode: str) -> str | None:
    """Why ``mode`` cannot be used on this machine, or ``None`` when it works (probed once)."""
    if mode == "none":
        return None
    tool = "bwrap" if mode == "bwrap" else "unshare"
    if shutil.which(tool) is None:
        return f"{tool} is not installed (not on PATH)"
    try:
        probe = subprocess.run(list(wrap(["true"], mode, "/")), capture_output=True, timeout=30,
                               stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{tool} cannot run: {exc}"
    if probe.returncode != 0:
        message = probe.stderr.decode(errors="replace").strip().splitlines()
        return f"{tool} cannot create the namespaces here: {message[-1] if message else probe.returncode}"
    return None
