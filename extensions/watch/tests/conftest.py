"""Starting ``evalcore watch`` and the instrumented application as processes, as users run them
(``watcher`` makes receivers stopped after the test; ``kit`` holds the helpers)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

APP = Path(__file__).with_name("app.py")
EVALCORE = [sys.executable, "-m", "evalcore"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"evalcore watch exited with {process.returncode}: {process.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("evalcore watch did not start listening")


def scored_ids(store: Path, scorer: str = "all") -> list[str]:
    """The record ids of every row the store's runs of ``scorer`` hold (repeats included)."""
    ids = []
    for rows in sorted(store.glob(f"runs/*/*/*-{scorer}.rows.jsonl")):
        for line in rows.read_text().splitlines():
            row = json.loads(line)
            if "id" in row and "scores" in row:
                ids.append(row["id"])
    return ids


def n_scored(store: Path, scorer: str = "all") -> int:
    """How many rows the store's runs of ``scorer`` hold so far, counted without parsing them (each row
    has one ``"scores"`` key): cheap enough to poll while the receiver works on the same two cores."""
    return sum(rows.read_bytes().count(b'"scores":') for rows in store.glob(f"runs/*/*/*-{scorer}.rows.jsonl"))


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Watcher:
    """``evalcore watch`` in a subprocess."""

    def __init__(self, args: list[str], port: int, log: Path, env: dict[str, str] | None = None) -> None:
        self.args, self.port, self.log = args, port, log
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        handle = open(self.log, "a")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen([*EVALCORE, "watch", "--port", str(self.port), *self.args],
                                        stdout=handle, stderr=handle, text=True, env=self.env)
        self.process.stderr = open(self.log)  # noqa: SIM115 - read when the start fails
        wait_for_port(self.port, self.process)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def run_app(port: int, n: int, ids: Path, *more: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(APP), f"http://127.0.0.1:{port}/v1/traces", str(n), str(ids), *more],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[Callable[..., Watcher]]:
    started: list[Watcher] = []

    def make(*args: str, env: dict[str, str] | None = None) -> Watcher:
        w = Watcher(list(args), free_port(), tmp_path / "watch.log", env)
        started.append(w)
        return w

    yield make
    for w in started:
        w.kill()


@pytest.fixture
def kit() -> SimpleNamespace:
    return SimpleNamespace(run_app=run_app, scored_ids=scored_ids, n_scored=n_scored, wait_until=wait_until,
                           free_port=free_port)
