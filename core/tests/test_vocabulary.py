"""One vocabulary for parameters: deprecated aliases bind to the canonical name and warn once,
ids and ``describe`` show canonical names only, and the conformance kit flags synonyms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import evalcore
import pytest
from evalcore import DeprecatedParameterWarning, MetricSpec, ParameterError, ParamSpec, SpecError
from evalcore._contract import vocabulary
from evalcore.plugin import canonical_name

REGISTRATION = '''
from evalcore.plugin import PLUGIN_API_VERSION, MetricSpec, ParamSpec, hookimpl

@hookimpl
def evalcore_metrics():
    return [
        MetricSpec(
            name="overlap", implementation="vocab_pkg.metrics:Overlap", summary="Share of words in common.",
            family="toy",
            params=(
                ParamSpec(name="k", type="int", default=3, minimum=1, identity=True, aliases=("top_k",)),
                ParamSpec(name="ignore_case", type="bool", default=False, identity=True,
                          aliases=("lowercase", "case_insensitive")),
            ),
        ),
    ]
'''

IMPLEMENTATION = '''
from evalcore.plugin import SampleMetric, SkipSample

class Overlap(SampleMetric):
    def score(self, example, prediction):
        reference, response = example.get("reference_answer"), prediction["response"]
        if reference is None:
            raise SkipSample("no reference")
        if self.params["ignore_case"]:
            reference, response = reference.lower(), response.lower()
        words = response.split()[: self.params["k"]]
        return sum(w in reference.split() for w in words) / max(len(words), 1)
'''

EXAMPLE = {"reference_answer": "paris is nice"}
PREDICTION = {"response": "Paris is big and nice"}


@pytest.fixture
def vocab(make_distribution, site, monkeypatch):
    """The toy plugin ``vocab`` installed, and no old name warned about yet in this process."""
    monkeypatch.syspath_prepend(str(site))
    make_distribution("evalcore-vocab", plugins={"vocab": "vocab_pkg._register"},
                      modules={"vocab_pkg._register": REGISTRATION, "vocab_pkg.metrics": IMPLEMENTATION})
    monkeypatch.setattr(vocabulary, "_warned", set())
    return site


def caught(fn, *args, **kwargs):
    """``fn``'s result and the DeprecatedParameterWarnings it gave (Python's own de-duplication off)."""
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    return result, [w for w in found if issubclass(w.category, DeprecatedParameterWarning)]


def test_the_warning_is_shown_by_default_and_is_a_future_warning():
    assert issubclass(DeprecatedParameterWarning, FutureWarning)


def test_old_name_binds_to_the_canonical_parameter_and_warns_once(vocab):
    metric, found = caught(evalcore.get_metric, "vocab/overlap", top_k=2)
    assert metric.params == {"k": 2, "ignore_case": False} and metric.id == "vocab/overlap@2"
    [warning] = found
    assert str(warning.message) == \
        "vocab/overlap: parameter 'top_k' is deprecated; use 'k' (the old name still works for now)"
    assert warning.filename == __file__  # points at the caller, not at evalcore
    again, found = caught(evalcore.get_metric, "vocab/overlap(top_k=2)")
    assert again.id == metric.id and found == []  # once per process, metric and old name
    _, found = caught(evalcore.get_metric, "vocab/overlap", lowercase=True)
    assert [str(w.message) for w in found] == \
        ["vocab/overlap: parameter 'lowercase' is deprecated; use 'ignore_case' (the old name still works for now)"]


def test_old_and_new_names_give_the_same_number(vocab):
    new = evalcore.get_metric("vocab/overlap", k=2, ignore_case=True)
    old, _ = caught(evalcore.get_metric, "vocab/overlap", top_k=2, case_insensitive=True)
    assert new.id == old.id == "vocab/overlap(ignore_case=True)@2"
    assert old.score_one(EXAMPLE, PREDICTION).value == new.score_one(EXAMPLE, PREDICTION).value == 1.0


@pytest.mark.parametrize(("metric_id", "params"), [
    ("vocab/overlap(top_k=2)", {}),              # in the id
    ("vocab/overlap", {"top_k": 2}),             # as keywords
    ("vocab/overlap(top_k=2)", {"top_k": 2}),    # the same old name twice, same value
    ("overlap(lowercase=True)", {}),             # a bare name
])
def test_old_names_in_ids_and_keywords(vocab, metric_id, params):
    metric, found = caught(evalcore.get_metric, metric_id, **params)
    assert metric.id in ("vocab/overlap@2", "vocab/overlap(ignore_case=True)@3")
    assert len(found) == 1 and "deprecated; use" in str(found[0].message)


@pytest.mark.parametrize(("metric_id", "params"), [
    ("vocab/overlap", {"top_k": 2, "k": 2}),
    ("vocab/overlap(top_k=2)", {"k": 2}),
    ("vocab/overlap(top_k=2)@2", {}),
    ("vocab/overlap(top_k=2, k=2)", {}),
    ("vocab/overlap", {"lowercase": True, "case_insensitive": True}),
])
def test_old_and_new_name_together_are_a_parameter_error(vocab, metric_id, params):
    with pytest.raises(ParameterError, match="both give parameter '(k|ignore_case)'.*give it once, as"):
        caught(evalcore.get_metric, metric_id, **params)


def test_a_synonym_that_is_not_an_alias_is_unknown_with_a_hint(vocab):
    with pytest.raises(ParameterError, match=r"no parameter 'topk' \(did you mean 'k'\?\)"):
        evalcore.get_metric("vocab/overlap", topk=2)


def test_evaluate_accepts_old_names(vocab):
    records = [{"id": "q1", "example": EXAMPLE, "prediction": PREDICTION}]
    result, found = caught(evalcore.evaluate, records, ["vocab/overlap(top_k=2)"])
    assert list(result.metrics) == ["vocab/overlap@2"]
    assert result.metrics["vocab/overlap@2"].value == 0.5  # "Paris is": "is" is in the reference, "Paris" is not
    assert [str(w.message).split(":")[0] for w in found] == ["vocab/overlap"]


def test_describe_and_listing_show_canonical_names_only(vocab):
    info = evalcore.describe("vocab/overlap(top_k=2)")
    data = info.to_dict()
    assert [p["name"] for p in data["params"]] == ["k", "ignore_case"]
    assert "top_k" not in json.dumps(data) and "lowercase" not in json.dumps(data)
    assert info.spec.param("k").aliases == ("top_k",)


@pytest.fixture
def cli(vocab, tmp_path):
    def run(*args):
        env = {**os.environ, "PYTHONPATH": str(vocab), "EVALCORE_STRICT_PLUGINS": ""}
        proc = subprocess.run([sys.executable, "-m", "evalcore", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc

    return run


def test_cli_metric_with_an_old_name_warns_on_stderr(cli, tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "q1", "example": EXAMPLE, "prediction": PREDICTION}) + "\n")
    proc = cli("evaluate", str(data), "-m", "vocab/overlap(top_k=2)", "-m", "vocab/overlap(top_k=3)", "--json")
    assert set(json.loads(proc.stdout)["metrics"]) == {"vocab/overlap@2", "vocab/overlap@3"}
    warning = "warning: vocab/overlap: parameter 'top_k' is deprecated; use 'k' (the old name still works for now)"
    assert proc.stderr.count(warning) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "spec.py" not in proc.stderr


def test_cli_describe_shows_canonical_names_only(cli):
    described = cli("describe", "vocab/overlap(top_k=2, lowercase=True)", "--json")
    data = json.loads(described.stdout)
    assert data["id"] == "vocab/overlap(ignore_case=True)@2"
    assert [p["name"] for p in data["params"]] == ["k", "ignore_case"] and "aliases" not in data["params"][0]
    text = cli("describe", "vocab/overlap(top_k=2)")
    assert text.stdout.startswith("vocab/overlap@2 ")
    assert "    k: int = 3" in text.stdout and "top_k" not in text.stdout and "lowercase" not in text.stdout
    assert "top_k" in text.stderr  # the warning


# -- the spec -------------------------------------------------------------------------------


def test_aliases_must_be_names_and_must_not_clash():
    with pytest.raises(SpecError, match="must match"):
        ParamSpec(name="k", aliases=("Top-K",))
    with pytest.raises(SpecError, match="repeat a name"):
        ParamSpec(name="k", aliases=("k",))
    with pytest.raises(SpecError, match="name another parameter or alias: n"):
        MetricSpec(name="x", implementation="m:X", summary="s",
                   params=(ParamSpec(name="k", aliases=("n",)), ParamSpec(name="n")))
    with pytest.raises(SpecError, match="name another parameter or alias: top_k"):
        MetricSpec(name="x", implementation="m:X", summary="s",
                   params=(ParamSpec(name="k", aliases=("top_k",)), ParamSpec(name="j", aliases=("top_k",))))


def test_the_synonym_table():
    assert canonical_name("top_k") == "k" and canonical_name("lowercase") == "ignore_case"
    assert canonical_name("case_insensitive") == "ignore_case" and canonical_name("field_path") == "field"
    assert canonical_name("timeout") == "timeout_s" and canonical_name("cost_field_path") == "cost_field"
    assert canonical_name("rel_level") == "relevance_level" and canonical_name("thresh") == "threshold"
    for fine in ("k", "ignore_case", "field", "score_field", "timeout_s", "cost_msats", "relevance_level",
                 "threshold", "baseline_path", "n"):
        assert canonical_name(fine) is None, fine
