"""Registration of the semantic metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    CACHE_MODES,
    MetricSpec,
    ParamSpec,
    ReaderOption,
    SettingsSpec,
    TargetCategory,
    Tier,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics", "evalcore_settings"]

PLUGIN_API_VERSION = 2  # the evalcore plugin API these specs are written for

_MODULE = "evalcore_semantic.metrics"
_OFFLINE = """
Offline by default: `model` is a local model directory and nothing is downloaded unless
`allow_download=True`; a missing model is an error naming what to install or pass. Empty
texts are skipped with a reason."""

_MODEL = (
    ParamSpec(name="model", type="str",
              description="local model directory (default: the run's --embedding-model, else "
                          "$EVALCORE_EMBEDDING_MODEL), or the endpoint's model"),
    ParamSpec(name="device", type="str", default="cpu", description="torch device of a local model"),
    ParamSpec(name="batch_size", type="int", default=32, minimum=1, description="texts embedded per call"),
    ParamSpec(name="allow_download", type="bool", default=False, description="let transformers fetch from a hub"),
)
_EMBEDDER = (
    *_MODEL,
    ParamSpec(name="embed", type="any", description="callable: list of texts -> list of vectors"),
    ParamSpec(name="base_url", type="str", description="OpenAI-compatible API root serving /embeddings"),
    ParamSpec(name="api_key_env", type="str", description="environment variable holding the API key"),
    ParamSpec(name="cache_mode", type="str", nullable=True, aliases=("cache",),
              choices=CACHE_MODES,
              description="how the vector cache is used (default: the run's --cache-mode, else readwrite)"),
    ParamSpec(name="cache_dir", type="str",
              description="default: the run's --cache-dir, else $EVALCORE_CACHE_DIR or ~/.cache/evalcore"),
)
_COMPARE = ParamSpec(name="compare_to", type="str", default="reference", choices=("reference", "query"),
                     identity=True, description="compare the response with the reference answer or the query")
_MODELS = ("torch==2.13.0", "transformers", "sentence-transformers")


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    return [
        MetricSpec(
            name="embedding_similarity", implementation=f"{_MODULE}:EmbeddingSimilarity",
            summary="Cosine similarity of response and reference (or query) embeddings.",
            description="As in the Auepora RAG metric spec. Embeddings from a callable (`embed`), a local "
                        "sentence-transformers or "
                        "transformers model (mean pooling, L2-normalised), or an OpenAI-compatible /v1/embeddings "
                        "endpoint (`base_url`, `model`). With several references the best cosine counts. "
                        "Vectors are cached on disk by embedder and text." + _OFFLINE,
            family="semantic", target=TargetCategory.GENERATION_CORRECTNESS, tier=Tier.PROXY,
            value_range=(-1.0, 1.0), inputs=("prediction.response", "example.reference_answer", "example.query"),
            params=(_COMPARE, *_EMBEDDER), requires=_MODELS, version="1",
            verified_against="sentence-transformers' normalised embeddings (cosine of the same model)", tolerance=1e-6,
        ),
        MetricSpec(
            name="bertscore", implementation=f"{_MODULE}:BertScore",
            summary="BERTScore precision, recall and F1 on a local model (bert-score's numbers).",
            description="From the Auepora RAG metric spec, computed as the bert-score package does: greedy "
                        "matching of token "
                        "embeddings of layer `num_layers` (default: the last), [CLS]/[SEP] weighted 0, optional "
                        "idf weights over the references of the batch, optional baseline rescaling from a "
                        "bert-score baseline file. With several references the best F1 counts (bert-score's "
                        "multi-reference rule). Details hold P, R, F1 and a signature of model and settings. "
                        "Empty texts are skipped rather than scored 0 as bert-score does." + _OFFLINE,
            family="semantic", target=TargetCategory.GENERATION_CORRECTNESS, tier=Tier.PROXY,
            inputs=("prediction.response", "example.reference_answer", "example.query"),
            params=(
                _COMPARE,
                ParamSpec(name="score_type", type="str", default="f1", choices=("f1", "precision", "recall"),
                          identity=True, description="which BERTScore is the value"),
                ParamSpec(name="num_layers", type="int", minimum=0, identity=True,
                          description="hidden layer whose token embeddings are matched"),
                ParamSpec(name="idf", type="bool", default=False, identity=True,
                          description="idf weights over the references of the batch"),
                ParamSpec(name="rescale_with_baseline", type="bool", default=False, identity=True,
                          description="rescale with the baseline in baseline_path"),
                ParamSpec(name="baseline_path", type="str", description="bert-score baseline file (LAYER,P,R,F)"),
                *_MODEL,
            ),
            value_range=(None, 1.0), requires=_MODELS, version="1",
            verified_against="bert-score BERTScorer (same model, layer, idf and baseline rescaling)", tolerance=1e-6,
        ),
        MetricSpec(
            name="intra_list_diversity", implementation=f"{_MODULE}:IntraListDiversity",
            summary="1 − mean pairwise cosine of the top-k retrieved documents, embedded by a model.",
            description="The Auepora intra-list diversity for documents without stored embeddings: the texts "
                        "of the first "
                        "`k` retrieved documents are embedded (same backends and cache as "
                        "embedding_similarity); fewer than two documents skip the sample. The system plugin "
                        "has the variant reading metadata embeddings." + _OFFLINE,
            family="diversity", target=TargetCategory.DIVERSITY, tier=Tier.PROXY, value_range=(0.0, 2.0),
            inputs=("prediction.retrieved",),
            params=(ParamSpec(name="k", type="int", default=5, minimum=2, identity=True, aliases=("top_k",),
                              description="how many leading retrieved documents are compared"), *_EMBEDDER),
            requires=_MODELS, version="1",
        ),
    ]


_SETTINGS = SettingsSpec(
    name="embedding",
    summary="the embedding model of semantic metrics; a metric's parameter of the same name wins",
    options=(
        ReaderOption("--embedding-model", "model", kind="str",
                     help="Embedding model of semantic metrics (a local model directory, or the endpoint's model "
                          "with --embedding-base-url)."),
        ReaderOption("--embedding-base-url", "base_url", kind="str",
                     help="OpenAI-compatible API root serving /embeddings."),
    ),
    variables={"model": ("EVALCORE_EMBEDDING_MODEL",)},
)


@hookimpl
def evalcore_settings() -> list[SettingsSpec]:
    """The embedding model's run settings: ``context.settings["embedding"]``."""
    return [_SETTINGS]
