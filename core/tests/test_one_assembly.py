"""``evalcore.evaluate`` and ``evalcore evaluate`` are one assembly of a run: the same options are
built and checked in one place, so a bad setting gives the same one-line error both ways, and the
same settings give the same run."""

from __future__ import annotations

import inspect
import json
import threading

import attrs
import evalcore
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore._contract.errors import EvalcoreError
from evalcore._engine import entry

METRIC = "overlap/exact_match"
RECORDS = [
    {"id": "q1", "example": {"answer": "Paris"}, "prediction": {"response": "Paris"}},
    {"id": "q2", "example": {"answer": "Rome"}, "prediction": {"response": "Milan"}},
    {"id": "q3", "example": {"answer": "Oslo"}, "prediction": {"response": "oslo"}},
]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    return path


def _cli_error(*args: str) -> str:
    out = CliRunner().invoke(main, ["evaluate", *args])
    assert out.exit_code not in (0, None), out.output
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), out.output  # one line, no traceback
    return lines[0].removeprefix("error: ")


def _api_error(data, **options) -> str:
    with pytest.raises(EvalcoreError) as caught:
        evalcore.evaluate(str(data), [METRIC], **options)
    assert "\n" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize(("flags", "options", "expected"), [
    (["--cache-mode", "sometimes"], {"cache_mode": "sometimes"},
     "cache_mode must be one of readwrite, readonly, refresh, off; got 'sometimes'"),
    (["--map", "reference_answer=example..answer"], {"field_map": {"reference_answer": "example..answer"}},
     "field_map: 'reference_answer': 'example..answer' must map a field name to a field path"),
    (["--executor", "nowhere"], {"executor": "nowhere"}, "executor: no executor named 'nowhere' is installed"),
    (["--log-to", "nowhere"], {"log_to": "nowhere"}, "log_to: no tracker named 'nowhere' is installed"),
], ids=["cache mode", "field map", "executor", "tracker"])
def test_a_bad_setting_is_the_same_one_line_error_through_the_cli_and_the_api(data, tmp_path, flags, options,
                                                                              expected):
    output = tmp_path / "report.json"
    from_cli = _cli_error(str(data), "-m", METRIC, "-o", str(output), *flags)
    from_api = _api_error(data, output=tmp_path / "report.json", **options)
    assert from_cli == from_api
    assert from_cli.startswith(expected)
    assert not output.exists()  # checked before any record was scored


def test_options_plugins_add_go_through_typed_mappings_checked_in_one_place(data):
    assert _api_error(data, executor_options={"address": "x"}) == (
        "executor options ['address'] need an executor other than 'local'")
    assert _api_error(data, tracker_options={"uri": "x"}) == "tracker_options need log_to: the tracker they are for"
    assert _api_error(data, nosuch={"model": "m"}) == "unknown option: nosuch"  # no settings group of that name


def test_the_same_settings_give_the_same_run_through_the_cli_and_the_api(data, tmp_path, monkeypatch):
    built = []
    real = entry.make_options
    monkeypatch.setattr(entry, "make_options", lambda *args, **kwargs: built.append(real(*args, **kwargs))
                        or built[-1])
    out = CliRunner().invoke(main, [
        "evaluate", str(data), "-m", METRIC, "-o", str(tmp_path / "cli.json"), "--map", "reference_answer=answer",
        "--seed", "7", "--concurrency", "2", "--cache-mode", "off", "--chunk-size", "2", "--no-progress"])
    assert out.exit_code == 0, out.output
    result = evalcore.evaluate(str(data), [METRIC], output=tmp_path / "api.json",
                               field_map={"reference_answer": "answer"},
                               seed=7, concurrency=2, cache_mode="off", chunk_size=2, progress=False)
    assert len(built) == 2
    cli_options, api_options = (attrs.evolve(o, output=None, budget=None) for o in built)
    assert cli_options == api_options
    assert api_options.field_map == {"example.reference_answer": "answer"}
    from_cli = json.loads((tmp_path / "cli.json").read_text())["metrics"][METRIC]
    # exact match as DSPy's: "Paris" == "Paris" and "oslo" normalises to "Oslo"; "Milan" is not "Rome"
    assert from_cli["value"] == pytest.approx(2 / 3) == result.metrics[METRIC].value


