"""Registration of the ``robustness`` metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    Granularity,
    MetricSpec,
    ParamSpec,
    TargetCategory,
    Tier,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_PKG = "evalcore_robustness"
_LINKS = (
    " Records are linked by labels.variant_of (the record id of the base sample, example.id); "
    "variants whose link names no record, links that form a cycle and duplicate record ids are "
    "listed in the details and the feedback. An empty subset makes the result skipped with the "
    "reason and the counts (the Auepora RAG metric spec would report 0.0, which reads as total failure)."
)

DEFAULT_REFUSALS = ("i don't know", "cannot answer", "not enough information")


def _specs() -> list[MetricSpec]:
    return [
        MetricSpec(
            name="noise_robustness", implementation=f"{_PKG}.noise:NoiseRobustness",
            summary="A base metric on noisy query variants divided by its value on the clean samples.",
            description=(
                "From the Auepora RAG metric spec: base set = samples without labels.variant_of; "
                "noisy set = samples with "
                "labels.variant_of and labels.scenario in noise_scenarios (default paraphrase, typo). "
                "The base metric (any metric id, e.g. overlap/token_f1 or retrieval/recall@5, with "
                "metric_params) is computed on each set: the mean of its per-sample values (skipped "
                "and failed samples left out and counted), or its corpus value for a corpus metric. "
                "Value = noisy_score / base_score, 0 when base_score is 0; details carry both scores "
                "and per-set counts. Above 1 when the noisy set scores higher." + _LINKS
            ),
            family="robustness", target=TargetCategory.NOISE_ROBUSTNESS, tier=Tier.PROXY,
            value_range=(0.0, None), granularity=Granularity.CORPUS,
            params=(
                ParamSpec(name="metric", type="str", required=True, identity=True,
                          description="id of the base metric"),
                ParamSpec(name="metric_params", type="dict", default=None, nullable=True, identity=True,
                          description="parameters of the base metric"),
                ParamSpec(name="noise_scenarios", type="list", default=("paraphrase", "typo"), identity=True,
                          description="labels.scenario values that count as noise"),
            ),
            inputs=("example.id", "example.labels.variant_of", "example.labels.scenario"),
            deterministic=False, version="1",
        ),
        MetricSpec(
            name="negative_rejection", implementation=f"{_PKG}.rejection:NegativeRejection",
            summary="Rate of refusals on unanswerable queries.",
            description=(
                "From the Auepora RAG metric spec: on samples with labels.scenario == scenario "
                "(default 'unanswerable'; "
                "others are skipped) the value is 1.0 when the response, lower-cased and stripped, "
                "contains any refusal pattern (default: \"i don't know\", \"cannot answer\", \"not "
                "enough information\"), else 0.0; the mean over samples is the negative rejection "
                "rate. Typographic apostrophes are read as ASCII ones in both response and patterns."
            ),
            family="robustness", target=TargetCategory.NEGATIVE_REJECTION, tier=Tier.PROXY,
            value_range=(0.0, 1.0),
            params=(
                ParamSpec(name="refusal_patterns", type="list", default=DEFAULT_REFUSALS,
                          description="substrings that mark a refusal"),
                ParamSpec(name="scenario", type="str", default="unanswerable",
                          description="labels.scenario of the negative samples"),
            ),
            inputs=("example.labels.scenario", "prediction.response"), version="1",
        ),
        MetricSpec(
            name="counterfactual_consistency", implementation=f"{_PKG}.counterfactual:CounterfactualConsistency",
            summary="Mean similarity between each counterfactual variant's answer and its base sample's.",
            description=(
                "From the Auepora RAG metric spec: for each sample with labels.variant_of and "
                "labels.scenario == scenario "
                "(default 'counterfactual'; None: any variant), the similarity metric scores its response "
                "against the base sample's response (given to it as reference_answer). Value = mean "
                "similarity over the pairs. The similarity is a metric id: overlap/token_f1 by default "
                "(the Auepora RAG metric spec asks for a semantic metric: use an embedding metric id when the semantic "
                "plugin is installed)." + _LINKS
            ),
            family="robustness", target=TargetCategory.COUNTERFACTUAL_ROBUSTNESS, tier=Tier.PROXY,
            value_range=(0.0, 1.0), granularity=Granularity.CORPUS,
            params=(
                ParamSpec(name="similarity", type="str", default="overlap/token_f1", identity=True,
                          description="id of the pairwise similarity metric"),
                ParamSpec(name="similarity_params", type="dict", default=None, nullable=True, identity=True,
                          description="parameters for the similarity metric"),
                ParamSpec(name="scenario", type="str", default="counterfactual", nullable=True, identity=True,
                          description="labels.scenario of the counterfactual variants (None: any)"),
            ),
            inputs=("example.id", "example.labels.variant_of", "example.labels.scenario", "prediction.response"),
            deterministic=False, version="1",
        ),
        MetricSpec(
            name="robustness", implementation=f"{_PKG}.expected_signal:ExpectedSignal",
            summary="Expected-signal score: how much of example.expected_signal the response keeps.",
            description=(
                "The benchmark engine's registry (built-in `robustness`, output robustness_score): "
                "mode 'normalized_overlap' "
                "(default) = share of the distinct tokens of the expected signal that occur in the "
                "response, both normalised like DSPy's normalize_text (lower case, no punctuation or "
                "articles); mode 'exact_casefold' = 1.0 when the stripped, case-folded response equals "
                "the expected signal. The signal is the expected_signal parameter or "
                "example.expected_signal; none, or one without tokens, skips the sample."
            ),
            family="robustness", target=TargetCategory.NOISE_ROBUSTNESS, tier=Tier.PROXY,
            value_range=(0.0, 1.0),
            params=(
                ParamSpec(name="mode", type="str", default="normalized_overlap", identity=True,
                          choices=("normalized_overlap", "exact_casefold"),
                          description="'normalized_overlap': share of the signal's tokens kept; "
                                      "'exact_casefold': 1 when the whole signal occurs"),
                ParamSpec(name="expected_signal", type="str", default=None, nullable=True,
                          description="overrides example.expected_signal"),
            ),
            inputs=("example.expected_signal", "prediction.response"), version="1",
        ),
    ]


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The metric specs of the ``robustness`` plugin."""
    return _specs()
