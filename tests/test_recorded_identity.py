"""Every setting that can change a judged or embedded number is recorded per metric, and compare refuses
runs that differ in one, naming the setting and both values in one line: set through the CLI's flags,
through evalcore.evaluate (the judge / embedding settings and metric parameters) and through the
environment variables the settings groups declare."""

from __future__ import annotations

import json

import attrs
import evalcore
import pytest
from click.testing import CliRunner
from evalcore import InputError
from evalcore._cli.main import main
from evalcore.testing import Reply, ScriptedServer

JUDGED = "judge/answer_quality"
EMBEDDED = "semantic/embedding_similarity"
RECORDS = [{"id": f"r{i}", "example": {"query": f"question {i}", "reference_answer": f"answer {i}"},
            "prediction": {"response": f"reply {i}"}} for i in range(4)]
MODEL_VARIABLES = ("EVALCORE_JUDGE_BACKEND", "EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL",
                   "EVALCORE_JUDGE_API_KEY_ENV", "EVALCORE_JUDGE_CALLABLE", "EVALCORE_EMBEDDING_MODEL",
                   "EVALCORE_PRICES", "EVALCORE_JUDGE_TEMPERATURE", "EVALCORE_JUDGE_SEED", "EVALCORE_JUDGE_MAX_TOKENS")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def servers():
    with ScriptedServer() as first, ScriptedServer() as second:
        yield first, second


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return path


def evaluate_cli(tmp_path, data, name, *args, metric=JUDGED, env=None):
    output = tmp_path / f"{name}.json"
    result = CliRunner().invoke(main, ["evaluate", str(data), "-m", metric, "--cache-mode", "off", "--no-progress",
                                       "-o", str(output), *args], env=env)
    assert result.exit_code == 0, result.output
    return output


def refusal(a, b):
    """compare's one-line refusal of the runs ``a`` and ``b``."""
    result = CliRunner().invoke(main, ["compare", str(a), str(b)])
    assert result.exit_code != 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert "not comparable" in lines[0]
    return lines[0]


def recorded(path, metric=JUDGED):
    return json.loads(path.read_text())["provenance"]["metrics"][metric]["params"]


def test_judge_model_and_base_url_given_as_flags_are_recorded_and_refused(tmp_path, data, servers):
    first, second = servers
    a = evaluate_cli(tmp_path, data, "a", "--judge-base-url", first.base_url, "--judge-model", "model-a")
    b = evaluate_cli(tmp_path, data, "b", "--judge-base-url", first.base_url, "--judge-model", "model-b")
    c = evaluate_cli(tmp_path, data, "c", "--judge-base-url", second.base_url, "--judge-model", "model-a")
    assert recorded(a)["model"] == "model-a" and recorded(a)["base_url"] == first.base_url
    assert recorded(a)["backend"] == "http"
    header = json.loads((tmp_path / "a.rows.jsonl").read_text().splitlines()[0])
    assert header["metrics"][JUDGED]["params"]["model"] == "model-a"
    assert f'{JUDGED}: model="model-a" in a, model="model-b" in b' in refusal(a, b)
    assert f'{JUDGED}: base_url="{first.base_url}" in a, base_url="{second.base_url}" in c' in refusal(a, c)
    gate = CliRunner().invoke(main, ["gate", str(b), "--baseline", str(a), "--no-worse", JUDGED])
    assert gate.exit_code == 2 and len(gate.output.strip().splitlines()) == 1, gate.output
    assert f'{JUDGED}: model="model-a" in a, model="model-b" in b' in gate.output
    allowed = CliRunner().invoke(main, ["compare", str(a), str(b), "--allow-version-mismatch"])
    assert allowed.exit_code == 0, allowed.output
    assert 'compared although computed differently: judge/answer_quality: model="model-a"' in allowed.output


def test_judge_settings_from_the_environment_are_recorded_and_refused(tmp_path, data, servers):
    first, second = servers
    a = evaluate_cli(tmp_path, data, "a", env={"EVALCORE_JUDGE_BASE_URL": first.base_url,
                                               "EVALCORE_JUDGE_MODEL": "env-a"})
    b = evaluate_cli(tmp_path, data, "b", env={"EVALCORE_JUDGE_BASE_URL": first.base_url,
                                               "EVALCORE_JUDGE_MODEL": "env-b"})
    c = evaluate_cli(tmp_path, data, "c", env={"OPENAI_BASE_URL": second.base_url, "EVALCORE_JUDGE_MODEL": "env-a"})
    assert recorded(a)["model"] == "env-a" and recorded(c)["base_url"] == second.base_url
    assert f'{JUDGED}: model="env-a" in a, model="env-b" in b' in refusal(a, b)
    assert f'base_url="{first.base_url}" in a, base_url="{second.base_url}" in c' in refusal(a, c)