def test_evaluate_has_a_typed_signature_shared_with_aevaluate():
    signature = inspect.signature(evalcore.evaluate)
    assert signature == inspect.signature(evalcore.aevaluate)
    keywords = [p for p in signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert [(p.name, p.annotation) for p in keywords] == [("groups", "Mapping[str, Any]")]
    assert all(p.annotation is not inspect.Parameter.empty for p in signature.parameters.values())
    for name in ("cache_mode", "field_map", "settings", "executor", "executor_options", "log_to",
                 "tracker_options", "labels"):
        assert f"``{name}``" in evalcore.evaluate.__doc__


_TRACKER = {
    "notebook_reg": '''
        from evalcore.plugin import ReaderOption, TrackerSpec, hookimpl

        PLUGIN_API_VERSION = 2

        @hookimpl
        def evalcore_trackers():
            return [TrackerSpec(name="notebook", implementation="notebook_impl:Notebook",
                                options=[ReaderOption(flag="--notebook-page", dest="page", kind="str")])]
    ''',
    "notebook_impl": '''
        import threading

        class Notebook:
            def __init__(self, page="p0"):
                self.page, self.opened_in = page, threading.get_ident()

            def log_evaluation(self, result):
                value = next(iter(result.metrics.values())).value
                return f"page {self.page} ({value:.4f}) from threads {self.opened_in}, {threading.get_ident()}"
    ''',
}


def test_a_tracker_is_opened_and_logged_to_by_the_same_assembly_both_ways(data, tmp_path, make_distribution, site,
                                                                           monkeypatch):
    make_distribution("evalcore-notebook", plugins={"notebook": "notebook_reg"}, modules=_TRACKER)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("EVALCORE_NO_LIST_CACHE", "1")
    out = CliRunner().invoke(main, ["evaluate", str(data), "-m", METRIC, "--map", "reference_answer=answer",
                                    "-o", str(tmp_path / "cli.json"), "--log-to", "notebook", "--notebook-page", "7"])
    assert out.exit_code == 0, out.output
    here = threading.get_ident()
    assert f"logged to page 7 (0.6667) from threads {here}, {here}" in out.output  # 2 of 3 answers match exactly
    result = evalcore.evaluate(str(data), [METRIC], field_map={"reference_answer": "answer"}, log_to="notebook",
                               tracker_options={"page": "7"})
    assert result.logged_to == f"page 7 (0.6667) from threads {here}, {here}"

    async def in_a_notebook():  # a running event loop: the records are scored on a loop in another thread
        return evalcore.evaluate(str(data), [METRIC], field_map={"reference_answer": "answer"}, log_to="notebook")

    import asyncio

    # opened and logged in the caller's thread, where a tracker may keep its active run (MLflow does)
    assert asyncio.run(in_a_notebook()).logged_to == f"page p0 (0.6667) from threads {here}, {here}"
    assert _api_error(data, log_to="notebook", tracker_options={"colour": "red"}) == (
        "the notebook tracker has no option 'colour' (options: page)")


def test_aevaluate_is_the_same_run_awaited_and_checks_the_same_way(data):
    import asyncio

    result = asyncio.run(evalcore.aevaluate(str(data), METRIC, field_map={"reference_answer": "answer"}))
    assert result.metrics[METRIC].value == pytest.approx(2 / 3)
    with pytest.raises(EvalcoreError, match="^cache_mode must be one of"):
        asyncio.run(evalcore.aevaluate(str(data), METRIC, cache_mode="sometimes"))


def test_an_executor_option_as_a_prefixed_keyword_is_deprecated_for_executor_options():
    from evalcore._engine.options import make_options

    with pytest.warns(FutureWarning, match=r"^toy_level= is deprecated: give executor_options=\{'level': 3\}$"):
        options = make_options(executor="toy", toy_level=3)
    assert options.executor_options == {"level": 3}


def test_a_bad_cache_mode_from_the_environment_is_named_as_such_both_ways(data, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE_MODE", "sometimes")
    from_cli = _cli_error(str(data), "-m", METRIC, "-o", str(tmp_path / "report.json"))
    assert from_cli == _api_error(data) == (
        "$EVALCORE_CACHE_MODE must be one of readwrite, readonly, refresh, off; got 'sometimes'")
    assert _api_error(data, cache_mode="sometimes").startswith("cache_mode must be one of")  # explicit wins
