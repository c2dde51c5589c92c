"""Metric specs of the system plugin (imports only ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import MetricSpec, ParamSpec, TargetCategory, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_PKG = "evalcore_system"
_UNITS = (
    "Latency comes from `prediction.timings` at `timing_field` (the Auepora RAG metric spec; default 'end_to_end', "
    "a dotted path for nested timings) "
    "and, when that is absent, from `prediction.duration_ms` (the benchmark engine's registry); `source` restricts it "
    "to one of them. Values are used in the unit they are recorded in: evalcore's convention "
    "is milliseconds (`duration_ms` is milliseconds by definition), so keep `timings` in "
    "milliseconds too. A sample without a latency is skipped; a non-number or a negative "
    "value is an error for that sample."
)
_CORPUS = (
    "Corpus metric with mergeable state, so values over shards merge exactly. With no values "
    "at all the result is skipped by default (0.0 would read as a perfect latency), with num_samples = 0; "
    "`convention='rag'` gives the Auepora RAG metric spec's value instead: \"If no samples are evaluated "
    "[...] return value = `0.0` and `details[\"num_samples\"] = 0`\"."
)


def _timing_params() -> tuple[ParamSpec, ...]:
    return (
        ParamSpec(name="timing_field", type="str", default="end_to_end", identity=True, aliases=("timing_key",),
                  description="dotted path of the latency inside prediction.timings"),
        ParamSpec(name="source", type="str", default="auto", identity=True,
                  choices=("auto", "timings", "duration_ms"),
                  description="'auto': the timing at timing_field, else duration_ms"),
        ParamSpec(name="convention", type="str", default="skip", identity=True, choices=("skip", "rag"),
                  description="no latency at all: skip the result, or 0.0 with num_samples 0 "
                              "(the Auepora RAG metric spec)"),
    )


def _spec(name: str, cls: str, **fields: object) -> MetricSpec:
    fields.setdefault("tier", "proxy")
    fields.setdefault("cost_msats", 0)
    fields.setdefault("deterministic", True)
    return MetricSpec(name=name, implementation=f"{_PKG}.{cls}", **fields)  # type: ignore[arg-type]


def _mean_latency() -> MetricSpec:
    return _spec(
        "mean_latency", "latency:MeanLatency",
        summary="Mean latency over all predictions.",
        description=(
            "The Auepora MeanLatency: the arithmetic mean of the latencies. The state is the "
            "count and the exact (rational) sum, so the mean does not depend on sharding or "
            "order. Each record shows its own latency. " + _UNITS + " " + _CORPUS
        ),
        family="latency", target=TargetCategory.LATENCY, direction="lower", value_range=(0.0, None), unit="ms",
        inputs=("prediction.timings", "prediction.duration_ms"), granularity="corpus",
        params=_timing_params(), version="1",
    )


def _quantile_latency() -> MetricSpec:
    return _spec(
        "quantile_latency", "latency:QuantileLatency",
        summary="Latency quantile (p95 by default): sorted value at index ceil(q·n) − 1.",
        description=(
            "The Auepora QuantileLatency: sort the n latencies ascending and return the value "
            "at 0-based index ceil(q·n) − 1 — the lower empirical quantile, numpy's "
            "`method='inverted_cdf'`, not numpy's default linear interpolation. q is read as the "
            "decimal it is written as (q = 0.07, n = 100 gives index 6) and q = 0 gives the "
            "minimum. Details num_samples, quantile, index. " + _UNITS + " " + _CORPUS
        ),
        family="latency", target=TargetCategory.LATENCY, direction="lower", value_range=(0.0, None), unit="ms",
        inputs=("prediction.timings", "prediction.duration_ms"), granularity="corpus",
        params=(
            ParamSpec(name="quantile", type="float", default=0.95, identity=True, minimum=0.0, maximum=1.0,
                      description="the quantile q in [0, 1] (0.95: p95)"),
            *_timing_params(),
        ),
        version="1",
    )


def _technical_performance() -> MetricSpec:
    return _spec(
        "technical_performance", "latency:TechnicalPerformance",
        summary="Run succeeded and its latency is within the threshold (default 2000 ms).",
        description=(
            "The benchmark engine's technical_performance: fast_enough = latency <= latency_threshold_ms "
            "(default 2000, as in the benchmark engine); when the prediction has a `status`, it must be one of "
            "`ok_statuses` (case-insensitive). Value 1.0 when both hold, else 0.0; details "
            "latency_ms, fast_enough, status, status_ok. " + _UNITS
        ),
        family="latency", target=TargetCategory.LATENCY, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.duration_ms", "prediction.timings", "prediction.status"),
        params=(
            ParamSpec(name="latency_threshold_ms", type="float", default=2000.0, identity=True, minimum=0.0,
                      description="largest latency, in milliseconds, that counts as fast enough"),
            ParamSpec(name="ok_statuses", type="list", default=("ok", "success", "succeeded", "completed"),
                      identity=True, description="statuses that count as a successful run"),
            *_timing_params(),
        ),
        version="1",
    )


def _cost_efficiency() -> MetricSpec:
    return _spec(
        "cost_efficiency", "cost:CostEfficiency",
        summary="Score per unit of cost (score / cost); not supported when no cost or usage is recorded.",
        description=(
            "The benchmark engine's cost_efficiency: efficiency = score / cost. The score is `score_value`, or "
            "the number at `score_field` in the prediction (e.g. 'metrics.accuracy_score', an "
            "earlier metric on the record); one of them is required. The cost is the number at "
            "`cost_field` (default 'cost'), else the token count of `prediction.usage` "
            "(total_tokens, else prompt+completion or input+output tokens) × `token_to_cost_rate` "
            "(default 1.0: the cost is the token count; the benchmark engine's example uses 0.5). Without a "
            "cost the sample is skipped as 'not supported: missing_usage' (the benchmark engine's reason), "
            "without a score 'missing_score', with a zero cost 'zero_cost'; details carry "
            "supported/efficiency/reason as in the benchmark engine. Units: score units per cost unit."
        ),
        family="cost", target=TargetCategory.COST, direction="higher", value_range=(0.0, None),
        inputs=("prediction.cost", "prediction.usage", "prediction.metrics"),
        params=(
            ParamSpec(name="score_value", type="float", default=None, nullable=True, identity=True,
                      description="the score to divide by the cost; None reads it from score_field"),
            ParamSpec(name="score_field", type="str", default=None, nullable=True, identity=True,
                      aliases=("score_field_path",),
                      description="dotted path of the score in the prediction (e.g. 'metrics.accuracy')"),
            ParamSpec(name="cost_field", type="str", default="cost", identity=True, aliases=("cost_field_path",),
                      description="dotted path of the cost in the prediction; else tokens × token_to_cost_rate"),
            ParamSpec(name="token_to_cost_rate", type="float", default=1.0, identity=True, minimum=0.0,
                      description="cost per token when the cost comes from the token usage"),
        ),
        version="1",
    )


def _distinct_n() -> MetricSpec:
    return _spec(
        "distinct_n", "diversity:DistinctN",
        summary="Distinct-n: unique n-grams / total n-grams over all responses (n = 2).",
        description=(
            "The Auepora DistinctN: gather the n-grams of every response (whitespace tokens; "
            "`ignore_case=True` case-folds first) and divide the number of distinct n-grams by the "
            "total number. This is the corpus-level form (Li et al., 2016); each record shows its "
            "own ratio. The state is the n-gram multiset, so shards merge exactly. Responses "
            "shorter than n add nothing; a corpus without any n-gram is skipped (the Auepora RAG metric spec "
            "would report 0.0). A missing response is skipped."
        ),
        family="diversity", target=TargetCategory.DIVERSITY, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response",), granularity="corpus",
        params=(
            ParamSpec(name="n", type="int", default=2, identity=True, minimum=1, description="n-gram length"),
            ParamSpec(name="ignore_case", type="bool", default=False, identity=True, aliases=("lowercase",),
                      description="case-fold the responses before counting"),
        ),
        version="1",
    )


def _intra_list_diversity() -> MetricSpec:
    return _spec(
        "intra_list_diversity", "diversity:IntraListDiversity",
        summary="1 − mean pairwise cosine similarity of the top-k retrieved documents' embeddings.",
        description=(
            "The Auepora IntraListDiversity: for the first `k` (default 5) documents of "
            "`prediction.retrieved`, take the pre-computed `doc['metadata']['embedding']`, and "
            "return 1 − the mean cosine similarity over all unordered pairs (range 0 to 2; 0 when "
            "all are parallel). The aggregate is the mean over samples. A sample whose top-k "
            "documents lack an embedding, or with fewer than two documents, is skipped with the "
            "reason (and counted as skipped); zero vectors or unequal lengths are an error."
        ),
        family="diversity", target=TargetCategory.DIVERSITY, direction="higher", value_range=(0.0, 2.0),
        inputs=("prediction.retrieved",), requires=("numpy",),
        params=(ParamSpec(name="k", type="int", default=5, identity=True, minimum=2, aliases=("top_k",),
                          description="how many leading retrieved documents are compared"),),
        version="1",
    )


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The system plugin's metrics."""
    return [
        _mean_latency(), _quantile_latency(), _technical_performance(), _cost_efficiency(),
        _distinct_n(), _intra_list_diversity(),
    ]
