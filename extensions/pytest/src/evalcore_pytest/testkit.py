"""The conformance kit for plugin authors (public as :mod:`evalcore.testkit`): test classes to subclass.

A plugin's tests subclass :class:`PluginConformance` and get, for every metric of its
namespace, the checks every evalcore metric must pass::

    from evalcore.testkit import PluginConformance

    class TestConformance(PluginConformance):
        namespace = "acme"
        package = "evalcore_acme"
        examples = [{"example": {"reference_answer": "a b"}, "prediction": {"response": "a c"}}]

Per metric: the spec is valid and complete, its parameters follow evalcore's vocabulary (no
parameter named with a known synonym such as ``top_k`` or ``lowercase``; old names are declared
as deprecated ``aliases``), the implementation path loads and is of the declared granularity,
the id round-trips through parse and format, values on the plugin's own ``examples`` lie in
the declared range (at least one scores), scoring twice gives the same values where the spec
says deterministic, corpus states merged in parts equal the whole, sample metrics answer
DSPy-style calls, and ``bad_inputs`` give ``skipped`` or ``error`` with a message. Once per
plugin: listing its metrics imports none of its implementation modules and none of ``heavy``.

A plugin that adds executors, trackers, commands or readers (plugin API 2) subclasses
:class:`ComponentConformance` the same way: its components are listed under its namespace,
listing them imports none of their implementations, their options follow the vocabulary (an
executor's and a tracker's flags start with ``--<name>-``), each implementation loads as its kind
requires, every executor gives the local executor's numbers on ``examples``, and every tracker
logs a run of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import evalcore
import pytest
from evalcore.plugin import (
    CorpusMetric,
    Granularity,
    Metric,
    MetricSpec,
    Score,
    Status,
    canonical_id,
    canonical_name,
    default_registry,
    implementation_kind,
    load_implementation,
    naming_problems,
    open_tracker,
    parse_metric_id,
)

from .testing import modules_imported_by_listing

__all__ = ["ComponentConformance", "PluginConformance"]

Pair = Mapping[str, Mapping[str, Any]]
COMPONENT_KINDS = ("readers", "executors", "trackers", "commands")
"""The kinds of component a plugin provides (plugin API 2), as :meth:`evalcore.Registry.components` names them."""


def _only(granularity: Granularity) -> Any:
    """Mark a per-metric check as applying to metrics of one granularity only."""

    def mark(fn: Any) -> Any:
        fn.kit_granularity = granularity
        return fn

    return mark


class PluginConformance:
    """Subclass it in a test module (its name starting with ``Test``) and set ``namespace``."""

    namespace: ClassVar[str] = ""
    """The plugin's namespace (its entry-point name)."""
    package: ClassVar[str] = ""
    """The plugin's import package; its modules other than ``_register`` must stay unimported by listing."""
    heavy: ClassVar[tuple[str, ...]] = ("numpy", "torch", "httpx", "transformers")
    """Top-level modules that listing must not import."""
    examples: ClassVar[Sequence[Pair]] = ()
    """``{"example": ..., "prediction": ...}`` pairs scored by every metric."""
    examples_by_metric: ClassVar[Mapping[str, Sequence[Pair]]] = {}
    """Pairs for particular metrics (by ``namespace/name``), used instead of ``examples``."""
    params: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Parameters to create particular metrics with (required ones, or offline backends)."""
    bad_inputs: ClassVar[Sequence[Pair]] = ({"example": {}, "prediction": {}},)
    """Pairs every metric must answer with ``skipped`` or ``error`` and a message."""
    accepts_bad_inputs: ClassVar[Mapping[str, str]] = {}
    """Metrics (by key) that score ``bad_inputs`` on purpose, with the reason."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Parametrise the per-metric checks with the metrics of the subclass's namespace."""
        if "metric_key" in metafunc.fixturenames:
            granularity = getattr(metafunc.function, "kit_granularity", None)
            metafunc.parametrize("metric_key", self.metric_keys(granularity))

    # -- helpers -------------------------------------------------------------------------

    def metric_keys(self, granularity: Granularity | None = None) -> list[str]:
        """The keys of the plugin's metrics (the kit parametrises its checks with them)."""
        return sorted({i.key for i in default_registry().metrics() if i.spec.namespace == self.namespace
                       and granularity in (None, i.spec.granularity)})

    def spec(self, key: str) -> MetricSpec:
        return default_registry().describe(key).spec

    def create(self, key: str) -> Metric:
        return default_registry().create(key, **self.params.get(key, {}))

    def pairs(self, key: str) -> Sequence[Pair]:
        return self.examples_by_metric.get(key, self.examples)

    def scores(self, metric: Metric, pairs: Sequence[Pair]) -> list[Score]:
        """Per-pair results, and for a corpus metric its corpus result last."""
        examples = [p["example"] for p in pairs]
        predictions = [p["prediction"] for p in pairs]
        if isinstance(metric, CorpusMetric):
            results = metric.states(examples, predictions)
            return [s for s, _ in results] + [metric.corpus_score([state for _, state in results])]
        return metric.score_many(examples, predictions)

    # -- once per plugin -----------------------------------------------------------------

    def test_plugin_loads_with_metrics(self) -> None:
        plugins = [p for p in default_registry().plugins() if p.name == self.namespace]
        assert plugins, f"no plugin named {self.namespace!r} is installed"
        assert all(p.ok for p in plugins), [p.error for p in plugins]
        assert self.metric_keys(), f"plugin {self.namespace!r} registers no metrics"

    def test_listing_imports_nothing_heavy(self) -> None:
        implementations = {self.spec(key).implementation.partition(":")[0] for key in self.metric_keys()}
        loaded = modules_imported_by_listing()
        assert not implementations & loaded, sorted(implementations & loaded)
        own = sorted(m for m in loaded if self.package and m.startswith(f"{self.package}.")
                     and m != f"{self.package}._register")
        assert not own, own
        assert not sorted(m for m in loaded if m.split(".")[0] in self.heavy)

    # -- per metric ----------------------------------------------------------------------

    def test_spec_is_complete(self, metric_key: str) -> None:
        spec = self.spec(metric_key)
        assert MetricSpec.from_dict(spec.to_dict()).to_dict() == spec.to_dict()  # the listing cache keeps this
        missing = [name for name in ("summary", "description", "family", "inputs", "version")
                   if not getattr(spec, name)]
        assert not missing, f"{metric_key}: empty {', '.join(missing)}"
        low, high = spec.value_range
        assert low is None or high is None or low < high, f"{metric_key}: empty value range"
        undocumented = [p.name for p in spec.params if not p.description and p.name != "k"]
        assert not undocumented, f"{metric_key}: parameters without a description: {undocumented}"

    def test_parameter_names_follow_the_vocabulary(self, metric_key: str) -> None:
        problems = naming_problems(self.spec(metric_key))
        assert not problems, "; ".join(problems)

    def test_implementation_loads(self, metric_key: str) -> None:
        spec = self.spec(metric_key)
        cls = load_implementation(spec)
        kind = implementation_kind(cls)
        assert (kind == "corpus") == (spec.granularity is Granularity.CORPUS), \
            f"{metric_key}: spec says {spec.granularity.value}, {spec.implementation} is a {kind} metric"

    def test_id_round_trips(self, metric_key: str) -> None:
        metric = self.create(metric_key)
        parsed = parse_metric_id(metric.id)
        assert parsed.key == metric_key
        again = default_registry().create(metric.id, **{
            name: value for name, value in self.params.get(metric_key, {}).items() if name not in parsed.params})
        assert again.id == metric.id == canonical_id(metric.spec, metric.params)

    def test_values_lie_in_the_declared_range(self, metric_key: str) -> None:
        pairs = self.pairs(metric_key)
        if not pairs:
            pytest.skip(f"no examples for {metric_key}")
        scores = self.scores(self.create(metric_key), pairs)
        out_of_range = [s.error_message for s in scores if s.error_type == "ValueOutOfRange"]
        assert not out_of_range, out_of_range
        assert any(s.status is Status.OK and s.value is not None for s in scores), \
            f"{metric_key} scored none of its examples: {[s.reason or s.error_message for s in scores]}"

    def test_deterministic_where_declared(self, metric_key: str) -> None:
        if not self.spec(metric_key).deterministic or not self.pairs(metric_key):
            pytest.skip(f"{metric_key} is not declared deterministic or has no examples")
        first = [_comparable(s) for s in self.scores(self.create(metric_key), self.pairs(metric_key))]
        second = [_comparable(s) for s in self.scores(self.create(metric_key), self.pairs(metric_key))]
        assert first == second

    @_only(Granularity.CORPUS)
    def test_corpus_states_merge_to_the_whole(self, metric_key: str) -> None:
        metric = self.create(metric_key)
        pairs = self.pairs(metric_key)
        assert isinstance(metric, CorpusMetric), f"{metric_key} is declared corpus but is not a CorpusMetric"
        assert len(pairs) >= 2, f"{metric_key}: give at least two examples to check merging"
        states = [state for _, state in metric.states([p["example"] for p in pairs],
                                                      [p["prediction"] for p in pairs])]
        states = [s for s in states if s is not None]
        half = len(states) // 2
        whole = metric.corpus_score(states)
        parts = metric.corpus_score([metric.merge(states[:half]), metric.merge(states[half:])])
        assert _comparable(whole) == _comparable(parts)

    @_only(Granularity.SAMPLE)
    def test_dspy_style_calling(self, metric_key: str) -> None:
        metric = self.create(metric_key)
        for pair in self.pairs(metric_key):
            score = metric.score_one(pair["example"], pair["prediction"])
            if score.status is Status.OK:
                assert math.isclose(metric(pair["example"], pair["prediction"]), score.value, abs_tol=1e-12)
                passed = metric(pair["example"], pair["prediction"], trace=object())
                assert passed is metric.spec.passes(score.value)
                return
        raise AssertionError(f"{metric_key} scored none of its examples")

    def test_bad_input_is_skipped_or_an_error_with_a_message(self, metric_key: str) -> None:
        if metric_key in self.accepts_bad_inputs:
            pytest.skip(self.accepts_bad_inputs[metric_key])
        for score in self.scores(self.create(metric_key), self.bad_inputs)[: len(self.bad_inputs)]:
            assert score.status in (Status.SKIPPED, Status.ERROR), f"{metric_key} scored a bad input: {score}"
            assert score.reason or score.error_message, f"{metric_key}: {score.status.value} without a message"


