"""Metric implementations: the base classes plugins subclass.

* :class:`SampleMetric` scores one example/prediction pair (``score``, or ``ascore`` when
  the work is I/O-bound, e.g. an LLM call).
* :class:`BatchMetric` scores many pairs at once (vectorised retrieval metrics).
* :class:`CorpusMetric` scores a whole dataset from per-sample partial states that merge,
  so a value computed over shards equals the value over the whole.

An instance is bound to validated parameters; the framework builds it from a
:class:`~evalcore.MetricSpec` (see :meth:`Metric.from_spec`).
"""

from __future__ import annotations

import asyncio
import inspect
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import attrs

from evalcore._lazy import publish

from .batch import batch_results
from .context import RunContext
from .errors import EvalcoreError, ParameterError, ScoringError, SetupError, SkipSample
from .fields import as_record
from .identity import canonical_id
from .origin import Origin
from .scores import ColumnScores, Score, Status, coerce_score, within_caps
from .spec import Granularity, MetricSpec

if TYPE_CHECKING:
    from .array_state import ArrayStates, Reduction

Record = Mapping[str, Any]
State = TypeVar("State")


@attrs.frozen
class FeedbackScore:
    """A score with textual feedback, for optimizers that read feedback (DSPy's GEPA)."""

    score: float
    feedback: str | None
    details: Mapping[str, Any] = attrs.field(factory=dict)