def test_sampling_settings_given_as_metric_parameters_are_refused(tmp_path, data, servers):
    first, _ = servers
    judge = ("--judge-base-url", first.base_url, "--judge-model", "m")
    a = evaluate_cli(tmp_path, data, "a", *judge)
    hot = evaluate_cli(tmp_path, data, "hot", *judge, metric=f"{JUDGED}(temperature=0.7)")
    seeded = evaluate_cli(tmp_path, data, "seeded", *judge, metric=f"{JUDGED}(seed=3)")
    assert first.requests[-1]["json"]["seed"] == 3
    assert f"{JUDGED}: temperature=0.0 in a, temperature=0.7 in hot" in refusal(a, hot)
    assert f"{JUDGED}: seed=0 in a, seed=3 in seeded" in refusal(a, seeded)


def test_run_wide_sampling_settings_reach_the_judge_and_are_refused(tmp_path, data, servers):
    first, _ = servers
    judge = ("--judge-base-url", first.base_url, "--judge-model", "m")
    a = evaluate_cli(tmp_path, data, "a", *judge)
    assert {r["json"]["temperature"] for r in first.requests} == {0.0}
    flag = evaluate_cli(tmp_path, data, "flag", *judge, "--judge-temperature", "0.7", "--judge-seed", "5",
                        "--judge-max-tokens", "300")
    asked = first.requests[-1]["json"]
    assert (asked["temperature"], asked["seed"], asked["max_tokens"]) == (0.7, 5, 300)
    assert (recorded(flag)["temperature"], recorded(flag)["seed"], recorded(flag)["max_tokens"]) == (0.7, 5, 300)
    assert f"{JUDGED}: temperature=0.0 in a, temperature=0.7 in flag" in refusal(a, flag)
    env = evaluate_cli(tmp_path, data, "env", *judge, env={"EVALCORE_JUDGE_TEMPERATURE": "0.4"})
    assert first.requests[-1]["json"]["temperature"] == 0.4
    assert f"{JUDGED}: temperature=0.0 in a, temperature=0.4 in env" in refusal(a, env)
    # the metric's own parameter wins over the run's setting, even when it is the default value
    own = evaluate_cli(tmp_path, data, "own", *judge, "--judge-temperature", "0.7",
                       metric=f"{JUDGED}(temperature=0.0)")
    assert first.requests[-1]["json"]["temperature"] == 0.0 and recorded(own)["temperature"] == 0.0
    assert json.loads(own.read_text())["provenance"]["metrics"].keys() == {JUDGED}  # the id is unchanged

    def run(**settings):
        return evalcore.evaluate(RECORDS, [JUDGED], judge={"base_url": first.base_url, "model": "m", **settings},
                                 cache_mode="off", progress=False)

    cold, warm = run(), run(temperature=0.7)
    assert first.requests[-1]["json"]["temperature"] == 0.7
    with pytest.raises(InputError, match=f"{JUDGED}: temperature=0.0 in baseline, temperature=0.7 in system 1"):
        evalcore.compare(cold, warm)


def test_a_bad_run_wide_sampling_setting_is_one_line(tmp_path, data, servers):
    first, _ = servers
    result = CliRunner().invoke(main, ["evaluate", str(data), "-m", JUDGED, "--no-progress", "--judge-base-url",
                                       first.base_url, "--judge-model", "m"], env={"EVALCORE_JUDGE_SEED": "x"})
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    assert f"{JUDGED}" in result.output and "seed" in result.output and "'x'" in result.output


def test_judge_settings_given_to_evaluate_are_recorded_and_refused(tmp_path, servers):
    first, second = servers

    def run(**judge):
        return evalcore.evaluate(RECORDS, [JUDGED], judge={"base_url": first.base_url, "model": "m", **judge},
                                 cache_mode="off", progress=False)

    by_a, by_b, elsewhere = run(model="api-a"), run(model="api-b"), run(model="api-a", base_url=second.base_url)
    with pytest.raises(InputError, match=f'{JUDGED}: model="api-a" in baseline, model="api-b" in system 1'):
        evalcore.compare(by_a, by_b)
    with pytest.raises(InputError, match=f'base_url="{second.base_url}" in system 1'):
        evalcore.compare(by_a, elsewhere)

    def answer(prompt, metadata):
        return json.dumps({field: 1 for field in metadata["fields"]} | {"explanation": "called"})

    by_callable = evalcore.evaluate(RECORDS, [evalcore.get_metric(JUDGED, judge=answer)], progress=False,
                                    cache_mode="off")
    with pytest.raises(InputError, match='backend="http" in baseline, backend="callable" in system 1'):
        evalcore.compare(by_a, by_callable)


