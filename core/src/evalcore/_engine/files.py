"""Where results may be written, and writing them whole or not at all.

An output is never an input of the same command or the journal a report names, never a
special file (a device, a FIFO, anything under /proc), and is written through a temporary
file in its own folder that is renamed into place (removed when writing fails), so a reader
never sees half a file and a failure leaves what was there before.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from evalcore._contract.errors import EvalcoreError
from evalcore._lazy import publish


class OutputError(EvalcoreError):
    """An output cannot be written where it was asked for (an input, another run's journal, a
    special file, a folder that holds no files), or writing it failed."""


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same path once links are followed, or the same
    file on disk (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(path: str | os.PathLike[str], label: str, inputs: Iterable[tuple[str | os.PathLike[str], str]] = (),
                 *, probed: set[str] | None = None) -> None:
    """Refuse an output that is one of ``inputs`` (``(path, what it is)`` pairs), a folder, a
    special file, or in a folder that does not exist or cannot hold a new file."""
    for other, what in inputs:
        if same_file(path, other):
            raise OutputError(f"{label} {os.fspath(path)} is {what}; it would be overwritten")
    full = Path(os.path.realpath(path))
    folder = full.parent
    if not folder.is_dir():
        raise OutputError(f"{label} {os.fspath(path)}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputError(f"{label} {os.fspath(path)}: the folder {folder} is not writable")
    try:
        mode = os.stat(full).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"{label} {os.fspath(path)}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"{label} {os.fspath(path)} is a folder")
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"{label} {os.fspath(path)} is not a regular file (a device, FIFO or socket); "
                          "outputs are written to regular files only")
    if probed is not None and os.fspath(folder) in probed:
        return
    try:  # a folder may pass every check above and still hold no files (/proc, /sys)
        with _temporary(full):
            pass
    except OSError as exc:
        raise OutputError(f"{label} {os.fspath(path)}: no file can be created in {folder} "
                          f"({exc.strerror or exc})") from None
    if probed is not None:
        probed.add(os.fspath(folder))


@contextlib.contextmanager
def _temporary(target: Path) -> Iterator[Path]:
    """A new, empty file beside ``target`` (removed when the block ends, unless renamed)."""
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - a hundred random names taken
        raise FileExistsError(f"no free temporary name beside {target}")
    try:
        yield tmp
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


@contextlib.contextmanager
def replacing_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block ends
    without an error, removed otherwise. A link at ``path`` is followed (its target is replaced)."""
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"{os.fspath(path)} is not a regular file (a device, FIFO or socket); "
                          "outputs are written to regular files only")
    with _temporary(target) as tmp:
        yield tmp
        os.replace(tmp, target)


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """A file object for ``path``, written through a temporary file (see :func:`replacing_path`)."""
    with replacing_path(path) as tmp, open(tmp, mode, **kwargs) as handle:  # noqa: PTH123
        yield handle


publish(globals())
