"""Saved runs made by ``evalcore evaluate`` (a judged metric answered by a scripted judge), the
``evalcore ui`` server started as a user starts it, a headless Chromium driven by Playwright, and a
throwaway PostgreSQL server (Debian's binaries; tests marked ``postgres``, run by ``nox -s ui_postgres``)."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
EVALCORE = [sys.executable, "-m", "evalcore"]
JUDGE = '''
def judge(prompt, metadata):
    good = "Paris" in prompt
    return {"rationale": "the evidence names Paris" if good else "not supported", "score": 1 if good else 0}
'''
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the commands: a private cache, and the scripted judge importable."""
    home = tmp_path_factory.mktemp("judge")
    (home / "scripted_judge.py").write_text(JUDGE)
    return {**os.environ, "EVALCORE_CACHE_DIR": str(home / "cache"), "PYTHONPATH": str(home),
            "EVALCORE_JUDGE_CALLABLE": "scripted_judge:judge", "EVALCORE_JUDGE_BACKEND": "callable"}


def evaluate(env: dict[str, str], data: pathlib.Path, output: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    output.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([*EVALCORE, "evaluate", str(data), "-m", "judge/faithfulness", "-m", "overlap/token_f1",
                           "-o", str(output), "--allow-code", *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="session")
def runs(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder with two runs: ``a`` over examples/rag.jsonl, ``b`` over examples/rag_b.jsonl."""
    folder = tmp_path_factory.mktemp("runs")
    evaluate(env, EXAMPLES / "rag.jsonl", folder / "a.json")
    evaluate(env, EXAMPLES / "rag_b.jsonl", folder / "b.json")
    return folder


def _rows(journal: pathlib.Path) -> dict[str, dict]:
    """A journal's record rows by id (read here with json, not with the code under test)."""
    found = {}
    for line in journal.read_text().splitlines():
        row = json.loads(line)
        if "id" in row and "scores" in row:
            found[row["id"]] = row
    return found


@contextlib.contextmanager
def _serve(env: dict[str, str], *args: str) -> Iterator[str]:
    """``evalcore ui ARGS --port 0`` running; the address it printed."""
    process = subprocess.Popen([*EVALCORE, "ui", *args, "--port", "0"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("evalcore ui: http://"), line + process.stderr.read()
        yield line.split(": ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for one test module: Playwright's synchronous API keeps an event loop running
    in this thread while it is open, so it is closed before the other packages' tests run."""
    if CHROMIUM is None:
        pytest.skip("needs chromium (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def rows():
    """``rows(journal)``: a journal's record rows by id."""
    return _rows


@pytest.fixture(scope="session")
def serve(env):
    """``with serve(*args) as url``: ``evalcore ui ARGS`` running (with the tests' environment, or
    ``environ=`` another)."""
    return lambda *args, environ=None: _serve(environ or env, *args)


def _postgres_bin() -> pathlib.Path | None:
    """The folder of PostgreSQL's server programs: Debian's newest, else ``initdb`` on the PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return pathlib.Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return pathlib.Path(initdb).parent if initdb else None


def _unavailable(reason: str) -> None:
    """Skip, or fail where the PostgreSQL tests must run (EVALCORE_REQUIRE_POSTGRES, set by nox -s ui_postgres)."""
    if os.environ.get("EVALCORE_REQUIRE_POSTGRES"):
        pytest.fail(reason + " (EVALCORE_REQUIRE_POSTGRES is set)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_control() -> Iterator[tuple[str, Callable[[], None]]]:
    """A PostgreSQL server of its own on 127.0.0.1 (``initdb`` into a temporary folder, ``pg_ctl start``
    on a free port; as the ``postgres`` user where the tests run as root, which the server refuses):
    the URL of its ``postgres`` database, and a function that restarts the server (``pg_ctl restart
    -m fast``: every connection to it is closed)."""
    programs = _postgres_bin()
    if programs is None:
        _unavailable("needs PostgreSQL's server programs (apt-get install postgresql): none in "
                     "/usr/lib/postgresql/*/bin or on the PATH")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("needs psycopg (pip install 'evalcore-ui[postgres]')")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="evalcore-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = folder / "data"

    def run(*command: str) -> None:
        done = subprocess.run([*as_user, *command], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr

    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    pg_ctl = [str(programs / "pg_ctl"), "-D", str(data), "-w", "-l", str(folder / "log")]
    try:
        run(str(programs / "initdb"), "-D", str(data), "-U", "evalcore", "--auth=trust", "--no-sync", "-E", "UTF8")
        run(*pg_ctl, "start", "-o", options)
        try:
            yield (f"postgresql://evalcore@127.0.0.1:{port}/postgres",
                   lambda: run(*pg_ctl, "restart", "-m", "fast", "-o", options))
        finally:
            run(*pg_ctl, "stop", "-m", "immediate")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server(postgres_control: tuple[str, Callable[[], None]]) -> str:
    """The URL of the throwaway server's ``postgres`` database."""
    return postgres_control[0]


@pytest.fixture
def restart_postgres(postgres_control: tuple[str, Callable[[], None]]) -> Callable[[], None]:
    """Restart the throwaway server, closing every connection to it."""
    return postgres_control[1]


@pytest.fixture
def postgres(postgres_server: str) -> str:
    """The URL of a new, empty database on the throwaway server."""
    import psycopg

    name = "t" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return postgres_server.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_at(request, tmp_path):
    """``store_at(name)``: where a store named ``name`` lives, once in an SQLite file and once in a
    PostgreSQL database (a new one per test, shared by every name: as a team's server holds both)."""
    if request.param == "sqlite":
        return lambda name: str(tmp_path / f"{name}.sqlite")
    url = request.getfixturevalue("postgres")
    return lambda name: url