class Metric:
    """Base class of every metric implementation.

    The lifecycle: construction binds and validates the parameters (``spec``, ``params`` with
    defaults filled in, ``id``, ``origin``) and runs :meth:`setup`, which prepares what the
    parameters alone determine; :meth:`open` joins a run and builds clients, caches and
    models from its :class:`~evalcore.plugin.RunContext`; :meth:`close` releases them. The
    engine opens every metric before the first sample and closes it when the run ends; a
    metric scored directly (``score_one``, a DSPy-style call) opens itself on first use with
    a context read from the environment.
    """

    granularity: ClassVar[Granularity] = Granularity.SAMPLE
    default_timeout_s: ClassVar[float | None] = None
    """The per-sample time limit when neither the run nor a ``timeout_s`` parameter sets
    one; model-backed and execution metrics set it, cheap ones leave it ``None``."""
    context: RunContext | None
    """The run the metric has joined (``None`` until :meth:`open`)."""
    trec_eval_summary_only: ClassVar[bool] = False
    """Whether output in trec_eval's ``-q`` format shows only this metric's ``all`` line, as
    trec_eval does for ``num_q`` (geometric means, ``aggregate='gmean'``, are shown only there anyway)."""

    def __init__(
        self, spec: MetricSpec, params: Mapping[str, Any] | None = None,
        origin: Origin | None = None,
    ) -> None:
        self.spec = spec
        self.params: dict[str, Any] = spec.bind_params(dict(params or {}))
        self.id = canonical_id(spec, self.params)
        self.origin = origin or Origin.local()
        self.context = None
        try:
            self.setup()
        except EvalcoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a setup failure is named by the metric's id
            raise EvalcoreError(f"{self.id}: cannot be set up: {type(exc).__name__}: {str(exc)[:2000]}") from exc

    @classmethod
    def from_spec(cls, spec: MetricSpec, origin: Origin | None = None, **params: Any) -> Metric:
        """Build the implementation named by ``spec`` with ``params``."""
        return cls(spec, params, origin)

    def setup(self) -> None:
        """Preparation from the parameters alone (compile a pattern, check a combination);
        runs at construction. Clients, caches and models belong in :meth:`open`."""

    def parameter_error(self, name: str, problem: str) -> ParameterError:
        """A :class:`SetupError` (a :class:`ParameterError`) naming this metric's id and its parameter ``name``."""
        return SetupError(self.id, name, problem)

    def open(self, context: RunContext) -> None:
        """Join a run: build what scoring needs from ``context`` (override, calling ``super().open``).

        Take settings with ``context.setting(self.params, name)`` (the metric's own parameter
        wins over the run's) and keys with ``context.secret(...)``, never from ``os.environ``;
        evalcore-http builds caches and clients from ``context`` (``run_cache``, ``run_client``).
        """
        self.context = context

    def close(self) -> None:
        """Release what :meth:`open` built and leave the run (override, calling ``super().close``)."""
        self.context = None

    def join(self, context: RunContext) -> None:
        """:meth:`open` with ``context``, a failure named by the metric's id (what the engine calls)."""
        try:
            self.open(context)
        except EvalcoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - an open failure is named by the metric's id
            raise EvalcoreError(f"{self.id}: cannot be opened: {type(exc).__name__}: {str(exc)[:2000]}") from exc

    def recorded_params(self) -> dict[str, Any]:
        """The parameters a run records for this metric (the journal header, the report's provenance),
        which ``compare`` checks: the metric's own. A metric that takes settings from the run context
        overrides it to record the values it used (a judge's backend and model)."""
        return dict(self.params)

    def ensure_open(self) -> None:
        """Open the metric with a context read from the environment, unless it has joined a run or was
        opened by :func:`evalcore.get_metric` (which also reads the settings groups plugins declare)."""
        if self.context is None:
            self.join(RunContext.from_environment())

    def estimate(self, example: Record, prediction: Record) -> dict[str, int]:
        """The expected cost of scoring one pair: ``calls``, ``prompt_tokens``,
        ``completion_tokens`` and ``cost_msats`` (an upper bound, for the budget and dry
        runs). The default is the spec's per-sample cost and no model call."""
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_msats": self.spec.cost_msats}

    def usage_summary(self) -> dict[str, Any]:
        """What this instance has used so far (calls, tokens, cost, cache hits); reported with
        the metric's aggregate. Metrics that call models or caches override it."""
        return {}

    def summary_details(self) -> dict[str, Any]:
        """Extra details of the metric's aggregate, from the records this instance scored (e.g. the
        agreement between a judge panel's members); merged into the aggregate's ``details``. Default: none."""
        return {}

    def summary_state(self) -> Any:
        """What :meth:`summary_details` is computed from, for the records this instance scored: a
        picklable value that :meth:`absorb_summary_state` of another instance takes (an executor's
        worker process scores with copies of the metric; the run's own instance absorbs their states
        before it is summarised). Default ``None``: nothing to carry."""
        return None

    def absorb_summary_state(self, state: Any) -> None:
        """Count another instance's :meth:`summary_state` as scored by this one. Default: nothing."""

    def value_if_none_scored(self) -> float | None:
        """The aggregate reported when no record could be scored: ``None`` (shown as ``null``, never a
        made-up 0) unless the metric follows a convention that defines one (the Auepora RAG metric
        spec's 0.0 with ``num_samples`` 0)."""
        return None

    def trec_eval_name(self) -> str | None:
        """The measure name trec_eval prints for this metric with its parameters (``P_10``,
        ``ndcg``, ``utility_2,-1,0,0``), or ``None`` when trec_eval has no such measure.

        Output in trec_eval's ``-q`` format (``evalcore evaluate --per-query``) prints it, so
        that tools reading trec_eval's output read it unchanged; a metric without one is
        printed under the name it was asked for."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"

    # -- scoring one pair, whatever the kind -----------------------------------------

    def score_one(self, example: Record, prediction: Record) -> Score:
        """Score one pair; exceptions become ``error`` results, :class:`SkipSample` ``skipped``."""
        self.ensure_open()
        return self.score_many([example], [prediction])[0]

    def score_many(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        """Score pairs; one failing pair never hides the results of the others."""
        raise NotImplementedError

    # -- DSPy calling convention -----------------------------------------------------

    def __call__(
        self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None,
        pred_trace: Any = None,
    ) -> Any:
        """Call the metric DSPy-style: a float, or pass/fail when ``trace`` is given.

        Called with the five arguments of DSPy's GEPA (``pred_name`` or ``pred_trace``
        given), a metric that has feedback returns ``dspy.Prediction(score=..., feedback=...)``
        so the optimiser reads the explanation. Errors propagate as exceptions (DSPy's
        ``Evaluate`` applies its ``failure_score``); a sample the metric cannot score raises
        :class:`SkipSample`.
        """
        score = self._dspy_score(gold, pred)
        value = self.spec.passes(score.value) if trace is not None else score.value
        if (pred_name is not None or pred_trace is not None) and score.feedback is not None:
            import dspy

            return dspy.Prediction(score=value, feedback=score.feedback)
        return value

    def feedback(self, gold: Any, pred: Any) -> FeedbackScore:
        """Score one pair and return the value with the metric's feedback text."""
        score = self._dspy_score(gold, pred)
        return FeedbackScore(score.value, score.feedback, score.details)

    def _dspy_score(self, gold: Any, pred: Any) -> Score:
        score = self.score_one(as_record(gold, role="example"), as_record(pred, role="prediction"))
        if score.status is Status.SKIPPED:
            raise SkipSample(f"{self.id}: {score.reason}")
        if score.status is Status.ERROR:
            raise ScoringError(f"{self.id}: {score.error_type}: {score.error_message}")
        return score


