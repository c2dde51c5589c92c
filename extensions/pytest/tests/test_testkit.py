"""The conformance kit: its checks on specs without a plugin installed, and the per-metric checks
parametrised with a real plugin's metrics in a pytest run."""

from __future__ import annotations

import pytest
from evalcore.plugin import MetricSpec, ParamSpec
from evalcore.testkit import PluginConformance

pytest_plugins = ["pytester"]


class _Kit(PluginConformance):
    """The kit's check run on one spec, without a plugin installed."""

    def __init__(self, spec: MetricSpec) -> None:
        self._spec = spec

    def spec(self, key: str) -> MetricSpec:
        return self._spec


def _spec(*params: ParamSpec) -> MetricSpec:
    return MetricSpec(name="x", namespace="toy", implementation="m:X", summary="s", params=params)


def test_the_kit_flags_a_parameter_named_with_a_synonym():
    kit = _Kit(_spec(ParamSpec(name="top_k", type="int", default=5, description="cut-off"),
                     ParamSpec(name="lowercase", type="bool", default=False, description="fold case")))
    with pytest.raises(AssertionError) as failure:
        kit.test_parameter_names_follow_the_vocabulary("toy/x")
    message = str(failure.value)
    assert "toy/x: parameter 'top_k' should be named 'k'" in message
    assert "ParamSpec(name='k', aliases=('top_k',))" in message
    assert "parameter 'lowercase' should be named 'ignore_case'" in message


def test_the_kit_accepts_the_canonical_name_with_the_old_one_as_alias():
    kit = _Kit(_spec(ParamSpec(name="k", type="int", default=5, description="cut-off", aliases=("top_k",)),
                     ParamSpec(name="ignore_case", type="bool", default=False, description="fold case",
                               aliases=("lowercase",))))
    kit.test_parameter_names_follow_the_vocabulary("toy/x")


def test_a_subclass_gets_one_check_per_metric_of_its_namespace(pytester):
    pytester.makepyfile("""
        from evalcore.testkit import PluginConformance

        class TestConformance(PluginConformance):
            namespace = "overlap"
            package = "evalcore_overlap"
    """)
    outcome = pytester.runpytest_subprocess("--co", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio",
                                            "-p", "no:deepeval")
    outcome.stdout.fnmatch_lines([
        "*::TestConformance::test_plugin_loads_with_metrics",
        "*::TestConformance::test_spec_is_complete[[]overlap/token_f1[]]",
        "*::TestConformance::test_corpus_states_merge_to_the_whole[[]overlap/bleu[]]",
    ])
    sample_only = [line for line in outcome.stdout.lines if "test_dspy_style_calling[overlap/bleu]" in line]
    assert sample_only == []  # a corpus metric gets no sample-only check