def _exact(gold: Mapping[str, Any], pred: Mapping[str, Any], trace: Any = None) -> float:
    """A DSPy-style metric for the component checks: the response equals the reference answer."""
    return float(pred.get("response") == gold.get("reference_answer"))


class ComponentConformance:
    """Subclass it in a test module (its name starting with ``Test``) and set ``namespace``: the
    checks every executor, tracker, command and reader of the plugin must pass."""

    namespace: ClassVar[str] = ""
    """The plugin's namespace (its entry-point name)."""
    heavy: ClassVar[tuple[str, ...]] = ("numpy", "torch", "httpx", "transformers", "ray", "mlflow", "wandb")
    """Top-level modules that listing must not import."""
    examples: ClassVar[Sequence[Mapping[str, Any]]] = [
        {"id": str(i), "example": {"reference_answer": "Paris"},
         "prediction": {"response": "Paris" if i % 3 else "Rome"}} for i in range(12)
    ]
    """Records the executors score and the trackers log."""
    executor_options: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Options to run particular executors with (by name)."""
    tracker_options: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Options to open particular trackers with (by name); a value ``"{tmp_path}"`` is the test's folder."""

    def components(self, kind: str) -> list[Any]:
        """The plugin's components of ``kind`` (``readers``, ``executors``, ``trackers``, ``commands``)."""
        return [spec for spec in default_registry().components(kind) if spec.namespace == self.namespace]

    def every_component(self) -> list[Any]:
        return [spec for kind in COMPONENT_KINDS for spec in self.components(kind)]

    def test_plugin_loads_with_components(self) -> None:
        plugins = [p for p in default_registry().plugins() if p.name == self.namespace]
        assert plugins, f"no plugin named {self.namespace!r} is installed"
        assert all(p.ok for p in plugins), [p.error for p in plugins]
        assert self.every_component(), f"plugin {self.namespace!r} provides no executor, tracker, command or reader"

    def test_listing_imports_nothing_heavy(self) -> None:
        implementations = {spec.implementation.partition(":")[0] for spec in self.every_component()}
        loaded = modules_imported_by_listing()
        assert not implementations & loaded, sorted(implementations & loaded)
        assert not {m.partition(".")[0] for m in loaded} & set(self.heavy), sorted(loaded)

    def test_options_follow_the_vocabulary(self) -> None:
        problems = []
        for kind in ("executors", "trackers"):
            for spec in self.components(kind):
                prefix = f"--{spec.name.replace('_', '-')}-"
                problems += [f"{spec.kind} {spec.name}: flag {o.flag} should start with {prefix}"
                             for o in spec.options if not o.flag.startswith(prefix)]
        for spec in self.every_component():
            problems += [f"{spec.kind} {spec.name}: option {o.dest!r} should be named {canonical_name(o.dest)!r}"
                         for o in spec.options if canonical_name(o.dest) is not None]
        assert not problems, problems

    def test_implementations_load_as_their_kind_requires(self) -> None:
        import click

        for spec in self.every_component():
            loaded = spec.load()
            if spec.kind == "command":
                assert isinstance(loaded, click.Command), f"command {spec.name}: {loaded!r} is not a click command"
            else:
                assert callable(loaded), f"{spec.kind} {spec.name}: {spec.implementation} is not callable"

    def test_executors_give_the_local_numbers(self) -> None:
        for spec in self.components("executors"):
            local = evalcore.evaluate(list(self.examples), [_exact], progress=False)
            there = evalcore.evaluate(list(self.examples), [_exact], progress=False, executor=spec.name,
                                      executor_options=dict(self.executor_options.get(spec.name, {})))
            assert there.provenance["executor"] == spec.name
            summaries = {k: m.to_dict() for k, m in local.metrics.items()}
            assert {k: m.to_dict() for k, m in there.metrics.items()} == summaries
            assert [(r["id"], r["scores"]) for r in there.samples] == [(r["id"], r["scores"]) for r in local.samples]

    def test_trackers_log_a_run(self, tmp_path: Any) -> None:
        for spec in self.components("trackers"):
            options = {k: str(v).replace("{tmp_path}", str(tmp_path)) if isinstance(v, str) else v
                       for k, v in self.tracker_options.get(spec.name, {}).items()}
            tracker = open_tracker(spec.name, options)
            where = tracker.log_evaluation(evalcore.evaluate(list(self.examples), [_exact], progress=False))
            assert isinstance(where, str) and where.strip(), f"tracker {spec.name}: log_evaluation returned {where!r}"


def _comparable(score: Score) -> tuple[Any, ...]:
    value = None if score.value is None else round(score.value, 12)
    return score.status, value, score.reason, score.error_type
