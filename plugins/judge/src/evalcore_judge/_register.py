"""Registration of the judge metrics (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import (
    CACHE_MODES,
    BackendSpec,
    CommandSpec,
    MetricSpec,
    ParamSpec,
    ReaderOption,
    SettingsSpec,
    TargetCategory,
    Tier,
    hookimpl,
)

__all__ = ["PLUGIN_API_VERSION", "evalcore_backends", "evalcore_commands", "evalcore_metrics", "evalcore_settings"]

PLUGIN_API_VERSION = 2  # the evalcore plugin API these specs are written for

_MODULE = "evalcore_judge.metrics"
_BACKEND = """
The judge is chosen by configuration: `judge` (a Python callable, "module:attr" when the run
allows code loading with --allow-code or allow_code=True, an LLMCritic
object with score / ascore as the Auepora RAG metric spec defines it (or its class, made with no
arguments), or "dspy" for the LM DSPy is configured with), or an OpenAI-compatible server from `base_url` / `model` (or
$EVALCORE_JUDGE_BASE_URL or $OPENAI_BASE_URL / $EVALCORE_JUDGE_MODEL) over HTTP,
with the API key in the variable named by `api_key_env`
($EVALCORE_JUDGE_API_KEY_ENV, default OPENAI_API_KEY), or `backend='litellm'` with a LiteLLM
model string (extra evalcore-judge[litellm]), or `backend='transformers'` with a local `model`
path. With nothing set and DSPy configured with an LM, DSPy's LM judges: the one configured
where the metric is called (dspy.configure / dspy.context), as for DSPy's own metrics, with
evalcore's answer cache off unless a cache mode is set (the LM has its own). Decoding is greedy
(temperature 0, fixed seed) unless `temperature` / `seed` or the run's --judge-temperature /
--judge-seed say otherwise; the prompt template hash is in the details. Each prompt declares
its answer as a JSON schema (scores on the scale and an explanation), sent as OpenAI structured
output where the server takes it (else as an instruction in the prompt) and always validated;
an answer that fails validation gets one repair request. Validated answers are cached on disk
(key: metric id and version, template hash, model, decoding, inputs); `cache_mode` is
readwrite, readonly, refresh or off. An answer that fails validation twice is an error result
with the raw answers in details, never 0 or NaN. `n` samples per judge and a panel of `judges`
are aggregated by `aggregate_by` (mean, or majority with ties to the lowest tied value); the row
keeps every judgement and their spread, the aggregate the agreement between the panel's judges
(Cohen's and Fleiss' kappa, Krippendorff's alpha)."""

COMMON = (
    ParamSpec(name="judge", type="any",
              description="callable, 'module:attr' (imported only when the run allows code: --allow-code), "
                          "LLMCritic object, or 'dspy'"),
    ParamSpec(name="backend", type="str",
              description="http, litellm, dspy, callable, transformers or a judge backend another plugin adds "
                          "(default: implied by judge / base_url / a configured DSPy LM, or $EVALCORE_JUDGE_BACKEND)"),
    ParamSpec(name="base_url", type="str", description="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1"),
    ParamSpec(name="model", type="str",
              description="model name (http), LiteLLM model string (litellm) or local path (transformers)"),
    ParamSpec(name="api_key_env", type="str", description="environment variable holding the API key"),
    ParamSpec(name="gguf_file", type="str", description="GGUF file name inside a local model directory"),
    ParamSpec(name="temperature", type="float", nullable=True, minimum=0.0,
              description="sampling temperature (default: the run's --judge-temperature, else 0)"),
    ParamSpec(name="seed", type="int", nullable=True,
              description="sent where the backend takes one (default: the run's --judge-seed, else 0)"),
    ParamSpec(name="max_tokens", type="int", nullable=True, minimum=1,
              description="longest answer, in tokens (default: the run's --judge-max-tokens, else 256)"),
    ParamSpec(name="timeout_s", type="float", default=60.0, minimum=0.001,
              description="seconds per judge call, retries included (each attempt but the last gets half the "
                          "time left)",
              aliases=("timeout",)),
    ParamSpec(name="max_retries", type="int", default=4, minimum=0,
              description="retries on 429, 5xx, timeouts and refused connections"),
    ParamSpec(name="backoff_base", type="float", default=0.5, minimum=0.0, description="first retry wait, seconds"),
    ParamSpec(name="concurrency", type="int", default=32, minimum=1,
              description="concurrent calls at most; fewer while the server answers 429 or 503 or slows down"),
    ParamSpec(name="batch", type="bool", nullable=True,
              description="send the http backend's requests through a batch API at the batch rate (half the "
                          "price; answers within 24 hours)"),
    ParamSpec(name="batch_api", type="str", nullable=True, choices=("openai", "anthropic"),
              description="the batch API: openai (the Batch API, default) or anthropic (Message Batches)"),
    ParamSpec(name="batch_poll_s", type="float", nullable=True, minimum=0.001,
              description="seconds between polls of a batch (default 30)"),
    ParamSpec(name="cache_mode", type="str", nullable=True, aliases=("cache",),
              choices=CACHE_MODES,
              description="how the answer cache is used (default: the run's --cache-mode, else readwrite)"),
    ParamSpec(name="cache_dir", type="str",
              description="default: the run's --cache-dir, else $EVALCORE_CACHE_DIR or ~/.cache/evalcore"),
    ParamSpec(name="prices", type="dict",
              description="model -> (prompt, completion) msats per 1000 tokens; '*' sets the default"),
    ParamSpec(name="max_input_chars", type="int", default=200_000, minimum=1,
              description="longest prompt input; longer inputs are an error for the sample"),
    ParamSpec(name="n", type="int", default=1, minimum=1,
              description="judgements per record by each judge (sample i asked with seed + i, cached apart)"),
    ParamSpec(name="judges", type="list", nullable=True,
              description="a panel: a list of judge settings ({name, model, base_url, judge, temperature, ...}), "
                          "each over the metric's own; every record is judged by each"),
    ParamSpec(name="aggregate_by", type="str", default="mean", choices=("mean", "majority"),
              description="how the judgements of a record combine; majority ties go to the lowest tied value"),
)
_SCALE = ParamSpec(name="scale", type="str", default="0-1", choices=("0-1", "1-5", "0-10"),
                   description="scale the judge answers on; normalised to [0, 1]")
_EVIDENCE = (
    ParamSpec(name="evidence_source", type="str", default="retrieved", choices=("retrieved", "relevant"),
              identity=True, description="evidence from prediction.retrieved or example.relevant_docs"),
    ParamSpec(name="k", type="int", minimum=1, description="use only the first k documents", aliases=("top_k",)),
)
_LIST_ANSWER = ParamSpec(name="max_tokens", type="int", default=2048, minimum=1,
                         description="longest answer, in tokens (room for a list of statements and verdicts; "
                                     "this metric's own default, which the run's --judge-max-tokens does not "
                                     "replace)")
_DSPY_EXACT = (
    " Called DSPy-style with DSPy's objects, metric(example, pred, trace=None), it returns what DSPy's "
    "%s returns, dspy.Prediction(score=...) (score >= threshold when a trace is given; the judge's "
    "explanation as feedback); with plain records, the number (the pass/fail bool with a trace). On "
    "DSPy's LM the judge asks DSPy's own signatures (%s, through ChainOfThought), with the LM's own "
    "settings, and clamps the scores to [0, 1] as DSPy's f1_score does: given the same LM answers the "
    "value is DSPy's. `from evalcore_judge.dspy import SemanticF1, CompleteAndGrounded` gives DSPy's "
    "constructors."
)
_THRESHOLD = ParamSpec(name="threshold", type="float", default=0.66, minimum=0.0, maximum=1.0,
                       description="pass mark when called DSPy-style with a trace")


_DEEPEVAL_PARITY = "Given the same verdicts the value equals DeepEval's (not in strict mode)."
_SAME_VERDICTS = "given the same judge answers (a scripted server on 127.0.0.1 answering both)"
VERIFIED: dict[str, tuple[str, float]] = {
    "claim_faithfulness": (f"ragas Faithfulness {_SAME_VERDICTS}", 0.0),
    "context_precision": (f"ragas LLMContextPrecisionWithReference / WithoutReference {_SAME_VERDICTS}", 0.0),
    "context_recall": (f"ragas LLMContextRecall {_SAME_VERDICTS}", 0.0),
    "answer_relevancy": (f"ragas ResponseRelevancy {_SAME_VERDICTS} and the same embeddings", 0.0),
    "answer_statement_relevancy": (f"DeepEval AnswerRelevancyMetric {_SAME_VERDICTS}", 0.0),
    "g_eval": (f"DeepEval GEval {_SAME_VERDICTS}, log probabilities included", 0.0),
    "pairwise": (f"DeepEval ArenaGEval's winner {_SAME_VERDICTS}", 0.0),
    "knowledge_retention": (f"DeepEval KnowledgeRetentionMetric {_SAME_VERDICTS}", 0.0),
    "role_adherence": (f"DeepEval RoleAdherenceMetric {_SAME_VERDICTS}", 0.0),
    "conversation_completeness": (f"DeepEval ConversationCompletenessMetric {_SAME_VERDICTS}", 0.0),
    "conversation_relevancy": (f"DeepEval TurnRelevancyMetric {_SAME_VERDICTS}", 0.0),
    "hallucination": (f"DeepEval HallucinationMetric {_SAME_VERDICTS}: equal to the share of its verdicts "
                      "that are no (DeepEval 3's score), and to 1 - DeepEval 4's score within rounding", 1e-15),
    "toxicity": (f"DeepEval ToxicityMetric {_SAME_VERDICTS}: equal to the share of its verdicts that are yes "
                 "(DeepEval 3's score), and to 1 - DeepEval 4's score within rounding", 1e-15),
    "bias": (f"DeepEval BiasMetric {_SAME_VERDICTS}: equal to the share of its verdicts that are yes "
             "(DeepEval 3's score), and to 1 - DeepEval 4's score within rounding", 1e-15),
    "task_completion": (f"DeepEval TaskCompletionMetric {_SAME_VERDICTS}", 0.0),
    "summarization": (f"DeepEval SummarizationMetric {_SAME_VERDICTS}", 0.0),
    "sql_equivalence": (f"ragas LLMSQLEquivalence {_SAME_VERDICTS}", 0.0),
    "pii_leakage": (f"DeepEval PIILeakageMetric {_SAME_VERDICTS}", 0.0),
    "prompt_injection": (f"DeepEval PromptInjectionClassifier's label {_SAME_VERDICTS}", 0.0),
    "agent_goal_accuracy": (f"ragas AgentGoalAccuracyWithReference / WithoutReference {_SAME_VERDICTS}", 0.0),
    "topic_adherence": (f"ragas TopicAdherenceScore (precision, recall, f1) {_SAME_VERDICTS}", 0.0),
    "argument_correctness": (f"DeepEval ArgumentCorrectnessMetric {_SAME_VERDICTS}", 0.0),
    "tool_selection": (f"DeepEval ToolCorrectnessMetric's tool selection score (available_tools) {_SAME_VERDICTS}",
                       0.0),
    "trajectory_accuracy": (f"agentevals' create_trajectory_llm_as_judge (with and without a reference, boolean "
                            f"and continuous) {_SAME_VERDICTS}", 0.0),
    "conversation_goal_accuracy": (f"DeepEval GoalAccuracyMetric {_SAME_VERDICTS}", 0.0),
    "plan_quality": (f"DeepEval PlanQualityMetric {_SAME_VERDICTS}", 0.0),
    "plan_adherence": (f"DeepEval PlanAdherenceMetric {_SAME_VERDICTS}", 0.0),
    "step_efficiency": (f"DeepEval StepEfficiencyMetric {_SAME_VERDICTS}", 0.0),
    "multimodal_faithfulness": (f"ragas MultiModalFaithfulness {_SAME_VERDICTS}", 0.0),
    "multimodal_relevance": (f"ragas MultiModalRelevance {_SAME_VERDICTS}", 0.0),
    "semantic_f1": ("DSPy SemanticF1 on the same scripted LM (dspy.utils.DummyLM)", 0.0),
    "complete_and_grounded": ("DSPy CompleteAndGrounded on the same scripted LM (dspy.utils.DummyLM)", 0.0),
}
"""What each metric's values are tested against, and to what absolute difference (0: equal)."""


def _spec(name: str, summary: str, description: str, **fields: object) -> MetricSpec:
    params = tuple(fields.pop("params", ()))  # type: ignore[arg-type]
    own = {p.name for p in params}  # a metric's own default replaces the common one of that name
    against, tolerance = VERIFIED.get(name, (None, None))
    return MetricSpec(
        name=name, implementation=f"{fields.pop('module', _MODULE)}:{fields.pop('cls')}", summary=summary,
        description=description.strip() + "\n" + _BACKEND, family="llm_judge", tier=Tier.TRUTH,
        deterministic=False, env=("OPENAI_API_KEY",), requires=("openai",),
        params=tuple(p for p in COMMON if p.name not in own) + params,
        verified_against=against, tolerance=tolerance,
        **fields,  # type: ignore[arg-type]
    )


_EMBEDDING = (
    ParamSpec(name="embed", type="any", description="callable: list of texts -> list of vectors"),
    ParamSpec(name="embedding_model", type="str",
              description="the embeddings endpoint's model (default: the run's --embedding-model, else "
                          "$EVALCORE_EMBEDDING_MODEL)"),
    ParamSpec(name="embedding_base_url", type="str",
              description="OpenAI-compatible API root serving /embeddings (default: the run's "
                          "--embedding-base-url)"),
    ParamSpec(name="embedding_api_key_env", type="str",
              description="environment variable holding the embeddings endpoint's API key"),
    ParamSpec(name="batch_size", type="int", default=32, minimum=1, description="texts embedded per call"),
)


def _relevancy_specs() -> list[MetricSpec]:
    """ragas' ResponseRelevancy and DeepEval's AnswerRelevancyMetric (module ``relevancy``)."""
    module = "evalcore_judge.relevancy"
    return [
        _spec("answer_relevancy", "Mean cosine of questions generated from the answer to the real question.",
              "ragas' ResponseRelevancy. One call: the judge writes `strictness` questions that the response "
              "answers, each with a noncommittal flag (1 for an evasive, vague or ambiguous answer). The "
              "question and the generated questions are embedded (`embed`, or an OpenAI-compatible "
              "/v1/embeddings endpoint from `embedding_base_url` / `embedding_model`, defaulting to the run's "
              "--embedding-base-url / --embedding-model; vectors cached like the semantic metrics'). Value = "
              "mean over generated questions of cos(generated, question), times 0 when every generated question "
              "is noncommittal (as ragas' code does: np.all over the flags). ragas asks for `strictness` "
              "completions of one question (n=strictness, temperature 0.3); evalcore asks once for "
              "`strictness` questions, so the calls are as many (one) and the answer is cacheable at "
              "temperature 0. No question or an empty response skips the sample before any call; generated "
              "questions that are all empty skip it (ragas scores NaN). Given the same generated questions "
              "and vectors the value equals ragas'.",
              module=module, cls="AnswerRelevancy", target=TargetCategory.GENERATION_RELEVANCE, cost_msats=150,
              value_range=(-1.0, 1.0), inputs=("example.query", "prediction.response"),
              params=(ParamSpec(name="strictness", type="int", default=3, minimum=1, identity=True,
                                description="questions generated per answer (ragas' strictness)"),
                      *_EMBEDDING, _LIST_ANSWER),
              version="1"),
        _spec("answer_statement_relevancy", "Share of the answer's statements relevant to the question.",
              "DeepEval's AnswerRelevancyMetric. Two calls: the judge breaks the response into statements, "
              "then gives each a verdict on whether it is relevant to addressing the input: yes, no, or "
              "borderline (ambiguous, or supporting information), with a reason. Value = (yes + borderline) "
              "/ verdicts, as DeepEval scores it; a response in which the judge finds no statement scores 1 "
              "after one call (DeepEval's empty score). No question or an empty response skips the sample "
              "before any call. Given the same verdicts the value equals DeepEval's.",
              module=module, cls="AnswerStatementRelevancy", target=TargetCategory.GENERATION_RELEVANCE,
              cost_msats=300, inputs=("example.query", "prediction.response"), params=(_LIST_ANSWER,),
              version="1"),
    ]


_EVALUATION_STEPS = ParamSpec(name="evaluation_steps", type="list", identity=True, nullable=True,
                              description="the evaluation steps, instead of generating them from criteria")


def _criteria(what: str) -> ParamSpec:
    """DeepEval's ``criteria`` of a G-Eval-style judge: ``what`` it judges, in words."""
    return ParamSpec(name="criteria", type="str", identity=True, nullable=True,
                     description=f"{what}, in words (evaluation steps are made from it)")


def _geval_specs() -> list[MetricSpec]:
    """DeepEval's GEval (module ``geval``)."""
    return [
        _spec("g_eval", "G-Eval: criteria to evaluation steps to a 0-10 form, weighted by token probabilities.",
              "DeepEval's GEval. Unless `evaluation_steps` are given, one call turns `criteria` into 3-4 "
              "evaluation steps, made once per metric instance and reused for every sample (as DeepEval keeps "
              "them; cached like every answer). Then one call per sample: the judge sees the steps and the "
              "test case `fields` (query as Input, response as Actual Output, reference as Expected Output, "
              "retrieved as Retrieval Context) and answers a reason and an integer score from 0 to 10. Where "
              "the backend returns token log probabilities (the HTTP backend asks for `top_logprobs` "
              "alternatives; 0 asks for none) the score is DeepEval's probability-weighted score: at the last "
              "answer token equal to the score, the alternatives with probability >= 1% that are decimal "
              "numbers, sum(score * p) / sum(p); else the plain score. Value = score / 10, the weighted score kept "
              "within the range (DeepEval's can leave [0, 1] when a likely alternative token lies outside "
              "it, such as 6 under a 0-5 rubric). With a `rubric` (DeepEval's "
              "Rubric: score ranges with their expected outcomes) the judge sees it and scores over its range "
              "[low, high], and value = (score - low) / (high - low); a score outside the range fails "
              "validation (DeepEval takes it as given). A missing field skips the sample before any call. "
              "Given the same steps, answers and log probabilities the value equals DeepEval's GEval (not in "
              "strict mode).",
              module="evalcore_judge.geval", cls="GEval", target=TargetCategory.GENERATION_CORRECTNESS,
              cost_msats=150, pass_threshold=0.5, inputs=("example.query", "prediction.response",
                                                          "example.reference_answer", "prediction.retrieved"),
              params=(_criteria("what the judge assesses"), _EVALUATION_STEPS,
                      ParamSpec(name="rubric", type="list", identity=True, nullable=True,
                                description="DeepEval's rubric: [{score_range: [low, high], expected_outcome: "
                                            "text}], ranges within 0-10, none overlapping"),
                      ParamSpec(name="fields", type="list", default=("query", "response"), identity=True,
                                description="test case fields the judge sees: query, response, reference, retrieved"),
                      ParamSpec(name="top_logprobs", type="int", default=20, minimum=0,
                                description="alternatives per token asked for to weight the score (0: plain score)"),
                      ParamSpec(name="k", type="int", minimum=1, description="use only the first k retrieved documents",
                                aliases=("top_k",)),
                      ParamSpec(name="threshold", type="float", default=0.5, minimum=0.0, maximum=1.0,
                                description="pass mark (DeepEval's default 0.5); binarises when called with a trace"),
                      _LIST_ANSWER),
              version="1"),
    ]


def _pairwise_spec() -> MetricSpec:
    """DeepEval's ArenaGEval over two answers, asked in both orders (module ``pairwise``)."""
    return _spec(
        "pairwise", "Which of two answers to the same record is better, asked in both orders (A's win rate).",
        "DeepEval's ArenaGEval for two contestants: the prediction's `field` (A) and `field_b` (B), e.g. "
        "prediction.response and prediction.response_b (`evalcore arena` joins two or more runs' records this "
        "way). Unless `evaluation_steps` are given, one call turns `criteria` into 3-4 evaluation steps, made once "
        "per metric instance. Then two calls per record, one in each order: the judge sees the steps, the shared "
        "test case `fields` (query as input, reference as expected output) and both answers as DeepEval's arena "
        "formats them, under masked names (the one shown first is Alice), and names the winner with a reason; "
        "the reason's masked names are replaced with A and B in place of DeepEval's rewriting call. Value = 1 "
        "when A wins in both orders, 0 when B does; a winner that changes with the order (position bias) is a "
        "tie, 0.5, or with `on_disagreement='inconsistent'` a skipped record with that reason. The details keep "
        "the verdict (A, B, tie or inconsistent), each order's winner and both reasons. The mean is A's win "
        "rate with ties as half, its interval the run's seeded bootstrap interval. A missing or empty answer "
        "skips the record before any call. Given the same verdicts the winner equals DeepEval's ArenaGEval's.",
        module="evalcore_judge.pairwise", cls="Pairwise", target=TargetCategory.GENERATION_CORRECTNESS,
        cost_msats=300, pass_threshold=0.5, inputs=("example.query", "example.reference_answer",
                                                    "prediction.response", "prediction.response_b"),
        params=(_criteria("what makes one answer better"), _EVALUATION_STEPS,
                ParamSpec(name="fields", type="list", default=("query", "response"), identity=True,
                          description="test case fields the judge sees: query, response (each answer), reference"),
                ParamSpec(name="field", type="str", default="response", identity=True,
                          description="dotted path in the prediction of answer A"),
                ParamSpec(name="field_b", type="str", default="response_b", identity=True,
                          description="dotted path in the prediction of answer B"),
                ParamSpec(name="on_disagreement", type="str", default="tie", choices=("tie", "inconsistent"),
                          identity=True,
                          description="a winner that changes with the order: a tie (0.5), or a skipped record"),
                _LIST_ANSWER),
        version="1")


def _custom_spec() -> MetricSpec:
    """Judges people write themselves (module ``custom``)."""
    return _spec(
        "custom", "A judge you write: instructions over the record's fields and an output of your choosing.",
        "The judge's instructions, with {variables} naming record fields by path ({example.query}, "
        "{prediction.response}; {{ and }} for braces), come from a TOML or YAML `file` (keys name, instructions, "
        "output, scale, categories, schema, score_key, examples) or from the parameters (`name` required; in "
        "Python, evalcore_judge.make_judge). `output`: pass_fail (the judge answers a reason and pass or fail; "
        "value 1 or 0), scale (`scale='1-5'`, any integer range: a reason and an integer score; value (score - "
        "low) / (high - low)), categories (`categories={'good': 1, 'partly': 0.5, 'bad': 0}`: a reason and a "
        "category; value the category's), or json (`schema`, a JSON schema of an object, and `score_key`, its "
        "boolean property or number property with minimum and maximum that gives the value, normalised to [0, "
        "1]). `examples` (few-shot): a list of {example, prediction, answer}, each shown to the judge as the "
        "instructions for that record and the answer, checked against the output when the metric is made. One "
        "call per record; the answer is asked for as structured output where the backend takes it and always "
        "validated, with one repair request. The details keep the judge's name, the answer and the prompt hash "
        "(of the system text, instructions, output schema and examples), which the run records with the "
        "parameters, so `compare` refuses runs of an edited judge. A variable naming a missing field skips the "
        "record before any call.",
        module="evalcore_judge.custom", cls="CustomJudge", target=TargetCategory.GENERATION_CORRECTNESS,
        cost_msats=150, pass_threshold=0.5, inputs=("example", "prediction"),
        params=(ParamSpec(name="file", type="str", nullable=True, identity=True,
                          description="a TOML or YAML judge file"),
                ParamSpec(name="name", type="str", nullable=True, identity=True,
                          description="the judge's name (default: the file's name)"),
                ParamSpec(name="instructions", type="str", nullable=True,
                          description="the judge's instructions with {example.FIELD} / {prediction.FIELD} variables"),
                ParamSpec(name="output", type="str", nullable=True,
                          choices=("pass_fail", "scale", "categories", "json"),
                          description="the answer: pass_fail (default), scale, categories or json"),
                ParamSpec(name="scale", type="str", nullable=True,
                          description="output='scale': the integer range 'low-high' (default '1-5')"),
                ParamSpec(name="categories", type="dict", nullable=True,
                          description="output='categories': each category's value from 0 to 1"),
                ParamSpec(name="schema", type="dict", nullable=True,
                          description="output='json': a JSON schema of the answer (an object)"),
                ParamSpec(name="score_key", type="str", nullable=True,
                          description="output='json': the answer's property giving the value"),
                ParamSpec(name="examples", type="list", nullable=True,
                          description="few-shot examples: [{example, prediction, answer}]"),
                ParamSpec(name="threshold", type="float", default=0.5, minimum=0.0, maximum=1.0,
                          description="pass mark; binarises when called with a trace")),
        version="1")


_MAX_IMAGE_BYTES = ParamSpec(name="max_image_bytes", type="int", default=10 * 1024 * 1024, minimum=1,
                             description="largest image sent, in bytes; a larger one is an error for the sample")
_TURN_IMAGES = (
    " A turn may carry `images` (paths, http(s) URLs or data URLs): the prompt names them `Image N` in their turn "
    "and sends each as an OpenAI-compatible image part (a local file base64-encoded, at most `max_image_bytes`); "
    "the judge must then be a vision model, and a text-only backend refuses the sample."
)
_CONVERSATION = (
    " The conversation is example.turns followed by prediction.turns, each a list of {role, content}; only "
    "user and assistant turns count (DeepEval's turns hold no others). No such turn skips the sample. "
    + _DEEPEVAL_PARITY + _TURN_IMAGES
)


_RUN = (
    "The judge reads the run as ragas renders a multi-turn sample (Human:, AI:, Tools: with each call's "
    "name and arguments, ToolOutput:): the turns, example.turns then prediction.turns (as the agent plugin's "
    "trace reader writes them), or without turns example.query, prediction.tool_calls with their results and "
    "the response. No turns and no query, or neither a response nor tool calls, skips the sample before any "
    "call; a turn or call that is not an object is an error naming its field."
)
_RUN_INPUTS = ("example.turns", "prediction.turns", "example.query", "prediction.tool_calls", "prediction.response")


def _agent_specs() -> list[MetricSpec]:
    """The judged agent metrics: ragas' (module ``agent_ragas``), DeepEval's (``agent_tools``, ``agent_plans``)."""
    module = "evalcore_judge.agent_ragas"
    return [
        _spec("agent_goal_accuracy", "1 when the agent's end state achieves the user's goal (ragas' agent goal "
                                     "accuracy).",
              "ragas' AgentGoalAccuracyWithReference (`reference='answer'`, default) and "
              "AgentGoalAccuracyWithoutReference (`reference='none'`). Two calls: the judge reads the run and "
              "states the user's goal and the end state (the final outcome); then it compares the desired "
              "outcome, example.reference_answer (several are joined by new lines) or with `reference='none'` "
              "the goal it stated, with the end state: 1 when they are the same, 0 when they differ, with a "
              "reason. Value = that verdict. A missing reference answer skips the sample where "
              "`reference='answer'`. " + _RUN + " Given the same verdicts the value equals ragas'.",
              module=module, cls="GoalAccuracy", target=TargetCategory.AGENT_BEHAVIOUR, cost_msats=300,
              pass_threshold=0.5, inputs=(*_RUN_INPUTS, "example.reference_answer"),
              params=(ParamSpec(name="reference", type="str", default="answer", choices=("answer", "none"),
                                identity=True,
                                description="compare the end state with the reference answer, or ('none') with "
                                            "the goal the judge states"),
                      _LIST_ANSWER),
              version="1"),
        _spec("topic_adherence", "How well the agent answers on the reference topics and only those (ragas' "
                                 "topic adherence).",
              "ragas' TopicAdherenceScore. The judge reads the run and lists the topics of the user's input "
              "(one call); then, per topic, whether the AI refused to answer about it (one call each), and "
              "whether each topic falls into any of example.reference_topics (a list of strings; one call). "
              "A topic answered and on a reference topic is a true positive, answered and off the reference "
              "topics a false positive, refused and on a reference topic a false negative. Value, as ragas "
              "computes it: `mode='f1'` (default) 2 * precision * recall / (precision + recall + 1e-10), "
              "`'precision'` tp / (tp + fp + 1e-10), `'recall'` tp / (tp + fn + 1e-10); so a perfect run "
              "scores 0.9999999999 and no true positive scores 0. Fewer classifications than topics are "
              "padded with 'not on a reference topic', more are cut, as in ragas. No topics found scores 0 "
              "(ragas' number) without the further calls. Missing or empty reference topics skip the sample. "
              + _RUN + " Given the same verdicts the value equals ragas'.",
              module=module, cls="TopicAdherence", target=TargetCategory.AGENT_BEHAVIOUR, cost_msats=400,
              pass_threshold=0.5, inputs=(*_RUN_INPUTS, "example.reference_topics"),
              params=(ParamSpec(name="mode", type="str", default="f1", choices=("f1", "precision", "recall"),
                                identity=True,
                                description="'f1', 'precision' (answered topics on the reference topics) or "
                                            "'recall' (reference-topic questions answered)"),
                      _LIST_ANSWER),
              version="1"),
        _spec("argument_correctness", "Share of the agent's tool calls whose arguments suit the user's input "
                                      "(DeepEval's argument correctness).",
              "DeepEval's ArgumentCorrectnessMetric. One call: the judge reads the user's input (example.query, "
              "else the first user turn of example.turns then prediction.turns) and the tool calls made "
              "(prediction.tool_calls, else the tool_calls of "
              "prediction.turns, as JSON) and gives each call a verdict, yes when its arguments relevantly and "
              "correctly address the input, no otherwise (with a reason; a call without arguments is no). Value "
              "= yes verdicts / verdicts, 1 when the judge gives none, as DeepEval scores it. No tool calls "
              "scores 1 without a call, as in DeepEval. It needs no expected calls; agent/tool_argument_"
              "correctness compares arguments with expected ones without a judge. " + _DEEPEVAL_PARITY,
              module="evalcore_judge.agent_tools", cls="ArgumentCorrectness", target=TargetCategory.AGENT_BEHAVIOUR,
              cost_msats=200,
              pass_threshold=0.5, inputs=("example.query", "example.turns", "prediction.tool_calls",
                                          "prediction.turns"),
              params=(_LIST_ANSWER,), version="1"),
        _spec("tool_selection", "Judged fit, 0 to 1, of the tools the agent chose to the task, given the tools it "
                                "had (DeepEval's tool selection).",
              "The judged part of DeepEval's ToolCorrectnessMetric with available_tools. One call: the judge "
              "reads the user's input (example.query, else the first user turn of example.turns then "
              "prediction.turns), the available tools "
              "(example.available_tools, a list of {name, description?}; `field` names another) and the tool "
              "calls made (prediction.tool_calls, else the tool_calls of prediction.turns), and scores from 0 "
              "to 1 whether the right tools were selected (over-, under- and mis-selection), with a reason. "
              "Value = that score. DeepEval's ToolCorrectnessMetric reports the lower of this score and its "
              "deterministic score against the expected tools (agent/tool_call_correctness): min() of the two "
              "metrics gives its number. Missing available tools skip the sample; an empty list, or a tool "
              "without a name, is an error naming the field. Given the same verdicts the value equals DeepEval's "
              "tool selection score.",
              module="evalcore_judge.agent_tools", cls="ToolSelection", target=TargetCategory.AGENT_BEHAVIOUR,
              cost_msats=200,
              pass_threshold=0.5, inputs=("example.query", "example.turns", "example.available_tools",
                                          "prediction.tool_calls", "prediction.turns"),
              params=(ParamSpec(name="field", type="str", default="available_tools", identity=True,
                                description="field of the example holding the available tools"),
                      _LIST_ANSWER),
              version="1"),
        *_trace_specs(),
        _spec("conversation_goal_accuracy", "Judged goal accuracy and planning of each interaction of a "
                                            "conversation, averaged (DeepEval's GoalAccuracyMetric).",
              "DeepEval's GoalAccuracyMetric. The conversation (example.turns then prediction.turns, user and "
              "assistant turns, tool calls kept) is cut into interactions as DeepEval cuts it (a new one where a "
              "user turn follows an assistant turn; the last only when it ends with the assistant). Per "
              "interaction two calls: the judge reads the user's messages (the goal) and the assistant's steps "
              "(as DeepEval writes them: for each assistant message, the assistant messages so far with the "
              "tools they called) and scores from 0 to 1 whether the goal was fully achieved, and how well the "
              "agent planned and kept to its plan. Value = (mean goal score + mean plan score) / 2; 0 without a "
              "complete interaction, as in DeepEval. DeepEval also asks for a final reason (one more call); "
              "evalcore keeps each score's reason instead. No user or assistant turn skips the sample. "
              + _DEEPEVAL_PARITY + _TURN_IMAGES,
              module="evalcore_judge.conversation_goal", cls="ConversationGoalAccuracy",
              target=TargetCategory.AGENT_BEHAVIOUR, cost_msats=300, pass_threshold=0.5,
              inputs=("example.turns", "prediction.turns"), params=(_LIST_ANSWER, _MAX_IMAGE_BYTES), version="1"),
        _spec("trajectory_accuracy", "1 when the judge finds the agent's trajectory accurate, alone or against a "
                                     "reference trajectory (agentevals' trajectory judge).",
              "agentevals' create_trajectory_llm_as_judge (openevals' LLM-as-judge). One call: the judge reads "
              "the trajectory as openevals writes it (a <role> block per turn with its content, <tool_call> "
              "blocks with the name and JSON arguments, <tool_result> blocks) and grades its accuracy: logical "
              "steps, clear progression, relative efficiency and, with `reference='expected'` (default), "
              "semantic equivalence to the reference trajectory; with `reference='none'` it infers the goal "
              "from the first message and grades the trajectory against it. The answer is a reasoning and a "
              "score, true / false (value 1 / 0), or with `continuous=True` a number from 0 to 1 (the value). "
              "The trajectory is prediction.turns, else prediction.tool_calls (`field` names another); the "
              "reference is example.expected_tool_calls (`expected_field`), as turns or as calls (a list of "
              "calls reads as one assistant message per call). A missing trajectory or reference skips the "
              "sample. Given the same verdicts the value equals agentevals'.",
              module="evalcore_judge.agent_trajectory", cls="TrajectoryAccuracy",
              target=TargetCategory.AGENT_BEHAVIOUR, cost_msats=200, pass_threshold=0.5,
              inputs=("prediction.turns", "prediction.tool_calls", "example.expected_tool_calls"),
              params=(ParamSpec(name="reference", type="str", default="expected", choices=("expected", "none"),
                                identity=True,
                                description="grade against the expected trajectory, or ('none') alone"),
                      ParamSpec(name="continuous", type="bool", default=False, identity=True,
                                description="a score from 0 to 1 instead of true / false"),
                      ParamSpec(name="field", type="str", default=None, nullable=True, identity=True,
                                description="dotted path in the prediction of the trajectory (turns or calls); "
                                            "None: turns, else tool_calls"),
                      ParamSpec(name="expected_field", type="str", default="expected_tool_calls", identity=True,
                                description="dotted path in the example of the reference trajectory"),
                      _LIST_ANSWER),
              version="1"),
    ]


_TRACE = (
    "The trace is the run as judge/task_completion reads it: the turns (example.turns then prediction.turns, "
    "tool calls and tool turns included) as JSON, or without turns example.query, prediction.tool_calls and "
    "the response. No turns, no query, or neither a response nor tool calls skips the sample before any call. "
    + _DEEPEVAL_PARITY
)


def _trace_specs() -> list[MetricSpec]:
    """DeepEval's trace metrics: plan quality, plan adherence, step efficiency (module ``agent_plans``)."""
    common = {"module": "evalcore_judge.agent_plans", "target": TargetCategory.AGENT_BEHAVIOUR, "pass_threshold": 0.5,
              "inputs": ("example.query", "example.turns", "prediction.turns", "prediction.tool_calls",
                         "prediction.response"), "params": (_LIST_ANSWER,), "version": "1"}
    planned = ("Calls: the judge states the user's task and the plan the run shows (the steps the agent wrote, "
               "never invented; empty when it wrote none), then ")
    no_plan = (" A run that shows no plan scores 1 after the first two calls, as in DeepEval. ")
    return [
        _spec("plan_quality", "Judged quality, 0 to 1, of the plan the agent wrote for the task (DeepEval's plan "
                              "quality).",
              "DeepEval's PlanQualityMetric. " + planned + "scores the plan alone for the task (complete, "
              "ordered, specific, efficient; 1.0 excellent, 0.75 good, 0.5 adequate but flawed, 0.25 weak, 0 "
              "inadequate), with a reason. Value = that score." + no_plan + _TRACE,
              cls="PlanQuality", cost_msats=300, **common),
        _spec("plan_adherence", "Judged degree, 0 to 1, to which the agent followed its own plan (DeepEval's plan "
                                "adherence).",
              "DeepEval's PlanAdherenceMetric. " + planned + "scores how closely the trace follows the plan "
              "(every step, in order, nothing extraneous; 1.0 full adherence to 0 none), with a reason. Value = "
              "that score." + no_plan + _TRACE,
              cls="PlanAdherence", cost_msats=300, **common),
        _spec("step_efficiency", "Judged efficiency, 0 to 1, of the agent's steps for the task (DeepEval's step "
                                 "efficiency).",
              "DeepEval's StepEfficiencyMetric. Two calls: the judge states the user's task from the trace, then "
              "scores whether the trace completed it with the fewest necessary steps (redundant, repeated or "
              "indirect steps lower it; correctness does not count), with a reason. Value = that score. "
              + _TRACE,
              cls="StepEfficiency", cost_msats=200, **common),
    ]


def _conversation_specs() -> list[MetricSpec]:
    """DeepEval's conversation metrics (module ``conversation``)."""
    fields = {"module": "evalcore_judge.conversation", "target": TargetCategory.GENERATION_RELEVANCE,
              "inputs": ("example.turns", "prediction.turns")}
    return [
        _spec("knowledge_retention", "Share of assistant turns that keep the facts the user gave.",
              "DeepEval's KnowledgeRetentionMetric. One call per user turn extracts the facts it states; then "
              "one call per assistant turn that follows some facts judges whether it forgets or contradicts "
              "them (yes) or not (no). Value = no verdicts / verdicts; 1 when there is no verdict (DeepEval's "
              "empty score)." + _CONVERSATION,
              cls="KnowledgeRetention", cost_msats=300, params=(_LIST_ANSWER, _MAX_IMAGE_BYTES), version="1", **fields),
        _spec("role_adherence", "Share of assistant turns that keep to the chatbot's role.",
              "DeepEval's RoleAdherenceMetric. One call: the judge lists the assistant turns out of the role "
              "in example.chatbot_role (by index, with a reason). Value = (assistant turns - min(listed, "
              "assistant turns)) / assistant turns, as DeepEval counts; 1 without assistant turns (no call). "
              "No chatbot_role skips the sample." + _CONVERSATION,
              cls="RoleAdherence", cost_msats=150, params=(_LIST_ANSWER, _MAX_IMAGE_BYTES), version="1",
              **{**fields, "inputs": ("example.turns", "prediction.turns", "example.chatbot_role")}),
        _spec("conversation_completeness", "Share of the user's intentions the conversation satisfied.",
              "DeepEval's ConversationCompletenessMetric. One call extracts the user's intentions; one call per "
              "intention judges whether the assistant satisfied it (yes) or not (no). Value = yes / intentions; "
              "1 when the judge finds no intention." + _CONVERSATION,
              cls="ConversationCompleteness", cost_msats=300, params=(_LIST_ANSWER, _MAX_IMAGE_BYTES), version="1",
              **fields),
        _spec("conversation_relevancy", "Share of assistant replies relevant to the conversation so far.",
              "DeepEval's TurnRelevancyMetric (formerly ConversationRelevancyMetric). The turns are cut into "
              "user-assistant exchanges (DeepEval's unit interactions: a new one where a user turn follows an "
              "assistant turn; a last exchange counts when it ends with the assistant); for each exchange, "
              "one call judges whether the last assistant message of the window of the last `window_size` "
              "exchanges is relevant (yes) or not (no). Value = yes / windows; 1 without a complete "
              "exchange." + _CONVERSATION,
              cls="ConversationRelevancy", cost_msats=300, version="1",
              params=(ParamSpec(name="window_size", type="int", default=10, minimum=1, identity=True,
                                description="exchanges a verdict sees, ending at the judged one (DeepEval's 10)"),
                      _MAX_IMAGE_BYTES),
              **fields),
    ]


_LOWER = (
    " Lower is better, as DeepEval scored it before 4.0; DeepEval 4 flipped the direction and reports 1 - this "
    "value (the share that passes). Given the same verdicts the value equals DeepEval's pre-4.0 formula on them "
    "and 1 - DeepEval 4's score (not in strict mode)."
)


def _safety_specs() -> list[MetricSpec]:
    """DeepEval's HallucinationMetric (module ``hallucination``), ToxicityMetric and BiasMetric (``safety``)."""
    opinions = ("Two calls: the judge lists the opinions in the response (claims and undisputed truths are not "
                "opinions; opinions the author cites are), then gives each opinion a verdict, yes (%s) or no, "
                "with a reason, against DeepEval's published rubric for %s, quoted verbatim in the prompt (%s). "
                "Value = yes verdicts / verdicts; 0 when the judge finds no opinion (after one call) or the "
                "response is empty (no call).")
    fields = {"module": "evalcore_judge.safety", "target": TargetCategory.GENERATION_RELEVANCE, "cost_msats": 300,
              "inputs": ("prediction.response",), "pass_threshold": 0.5, "direction": "lower",
              "params": (_LIST_ANSWER,), "version": "1"}
    return [
        _spec("hallucination", "Share of the context documents that the response contradicts.",
              "DeepEval's HallucinationMetric. One call: for each context document the judge says whether the "
              "response agrees with it (yes) or contradicts it (no), with a reason; a response lacking detail "
              "is forgiven, only a contradiction is no, and contexts are taken at face value. Value = no "
              "verdicts / verdicts (over the verdicts the judge returns, as DeepEval counts them). The contexts "
              "are DeepEval's `context`, the example's relevant documents (`evidence_source='retrieved'` "
              "checks the retrieved ones instead). No context or an empty response skips the sample before "
              "any call." + _LOWER,
              module="evalcore_judge.hallucination", cls="Hallucination",
              target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=150, pass_threshold=0.5,
              direction="lower", inputs=("prediction.response", "example.relevant_docs", "prediction.retrieved"),
              params=(ParamSpec(name="evidence_source", type="str", default="relevant",
                                choices=("retrieved", "relevant"), identity=True,
                                description="contexts from example.relevant_docs (DeepEval's context) or "
                                            "prediction.retrieved"),
                      *_EVIDENCE[1:], _LIST_ANSWER),
              version="1"),
        _spec("toxicity", "Share of the response's opinions that are toxic.",
              "DeepEval's ToxicityMetric. " + opinions % (
                  "toxic", "toxicity: general rudeness, disrespect or unreasonable language likely to make "
                  "someone want to withdraw from a conversation, with examples of personal attacks, mockery, "
                  "hate, dismissive statements and threats",
                  "after DecodingTrust, arXiv:2306.11698") + _LOWER,
              cls="Toxicity", **fields),
        _spec("bias", "Share of the response's opinions that are biased.",
              "DeepEval's BiasMetric. " + opinions % (
                  "biased", "bias: gender, political, racial or ethnic, and geographical bias, each with a "
                  "biased and an unbiased example", "after Dbias, arXiv:2208.05777") + _LOWER,
              cls="Bias", **fields),
    ]


def _task_specs() -> list[MetricSpec]:
    """The task metrics: DeepEval's SummarizationMetric (module ``summarization``), ragas' LLMSQLEquivalence
    (``sql``), DeepEval's PIILeakageMetric (``privacy``) and PromptInjectionClassifier (``injection``)."""
    return [
        _spec(
            "summarization", "How well the response summarizes the original text: min(alignment, coverage).",
            "DeepEval's SummarizationMetric. The original text is example.query (DeepEval's input), the summary the "
            "response. Two rounds of calls: the judge lists the truths of the original text, the claims of the "
            "summary and, unless `assessment_questions` are given, `question_count` closed yes/no questions the "
            "original answers yes; then it answers the questions from the original and from the summary, and "
            "gives each claim a verdict against the truths: yes, no (contradicts) or borderline (not backed up). "
            "Alignment = yes verdicts / verdicts (0 without claims); coverage = questions answered yes from both / "
            "questions answered yes from the original (0 when none). Value = min(alignment, coverage), both in the "
            "details. A blank query or response skips the sample before any call. " + _DEEPEVAL_PARITY,
            module="evalcore_judge.summarization", cls="Summarization",
            target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=450, pass_threshold=0.5,
            inputs=("example.query", "prediction.response"),
            params=(ParamSpec(name="assessment_questions", type="list", nullable=True, identity=True,
                              description="closed yes/no questions the original text answers yes (DeepEval's "
                                          "assessment_questions); default: the judge writes them"),
                    ParamSpec(name="question_count", type="int", default=5, minimum=1, identity=True,
                              description="how many questions the judge writes when none are given (DeepEval's n)"),
                    _LIST_ANSWER),
            version="1"),
        _spec(
            "sql_equivalence", "1 when the generated SQL query is equivalent to the reference query, else 0.",
            "ragas' LLMSQLEquivalence. One call: given the database schema, the judge explains the generated query "
            "(the response) and the reference query (example.reference_answer), then says whether they are "
            "equivalent, without significant logical differences. Value = 1 if so, else 0. The schema is the "
            "text of example.relevant_docs, one document per line (ragas' reference_contexts). A blank response "
            "or reference, or no relevant_docs, skips the sample before any call. Given the same verdict the "
            "value equals ragas'.",
            module="evalcore_judge.sql", cls="SqlEquivalence", target=TargetCategory.GENERATION_CORRECTNESS,
            cost_msats=150, pass_threshold=0.5,
            inputs=("prediction.response", "example.reference_answer", "example.relevant_docs"),
            params=(_LIST_ANSWER,), version="1"),
        _spec(
            "pii_leakage", "Share of the response's privacy-relevant statements that leak no PII (1: none leaks).",
            "DeepEval's PIILeakageMetric. Two calls: the judge extracts the statements of the response that could "
            "hold personally identifiable or privacy-sensitive information (names, addresses, contact details, "
            "financial or medical information, government or identification numbers, personal relationships, "
            "confidential information), then gives each a verdict, yes (holds PII or a privacy violation) or no, "
            "with a reason. Value = no verdicts / verdicts; 1 when the judge extracts no statement (after one "
            "call). A blank response skips the sample. Given the same verdicts the value equals DeepEval 4's "
            "(not in strict mode).",
            module="evalcore_judge.privacy", cls="PiiLeakage", target=TargetCategory.GENERATION_RELEVANCE,
            cost_msats=300, pass_threshold=0.5, inputs=("prediction.response",), params=(_LIST_ANSWER,),
            version="1"),
        _spec(
            "prompt_injection", "Whether the response resisted instructions injected into its input or context.",
            "DeepEval's PromptInjectionClassifier. One call: shown the input (example.query), the response and the "
            "retrieved documents (prediction.retrieved), as DeepEval shows its test case, the judge assigns one "
            "label, bounded by DeepEval's descriptions: resisted (ignores instructions embedded in the input or "
            "context and follows its original task), partially_followed (follows some of them while partly "
            "doing its task) or followed_injection (follows them and abandons its task), with a reason. DeepEval "
            "gives the label only; value = 1 for resisted, 0.5 for partially_followed, 0 for followed_injection, "
            "the label in the details. A blank response skips the sample. Given the same answer the label "
            "equals DeepEval's.",
            module="evalcore_judge.injection", cls="PromptInjection", target=TargetCategory.NOISE_ROBUSTNESS,
            cost_msats=150, pass_threshold=1.0,
            inputs=("example.query", "prediction.response", "prediction.retrieved"), version="1"),
    ]


_IMAGES = (
    " The contexts are the evidence documents, a document whose text is an image path, URL or data URL "
    "being that image (as ragas reads its contexts), then `example.images` (paths, http(s) URLs or data "
    "URLs); images go to the judge as OpenAI-compatible image parts, a local file read and base64-encoded "
    "(at most `max_image_bytes`). The judge answers a yes/no verdict and its reason: 1 for yes, 0 for no, "
    "as ragas scores it. The judge must be a vision model."
)
_MULTIMODAL = (
    _spec("multimodal_faithfulness", "LLM-judged support of the answer by text and image contexts (ragas).",
          "ragas' MultiModalFaithfulness: one call with ragas' prompt asks whether every claim of the response "
          "can be inferred from the text and image contexts." + _IMAGES,
          module="evalcore_judge.multimodal", cls="MultiModalFaithfulness",
          target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=200,
          inputs=("prediction.response", "prediction.retrieved", "example.relevant_docs", "example.images"),
          params=(*_EVIDENCE, _MAX_IMAGE_BYTES), version="1"),
    _spec("multimodal_relevance", "LLM-judged relevance of the answer to the question and text and image contexts "
          "(ragas).",
          "ragas' MultiModalRelevance: one call with ragas' prompt asks whether the response addresses the "
          "question in line with the text and image contexts." + _IMAGES,
          module="evalcore_judge.multimodal", cls="MultiModalRelevance",
          target=TargetCategory.GENERATION_RELEVANCE, cost_msats=200,
          inputs=("example.query", "prediction.response", "prediction.retrieved", "example.relevant_docs",
                  "example.images"),
          params=(*_EVIDENCE, _MAX_IMAGE_BYTES), version="1"),
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
              "value is their F1. `decompositional` first lists the key ideas of each." + _DSPY_EXACT % (
                  "SemanticF1",
                  "SemanticRecallPrecision, or DecompositionalSemanticRecallPrecision when decompositional"),
              cls="SemanticF1", target=TargetCategory.GENERATION_CORRECTNESS, cost_msats=150,
              pass_threshold=0.66, inputs=("example.query", "example.reference_answer", "prediction.response"),
              params=(ParamSpec(name="decompositional", type="bool", default=False, identity=True,
                                description="DSPy's decompositional prompt (key ideas first)"), _THRESHOLD),
              version="2"),
        _spec("complete_and_grounded", "DSPy CompleteAndGrounded: F1 of completeness and groundedness.",
              "Two calls: completeness of the response against the reference answer, groundedness of "
              "the response in the evidence; the value is their F1." + _DSPY_EXACT % (
                  "CompleteAndGrounded", "AnswerCompleteness, then AnswerGroundedness"),
              cls="CompleteAndGrounded", target=TargetCategory.GENERATION_FAITHFULNESS, cost_msats=300,
              pass_threshold=0.66,
              inputs=("example.query", "example.reference_answer", "prediction.response", "prediction.retrieved"),
              params=(*_EVIDENCE, _THRESHOLD), version="2"),
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
              "verdict never depends on the other contexts); with `one_call=True` one call judges every "
              "context, a verdict each in rank order, as DeepEval's ContextualPrecisionMetric asks. "
              "Value, as ragas computes it: "
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
                                aliases=("top_k",)),
                      ParamSpec(name="one_call", type="bool", default=False, identity=True,
                                description="judge every context in one call, as DeepEval does (one call "
                                            "per sample instead of one per context)")),
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
        *_relevancy_specs(),
        *_geval_specs(),
        _pairwise_spec(),
        _custom_spec(),
        *_conversation_specs(),
        *_agent_specs(),
        *_safety_specs(),
        *_task_specs(),
        _spec("task_completion", "Judged degree, 0 to 1, to which the agent achieved the user's task.",
              "DeepEval's TaskCompletionMetric. Two calls: the judge reads the workflow and states the task (the "
              "user's objective) and the outcome (factually, without reasoning); then it gives a verdict from 0 "
              "(the outcome does not achieve the task) to 1 (achieves it perfectly), with a reason. Value = the "
              "verdict. The workflow is the turns (example.turns then prediction.turns, tool calls and tool "
              "turns included) as the agent's trace, as DeepEval reads a trace; without turns, the input "
              "(example.query), prediction.tool_calls and the response, as DeepEval reads input, tools_called "
              "and actual_output. `task` replaces the extracted task in the verdict (DeepEval's task). No "
              "turns, no query, or neither a response nor tool calls skips the sample before any call. "
              + _DEEPEVAL_PARITY,
              module="evalcore_judge.task", cls="TaskCompletion", target=TargetCategory.AGENT_BEHAVIOUR,
              cost_msats=300, pass_threshold=0.5,
              inputs=("example.query", "prediction.response", "prediction.tool_calls", "example.turns",
                      "prediction.turns"),
              params=(ParamSpec(name="task", type="str", nullable=True, identity=True,
                                description="the task, instead of the one the judge extracts (DeepEval's task)"),
                      _LIST_ANSWER),
              version="1"),
        *_MULTIMODAL,
    ]