def guarded_call(fn: Callable[..., Any], check: Callable[[Any], Score]) -> Callable[..., Score]:
    """``fn`` as a call whose every outcome is a :class:`Score`: what it returns passed through
    ``check`` (see :func:`result_check`), a skip, or an error. Only ``KeyboardInterrupt``
    propagates; one sample's failure (``SystemExit`` too) is a result."""

    def call(*args: Any) -> Score:
        try:
            return check(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - one sample's failure (SystemExit too) is a result
            return Score.from_exception(exc)

    return call


async def aguarded(fn: Any, *args: Any) -> Score:
    """Await a scoring coroutine and turn its outcome or exception into a :class:`Score`.

    When ``fn`` is a metric's method, a value outside the metric's declared range is an error.
    """
    try:
        return within_range(coerce_score(await fn(*args)), _spec_of(fn))
    except BaseException as exc:  # noqa: BLE001 - one sample's failure is a result
        return Score.from_exception(exc)


EXACT_TOLERANCE = 1e-9
"""How far past its declared range a value may lie and be kept as it is: the last bits of a sum
(sacrebleu's BLEU of identical texts is 100.00000000000004), so numbers stay the references' own."""
ROUNDING_TOLERANCE = 1e-6
"""How far past its declared range a value may lie and still count as floating-point rounding
(relative to the bound, absolute below 1): such a value is clipped to the bound and the row notes it."""


def within_range(score: Score, spec: MetricSpec | None) -> Score:
    """``score``; a value past the declared range by rounding only, clipped to it (the row's
    ``details.clipped_from`` keeps the value computed); else an ``error`` naming the range."""
    if spec is None or score.status is not Status.OK or score.value is None:
        return score
    lowest, highest = value_bounds(spec)
    value = score.value
    if lowest <= value <= highest:
        return score
    low, high = spec.value_range
    bound = float(low if value < lowest else high)  # type: ignore[arg-type] - the side that is finite
    if abs(value - bound) <= ROUNDING_TOLERANCE * max(1.0, abs(bound)):
        return attrs.evolve(score, value=bound, details={**score.details, "clipped_from": value})
    bounds = f"[{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}]"
    return Score.error("ValueOutOfRange", f"{spec.key}: value {value!r} is outside its declared range {bounds}",
                       value=value)


def value_bounds(spec: MetricSpec) -> tuple[float, float]:
    """The declared value range widened by :data:`EXACT_TOLERANCE` (infinite where open): values
    inside are kept exactly as computed."""
    low, high = spec.value_range
    return (-math.inf if low is None else low - EXACT_TOLERANCE * max(1.0, abs(low)),
            math.inf if high is None else high + EXACT_TOLERANCE * max(1.0, abs(high)))


def result_check(spec: MetricSpec | None) -> Callable[[Any], Score]:
    """``raw -> within_range(coerce_score(raw), spec)``, the bounds worked out once and the
    common case (a float, or an ``ok`` :class:`Score` with nothing to cap, inside the range)
    decided without further calls. For scoring many samples of one metric."""
    lowest, highest = value_bounds(spec) if spec is not None else (-math.inf, math.inf)
    lowest, highest = max(lowest, -sys.float_info.max), min(highest, sys.float_info.max)  # infinities: checked
    ok = Status.OK

    def check(raw: Any) -> Score:
        kind = type(raw)
        if kind is float:
            if lowest <= raw <= highest:
                return Score(raw)
        elif kind is Score and raw.status is ok:
            value = raw.value
            if type(value) is float and lowest <= value <= highest and within_caps(raw):
                return raw
        return within_range(coerce_score(raw), spec)

    return check


def _spec_of(fn: Any) -> MetricSpec | None:
    owner = getattr(fn, "__self__", None)
    return owner.spec if isinstance(owner, Metric) else None


class SampleMetric(Metric):
    """A metric that scores one example/prediction pair at a time.

    Implement :meth:`score` (sync) or :meth:`ascore` (async). Return a number, a bool,
    ``(value, feedback)``, or a :class:`~evalcore.Score`; raise
    :class:`~evalcore.SkipSample` to skip a sample.
    """

    io_bound: ClassVar[bool] = False
    """Whether a synchronous :meth:`score` spends its time waiting (on the network, a
    subprocess, or native code that releases the GIL). The engine scores such metrics on
    worker threads, ``concurrency`` at a time; the others on its own thread, since Python
    code on more threads only takes turns under the GIL (and the turns cost). A metric
    with a per-sample time limit always runs on worker threads, where it can be abandoned."""

    def score(self, example: Record, prediction: Record) -> Any:
        raise NotImplementedError(f"{type(self).__name__} implements neither score nor ascore")

    async def ascore(self, example: Record, prediction: Record) -> Any:
        return self.score(example, prediction)

    @property
    def is_async(self) -> bool:
        """Whether the subclass implements :meth:`ascore` itself (evaluated on the event loop)."""
        return type(self).ascore is not SampleMetric.ascore

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> Sequence[Any]:
        """Optional: :meth:`score` of many pairs in one call (cheap text metrics: each distinct
        string normalised once, no call per pair). One result per pair, each what :meth:`score`
        gives that pair (a :class:`~evalcore.Score` for a skip or an error). Used, when a
        subclass implements it, by :meth:`score_many` and by the engine for a chunk scored on
        the engine's own thread (no time limit, no budget); if it raises, every pair of the call is
        scored by :meth:`score` instead, so one bad pair is one error."""
        raise NotImplementedError

    @property
    def batched(self) -> bool:
        """Whether the subclass implements :meth:`score_batch`."""
        return type(self).score_batch is not SampleMetric.score_batch

    def score_many(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        self.ensure_open()
        if self.is_async:
            async def run_all() -> list[Score]:
                return list(await asyncio.gather(
                    *(aguarded(self.ascore, e, p) for e, p in zip(examples, predictions))
                ))

            return asyncio.run(run_all())
        check = result_check(self.spec)
        call = guarded_call(self.score, check)
        if self.batched:
            return batch_results(self.score_batch, call, check, examples, predictions, self.id)
        return [call(e, p) for e, p in zip(examples, predictions)]


class BatchMetric(Metric):
    """A metric that scores many pairs in one call (vectorised).

    Implement :meth:`score_batch`, returning one result per pair in the same forms a
    :class:`SampleMetric` may return (a :class:`~evalcore.Score` for skips and errors).
    """

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> Sequence[Any]:
        raise NotImplementedError

    def accepts_columns(self, columns: Any) -> bool:
        """Whether :meth:`score_columns` reads this reader's columnar chunk (``False`` by default)."""
        return False

    def score_columns(self, columns: Any) -> ColumnScores:
        """Score a reader's columnar chunk directly (e.g. TREC runs for retrieval metrics),
        when :meth:`accepts_columns` says so; the engine uses the records otherwise."""
        raise NotImplementedError

    def score_many(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        self.ensure_open()
        try:
            raw = self.score_batch(examples, predictions)
        except Exception as exc:  # noqa: BLE001 - isolate the bad pair by scoring one at a time
            if len(examples) == 1:
                return [Score.error(exc)]
            return [self.score_one(e, p) for e, p in zip(examples, predictions)]
        if len(raw) != len(examples):
            raise ScoringError(f"{self.id} returned {len(raw)} results for {len(examples)} samples")
        call = guarded_call(_identity, result_check(self.spec))
        return [call(r) for r in raw]


def _identity(value: Any) -> Any:
    return value


class CorpusMetric(Metric, Generic[State]):
    """A metric over a whole dataset, computed from mergeable per-sample states.

    Implement :meth:`sample_state` (the partial statistics of one pair; raise
    :class:`~evalcore.SkipSample` to leave it out), :meth:`merge` (combine states; ``merge([])``
    is the empty state) and :meth:`compute` (the value of a merged state). Merging is
    associative, so shards can be scored separately and combined.
    """

    granularity: ClassVar[Granularity] = Granularity.CORPUS
    bootstrap: ClassVar[bool] = True
    """Whether resampling samples with replacement gives a meaningful interval. Statistics
    that count distinct items (distinct-n) are biased by the duplicates a resample holds,
    so they set this to ``False`` and report no interval."""

    state_fields: Mapping[str, Reduction] = {}
    """Declared state (as torchmetrics' ``add_state``): column name -> ``"sum"``, ``"min"`` or
    ``"max"``. When declared, :meth:`sample_state` returns a 1-D integer numpy array in this column
    order; merging, journalling and every resampling (intervals, ``compare``'s paired tests) are
    then generic matrix operations (see :meth:`values`). A metric whose columns depend on its
    parameters sets this in :meth:`setup`. Left empty, a state is any plain data
    and the metric implements :meth:`merge`."""

    def sample_state(self, example: Record, prediction: Record) -> State:
        raise NotImplementedError

    def merge(self, states: Sequence[State]) -> State:
        if not self.state_fields:
            raise NotImplementedError
        return self.stack(states).merged()  # type: ignore[union-attr,return-value]

    def stack(self, states: Sequence[State]) -> ArrayStates | None:
        """Declared states stacked into a matrix (``None`` for a metric without ``state_fields``)."""
        if not self.state_fields:
            return None
        from .array_state import ArrayStates

        return ArrayStates(self.state_fields, [s for s in states if s is not None])  # type: ignore[arg-type]

    def values(self, merged: Any) -> Any:
        """The corpus value of each merged declared state (a row of ``merged``, as
        :meth:`ArrayStates.resampled` gives them); NaN where it cannot be computed. Override with
        a vectorised computation where one exists."""
        import numpy as np

        out = np.empty(len(merged))
        for i, row in enumerate(merged):
            score = guarded_call(lambda row=row: self.compute(row), result_check(self.spec))()
            out[i] = score.value if score.ok and score.value is not None else np.nan
        return out

    def compute(self, state: State) -> Any:
        raise NotImplementedError

    def sample_value(self, state: State) -> float | None:
        """A per-sample value shown next to each record (``None`` by default)."""
        return None

    def encode_state(self, state: State) -> Any:
        """A JSON-ready form of a state, for the samples journal (resume, compare)."""
        if self.state_fields:
            return state.tolist()  # type: ignore[attr-defined]
        from .state_codec import StateCodecError, encode_state

        try:
            return encode_state(state)
        except StateCodecError as exc:
            raise StateCodecError(f"{self.id}: {exc}") from None

    def decode_state(self, data: Any) -> State:
        """The state :meth:`encode_state` wrote."""
        if self.state_fields:
            return _declared_state(self, data)  # type: ignore[return-value]
        from .state_codec import StateCodecError, decode_state

        try:
            return decode_state(data)
        except StateCodecError as exc:
            raise StateCodecError(f"{self.id}: {exc}") from None

    def states(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[tuple[Score, Any]]:
        """Per-sample ``(score, state)``; the state is ``None`` for skipped and failed samples."""
        self.ensure_open()
        results: list[tuple[Score, Any]] = []
        for example, prediction in zip(examples, predictions):
            try:
                state = self.sample_state(example, prediction)
                results.append((Score(self.sample_value(state)), state))
            except BaseException as exc:  # noqa: BLE001 - one sample's failure is a result
                results.append((Score.from_exception(exc), None))
        return results

    def corpus_score(self, states: Sequence[State]) -> Score:
        """The corpus value of ``states`` (an ``error`` result if computing it fails).

        ``None`` states (samples that were skipped or failed) are left out.
        """
        return guarded_call(lambda: self.compute(self.merge([s for s in states if s is not None])),
                            result_check(self.spec))()

    def score_many(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        """Per-sample status for each pair (the corpus value comes from :meth:`corpus_score`)."""
        return [score for score, _ in self.states(examples, predictions)]


def _declared_state(metric: CorpusMetric[Any], data: Any) -> Any:
    """A journalled declared state: a list of integers, one per declared column."""
    import numpy as np

    from .state_codec import StateCodecError

    width = len(metric.state_fields)
    if not (isinstance(data, list) and len(data) == width
            and all(isinstance(x, int) and not isinstance(x, bool) for x in data)):
        raise StateCodecError(f"{metric.id}: a journalled state must be a list of {width} integers")
    return np.asarray(data, dtype=np.int64)


def implementation_kind(obj: Any) -> str:
    """``"sample"``, ``"batch"`` or ``"corpus"`` for a metric class or instance."""
    cls = obj if inspect.isclass(obj) else type(obj)
    for kind, base in (("corpus", CorpusMetric), ("batch", BatchMetric), ("sample", SampleMetric)):
        if issubclass(cls, base):
            return kind
    raise TypeError(f"{cls.__name__} is not an evalcore metric class")


publish(globals())