def test_a_changed_prompt_is_refused_by_its_hash(tmp_path, servers, monkeypatch):
    from evalcore_judge import metrics

    first, _ = servers
    judge = {"base_url": first.base_url, "model": "m"}
    before = evalcore.evaluate(RECORDS, [JUDGED], judge=judge, cache_mode="off", progress=False)
    original = metrics.ANSWER_QUALITY
    changed = attrs.evolve(original, system=original.system + " Be strict.")
    monkeypatch.setattr(metrics, "ANSWER_QUALITY", changed)
    after = evalcore.evaluate(RECORDS, [JUDGED], judge=judge, cache_mode="off", progress=False)
    old_hash = before.provenance["metrics"][JUDGED]["params"]["prompt_hash"]
    assert old_hash == original.hash != changed.hash  # the template's hash, as the rows' details
    assert before.samples[0]["scores"][JUDGED]["details"]["template_hash"] == {"quality": old_hash}
    with pytest.raises(InputError, match=f'prompt_hash="{old_hash}" in baseline, prompt_hash="{changed.hash}"'):
        evalcore.compare(before, after)


def test_structured_output_and_instructions_are_refused_as_different_response_formats(tmp_path, data):
    def no_structured_output(request):
        if "response_format" in request:
            return Reply(400, {"error": {"message": "response_format is not supported"}})
        text = json.dumps({"relevance": 1, "helpfulness": 1, "clarity": 1, "explanation": "as instructed"})
        return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})

    with ScriptedServer() as structured, ScriptedServer(no_structured_output) as plain:
        a = evaluate_cli(tmp_path, data, "a", "--judge-base-url", structured.base_url, "--judge-model", "m")
        b = evaluate_cli(tmp_path, data, "b", "--judge-base-url", plain.base_url, "--judge-model", "m",
                         "--samples", str(tmp_path / "b.rows.jsonl"))
    assert recorded(a)["response_format"] == "json_schema" and recorded(b)["response_format"] == "instructions"
    line = refusal(a, b)
    assert f'{JUDGED}: response_format="json_schema" in a, response_format="instructions" in b' in line


def test_embedding_model_and_base_url_are_recorded_and_refused(tmp_path, data, servers):
    first, second = servers
    a = evaluate_cli(tmp_path, data, "a", "--embedding-base-url", first.base_url, "--embedding-model", "e1",
                     metric=EMBEDDED)
    b = evaluate_cli(tmp_path, data, "b", "--embedding-base-url", first.base_url, metric=EMBEDDED,
                     env={"EVALCORE_EMBEDDING_MODEL": "e2"})
    c = evaluate_cli(tmp_path, data, "c", "--embedding-base-url", second.base_url, "--embedding-model", "e1",
                     metric=EMBEDDED)
    assert recorded(a, EMBEDDED) | {"embedder": "http:e1", "model": "e1", "base_url": first.base_url} == recorded(
        a, EMBEDDED)
    assert f'{EMBEDDED}: model="e1" in a, model="e2" in b' in refusal(a, b)
    assert f'{EMBEDDED}: base_url="{first.base_url}" in a, base_url="{second.base_url}" in c' in refusal(a, c)
    by_api = evalcore.evaluate(RECORDS, [EMBEDDED], embedding={"base_url": first.base_url, "model": "e3"},
                               cache_mode="off", progress=False)
    with pytest.raises(InputError, match=f'{EMBEDDED}: embedder="http:e1" in a, embedder="http:e3" in system 1'):
        evalcore.compare(str(a), by_api)


def test_trackers_get_the_settings_known_at_the_start_and_at_the_end(tmp_path, servers):
    """What MLflow logs as parameters and W&B as config (run_parameters): the judge's settings from the
    journal's header and the prompt hash and response format known once the run finished."""
    from evalcore.plugin import run_parameters

    first, _ = servers
    result = evalcore.evaluate(RECORDS, [JUDGED], judge={"base_url": first.base_url, "model": "judge-a"},
                               cache_mode="off", progress=False, samples=str(tmp_path / "rows.jsonl"))
    header = json.loads((tmp_path / "rows.jsonl").read_text().splitlines()[0])
    assert "response_format" not in header["metrics"][JUDGED]["params"]  # unknown before the first answer
    params = run_parameters(result)["metrics"][JUDGED]["params"]
    hashes = {h for row in result.samples for h in row["scores"][JUDGED]["details"]["template_hash"].values()}
    assert {k: params[k] for k in ("backend", "model", "base_url", "temperature", "prompt_hash",
                                   "response_format")} == {
        "backend": "http", "model": "judge-a", "base_url": first.base_url, "temperature": 0.0,
        "prompt_hash": ",".join(sorted(hashes)), "response_format": "json_schema"}


def test_a_base_url_the_judge_does_not_use_is_no_difference(monkeypatch):
    def answer(prompt, metadata):
        return json.dumps({field: 1 for field in metadata["fields"]} | {"explanation": "called"})

    def run():
        return evalcore.evaluate(RECORDS, [evalcore.get_metric(JUDGED, judge=answer)], progress=False,
                                 cache_mode="off")

    plain = run()
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # set for other tools, unused by a callable
    elsewhere = run()
    assert elsewhere.provenance["metrics"][JUDGED]["params"]["base_url"] is None
    comparison = evalcore.compare(plain, elsewhere, tests=["fisher"])
    assert not any("computed differently" in note for note in comparison.notes)