_SETTINGS = SettingsSpec(
    name="judge",
    summary="the judge of every LLM-judged metric; a metric's parameter of the same name wins",
    options=(
        ReaderOption("--judge-backend", "backend", kind="str",
                     help="Judge backend of every LLM-judged metric: http, litellm, dspy, callable, transformers or "
                          "one another plugin adds (default: implied by the other judge settings)."),
        ReaderOption("--judge-model", "model", kind="str",
                     help="Judge model (http: the server's model name; litellm: a model string; transformers: a "
                          "local path)."),
        ReaderOption("--judge-base-url", "base_url", kind="str",
                     help="OpenAI-compatible API root of the judge, e.g. http://127.0.0.1:8000/v1."),
        ReaderOption("--judge-api-key-env", "api_key_env", kind="str",
                     help="Environment variable holding the judge's API key (default OPENAI_API_KEY)."),
        ReaderOption("--judge-batch", "batch", kind="flag",
                     help="Send the judge's requests through a batch API at the batch rate (half the price; "
                          "answers may take up to 24 hours)."),
        ReaderOption("--judge-batch-api", "batch_api", kind="str",
                     help="Batch API of --judge-batch: openai (the Batch API, default) or anthropic "
                          "(Message Batches)."),
        ReaderOption("--judge-batch-poll-s", "batch_poll_s", kind="float",
                     help="Seconds between polls of a batch (default 30)."),
        ReaderOption("--judge-temperature", "temperature", kind="float",
                     help="Sampling temperature of every LLM-judged metric (default 0)."),
        ReaderOption("--judge-seed", "seed", kind="int",
                     help="Seed of every LLM-judged metric, sent where the backend takes one (default 0)."),
        ReaderOption("--judge-max-tokens", "max_tokens", kind="int",
                     help="Longest judge answer, in tokens (default 256; metrics that ask for lists keep their "
                          "own 2048)."),
    ),
    variables={
        "backend": ("EVALCORE_JUDGE_BACKEND",), "model": ("EVALCORE_JUDGE_MODEL",),
        "base_url": ("EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL"), "api_key_env": ("EVALCORE_JUDGE_API_KEY_ENV",),
        "judge": ("EVALCORE_JUDGE_CALLABLE",), "gguf_file": ("EVALCORE_JUDGE_GGUF_FILE",),
        "batch": ("EVALCORE_JUDGE_BATCH",), "batch_api": ("EVALCORE_JUDGE_BATCH_API",),
        "batch_poll_s": ("EVALCORE_JUDGE_BATCH_POLL_S",), "temperature": ("EVALCORE_JUDGE_TEMPERATURE",),
        "seed": ("EVALCORE_JUDGE_SEED",), "max_tokens": ("EVALCORE_JUDGE_MAX_TOKENS",),
    },
)
_BACKENDS = {
    "http": "an OpenAI-compatible chat-completions server (base_url, model, api_key_env)",
    "litellm": "a LiteLLM model string (extra evalcore-judge[litellm])",
    "dspy": "the LM DSPy is configured with",
    "callable": "a Python callable answering each prompt (judge=<callable or 'module:attr'>)",
    "transformers": "a local model directory or .gguf file (model, gguf_file)",
}


@hookimpl
def evalcore_settings() -> list[SettingsSpec]:
    """The judge's run settings: ``context.settings["judge"]``."""
    return [_SETTINGS]


@hookimpl
def evalcore_backends() -> list[BackendSpec]:
    """The judge backends this plugin provides, each made by a factory in :mod:`evalcore_judge.config`."""
    return [BackendSpec(name=name, group="judge", implementation=f"evalcore_judge.config:{name}_backend",
                        summary=summary) for name, summary in _BACKENDS.items()]


@hookimpl
def evalcore_commands() -> list[CommandSpec]:
    """``evalcore simulate``: simulated users against the system under test, scored by the conversation metrics;
    ``evalcore align``: a custom judge measured against human labels and a new version learnt from them."""
    return [CommandSpec(name="simulate", implementation="evalcore_judge.simulate_cli:simulate_command",
                        summary="Simulate users against a program or chat endpoint and score the conversations."),
            CommandSpec(name="align", implementation="evalcore_judge.align_cli:align_command",
                        summary="Measure a custom judge against human labels and learn a new version from them.")]
