"""Registration of the judge metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import MetricSpec, ParamSpec, TargetCategory, Tier, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_MODULE = "evalcore_judge.metrics"
_BACKEND = """
The judge is chosen by configuration: `judge` (a Python callable, "module:attr", an LLMCritic
object with score / ascore as the Auepora RAG metric spec defines it, or "dspy" for the LM
DSPy is configured with), or an OpenAI-compatible server from `base_url` / `model` (or
$EVALCORE_JUDGE_BASE_URL or $OPENAI_BASE_URL / $EVALCORE_JUDGE_MODEL) through the official
openai client, with the API key in the variable named by `api_key_env`
($EVALCORE_JUDGE_API_KEY_ENV, default OPENAI_API_KEY), or `backend='litellm'` with a LiteLLM
model string (extra evalcore-judge[litellm]), or `backend='transformers'` with a local `model`
path. With nothing set and DSPy configured with an LM, that LM judges. Decoding is greedy
(temperature 0, fixed seed); the prompt template hash is in the details. Each prompt declares
its answer as a JSON schema (scores on the scale and an explanation), sent as OpenAI structured
output where the server takes it (else as an instruction in the prompt) and always validated;
an answer that fails validation gets one repair request. Validated answers are cached on disk
(key: metric id and version, template hash, model, decoding, inputs); `cache_mode` is
readwrite, readonly, refresh or off. An answer that fails validation twice is an error result
with the raw answers in details, never 0 or NaN."""

COMMON = (
    ParamSpec(name="judge", type="any", description="callable, 'module:attr', LLMCritic object, or 'dspy'"),
    ParamSpec(name="backend", type="str", choices=("http", "litellm", "dspy", "callable", "transformers"),
              description="default: implied by judge / base_url / a configured DSPy LM, or $EVALCORE_JUDGE_BACKEND"),
    ParamSpec(name="base_url", type="str", description="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1"),
    ParamSpec(name="model", type="str",
              description="model name (http), LiteLLM model string (litellm) or local path (transformers)"),
    ParamSpec(name="api_key_env", type="str", description="environment variable holding the API key"),
    ParamSpec(name="gguf_file", type="str", description="GGUF file name inside a local model directory"),
    ParamSpec(name="temperature", type="float", default=0.0, minimum=0.0, description="sampling temperature"),
    ParamSpec(name="seed", type="int", default=0, nullable=True, description="sent where the backend takes one"),
    ParamSpec(name="max_tokens", type="int", default=256, minimum=1, description="longest answer, in tokens"),
    ParamSpec(name="timeout_s", type="float", default=60.0, minimum=0.001, description="seconds per attempt",
              aliases=("timeout",)),
    ParamSpec(name="max_retries", type="int", default=4, minimum=0,
              description="retries on 429, 5xx, timeouts and refused connections"),
    ParamSpec(name="backoff_base", type="float", default=0.5, minimum=0.0, description="first retry wait, seconds"),
    ParamSpec(name="concurrency", type="int", default=8, minimum=1, description="concurrent calls at most"),
    ParamSpec(name="cache_mode", type="str", nullable=True, aliases=("cache",),
              choices=("readwrite", "readonly", "refresh", "off"),
              description="how the answer cache is used (default: the run's --cache-mode, else readwrite)"),
    ParamSpec(name="cache_dir", type="str",
              description="default: the run's --cache-dir, else $EVALCORE_CACHE_DIR or ~/.cache/evalcore"),
    ParamSpec(name="prices", type="dict",
              description="model -> (prompt, completion) msats per 1000 tokens; '*' sets the default"),
    ParamSpec(name="max_input_chars", type="int", default=200_000, minimum=1,
              description="longest prompt input; longer inputs are an error for the sample"),
)
_SCALE = ParamSpec(name="scale", type="str", default="0-1", choices=("0-1", "1-5", "0-10"),
                   description="scale the judge answers on; normalised to [0, 1]")
_EVIDENCE = (
    ParamSpec(name="evidence_source", type="str", default="retrieved", choices=("retrieved", "relevant"),
              identity=True, description="evidence from prediction.retrieved or example.relevant_docs"),
    ParamSpec(name="k", type="int", minimum=1, description="use only the first k documents", aliases=("top_k",)),
)
_LIST_ANSWER = ParamSpec(name="max_tokens", type="int", default=2048, minimum=1,
                         description="longest answer, in tokens (room for a list of statements and verdicts)")
_THRESHOLD = ParamSpec(name="threshold", type="float", default=0.66, minimum=0.0, maximum=1.0,
                       description="pass mark when called DSPy-style with a trace")


def _spec(name: str, summary: str, description: str, **fields: object) -> MetricSpec:
    params = tuple(fields.pop("params", ()))  # type: ignore[arg-type]
    own = {p.name for p in params}  # a metric's own default replaces the common one of that name
    return MetricSpec(
        name=name, implementation=f"{_MODULE}:{fields.pop('cls')}", summary=summary,
        description=description.strip() + "\n" + _BACKEND, family="llm_judge", tier=Tier.TRUTH,
        deterministic=False, env=("OPENAI_API_KEY",), requires=("openai",),
        params=tuple(p for p in COMMON if p.name not in own) + params,
        **fields,  # type: ignore[arg-type]
    )


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    return [
        _spec("faithfulness", "LLM-judged support of the answer by the retrieved or relevant evidence.",
              "As in the Auepora RAG metric spec. The judge sees the question, the evidence passages and "
              "the answer and "
              "scores support on `scale` (normalised to [0, 1]).",
              cls="Faithfulness", target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=150,
              inputs=("example.query", "prediction.response", "prediction.retrieved", "example.relevant_docs"),
              params=(*_EVIDENCE, _SCALE), version="1"),
        _spec("answer_quality", "LLM-judged relevance, helpfulness and clarity of the answer, weighted.",
              "As in the Auepora RAG metric spec. One call rates each of `dimensions`; the value is "
              "their `weights`-weighted "
              "mean (equal weights by default).",
              cls="AnswerQuality", target=TargetCategory.GENERATION_RELEVANCE, cost_msats=120,
              inputs=("example.query", "prediction.response"),
              params=(ParamSpec(name="dimensions", type="list", default=("relevance", "helpfulness", "clarity"),
                                identity=True, description="what the judge rates, one score each"),
                      ParamSpec(name="weights", type="dict", description="dimension -> weight"), _SCALE),
              version="1"),
        _spec("semantic_f1", "DSPy SemanticF1: F1 of the judge's precision and recall of key ideas.",
              "The judge compares the response with the reference answer and gives recall (share of the "
              "reference covered) and precision (share of the response covered by the reference); the "
              "value is their F1. `decompositional` first lists the key ideas of each. Called with a "
              "trace it returns score >= threshold (default 0.66).",
              cls="SemanticF1", target=TargetCategory.GENERATION_CORRECTNESS, cost_msats=150,
              pass_threshold=0.66, inputs=("example.query", "example.reference_answer", "prediction.response"),
              params=(ParamSpec(name="decompositional", type="bool", default=False, identity=True,
                                description="DSPy's decompositional prompt (key ideas first)"), _THRESHOLD),
              version="1"),
        _spec("complete_and_grounded", "DSPy CompleteAndGrounded: F1 of completeness and groundedness.",
              "Two calls: completeness of the response against the reference answer, groundedness of "
              "the response in the evidence; the value is their F1. Called with a trace it returns "
              "score >= threshold (default 0.66).",
              cls="CompleteAndGrounded", target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=300,
              pass_threshold=0.66,
              inputs=("example.query", "example.reference_answer", "prediction.response", "prediction.retrieved"),
              params=(*_EVIDENCE, _THRESHOLD), version="1"),
        _spec("llm_judge", "LLM judge with a system prompt and criteria; its explanation in details.",
              "The dsrs LlmJudgeMetric. The judge gets `system_prompt`, the `criteria`, the input, the "
              "reference when there is one, and the output, and gives a score and an explanation.",
              cls="LlmJudge", target=TargetCategory.GENERATION_CORRECTNESS, cost_msats=100,
              inputs=("example.query", "prediction.response", "example.reference_answer"),
              params=(ParamSpec(name="system_prompt", type="str",
                                default="You are a careful, impartial evaluator.", identity=True,
                                description="the judge's system prompt"),
                      ParamSpec(name="criteria", type="list", default=("correctness", "completeness"),
                                identity=True, description="criteria the judge is asked to apply"), _SCALE),
              version="1"),
        _spec("diff_semantic", "Semantic level of the diff check: LLM-judged equivalence of expected and actual.",
              "The dsrs DiffMetric with strictness Semantic: 1 when the judge finds the prediction field "
              "and the reference answer semantically equivalent, 0 when not.",
              cls="DiffSemantic", target=TargetCategory.GENERATION_CORRECTNESS, cost_msats=50,
              inputs=("example.reference_answer", "prediction.response"),
              params=(ParamSpec(name="field", type="str", default="response", identity=True,
                                description="dotted path of the compared prediction field"),),
              version="1"),
        _spec("claim_faithfulness", "Share of the response's statements that the evidence supports.",
              "ragas' Faithfulness (DeepEval's FaithfulnessMetric computes the same ratio). Two calls: the "
              "judge breaks the response into standalone statements, then gives each statement a verdict, 1 "
              "if it can be directly inferred from the evidence and 0 if not, with a reason. Value = supported "
              "statements / statements (over the verdicts the judge returns, as ragas counts them). A "
              "response in which the judge finds no statement is skipped with that "
              "reason (ragas scores it NaN); a sample without evidence or with an empty response is skipped "
              "before any call. The details keep the statements, each verdict and its reason. Given the same "
              "verdicts the value equals ragas'.",
              cls="ClaimFaithfulness", target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=300,
              inputs=("example.query", "prediction.response", "prediction.retrieved", "example.relevant_docs"),
              params=(*_EVIDENCE, _LIST_ANSWER), version="1"),
        _spec("context_precision", "Average precision of the retrieved contexts, judged useful or not one by one.",
              "ragas' LLMContextPrecisionWithReference (`reference='answer'`, the default: is the context "
              "useful for arriving at the reference answer?) and LLMContextPrecisionWithoutReference "
              "(`reference='none'`: useful for the response?). One call per retrieved context, in rank "
              "order, each a verdict 1/0 with a reason, as ragas asks (one context per prompt, so a "
              "verdict never depends on the other contexts). Value, as ragas computes it: "
              "sum over ranks k of precision@k * v_k, divided by (number of useful contexts + 1e-10); 0 "
              "when no context is useful (so all useful gives 0.9999999999). No retrieved context, or no "
              "reference answer where `reference='answer'`, skips the sample. Given the same verdicts the "
              "value equals ragas'.",
              cls="ContextPrecision", target=TargetCategory.RETRIEVAL_RELEVANCE, cost_msats=100,
              inputs=("example.query", "example.reference_answer", "prediction.response", "prediction.retrieved"),
              params=(ParamSpec(name="reference", type="str", default="answer", choices=("answer", "none"),
                                identity=True,
                                description="judge usefulness for the reference answer, or ('none') the response"),
                      ParamSpec(name="k", type="int", minimum=1, description="use only the first k contexts",
                                aliases=("top_k",))),
              version="1"),
        _spec("context_recall", "Share of the reference answer's sentences attributable to the retrieved contexts.",
              "ragas' LLMContextRecall. One call: the judge classifies each sentence of the reference answer "
              "as attributable to the contexts (1) or not (0), with a reason. Value = attributed sentences / "
              "sentences. No reference answer or no context skips the sample; a reference in which the judge "
              "finds no sentence is skipped with that reason (ragas scores it NaN). Given the same "
              "classifications the value equals ragas'.",
              cls="ContextRecall", target=TargetCategory.RETRIEVAL_RELEVANCE, cost_msats=150,
              inputs=("example.query", "example.reference_answer", "prediction.retrieved", "example.relevant_docs"),
              params=(*_EVIDENCE, _LIST_ANSWER), version="1"),
    ]
