"""Same number as the references, computed by the references themselves.

* ``agent/tool_call_correctness`` and ``agent/tool_argument_correctness`` against DeepEval's
  ``ToolCorrectnessMetric`` (its deterministic score: no ``available_tools``, so no model is asked;
  the metric gets a model object that fails if it is ever called, and telemetry is off);
* ``agent/trajectory_match`` against agentevals' trajectory match evaluators.

Cases are generated with hypothesis: tool names and argument keys from small alphabets so that
calls collide, nested argument values, repeats and shuffles of the expected calls, and both record
forms (``prediction.tool_calls`` and conversation ``turns``). Argument values avoid 0 and 1: both
references compare with Python equality, where ``True == 1`` (see ``test_edge_cases.py``).
"""

from __future__ import annotations

import json
from typing import Any

import evalcore
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- generated cases -------------------------------------------------------------------------------

NAMES = st.sampled_from(["search", "fetch", "Search"])
KEYS = st.sampled_from(["q", "k", "page"])
SCALARS = st.one_of(st.sampled_from([2, 3, 2.0, 7.5, "paris", "Paris", "rome", None, True, False]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                       st.dictionaries(KEYS, inner, max_size=2)), max_leaves=4)
ARGUMENTS = st.dictionaries(KEYS, VALUES, max_size=3)
RESULTS = st.sampled_from([None, "ok", "error"])


@st.composite
def calls(draw: st.DrawFn, results: bool = False) -> dict[str, Any]:
    call = {"name": draw(NAMES), "arguments": draw(ARGUMENTS)}
    if results:
        call["result"] = draw(RESULTS)
    return call


def contested(results: bool = False) -> st.SearchStrategy:
    """Calls of one tool with few argument values, where a greedy pairing and the best one part ways."""
    call = st.fixed_dictionaries({"name": st.just("search"), "arguments": st.dictionaries(
        KEYS, st.sampled_from(["paris", "rome"]), max_size=3), **({"result": RESULTS} if results else {})})
    return st.tuples(st.lists(call, min_size=2, max_size=3), st.lists(call, min_size=2, max_size=3))


@st.composite
def cases(draw: st.DrawFn, results: bool = False) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(expected calls, calls made): the calls made mix copies of expected calls, their argument
    subsets and supersets, fresh calls and exact repeats, in any order; the same tool may be expected
    more than once. A quarter of the cases call one tool with few argument values, where a greedy
    pairing and the best one part ways."""
    if draw(st.integers(0, 3)) == 0:
        return draw(contested(results))
    expected = draw(st.lists(calls(results), max_size=4))

    @st.composite
    def related(draw2: st.DrawFn) -> dict[str, Any]:
        base = dict(draw2(st.sampled_from(expected)))
        change = draw2(st.sampled_from(["same", "fewer", "more", "other"]))
        arguments = dict(base["arguments"])
        if change == "fewer" and arguments:
            arguments.pop(draw2(st.sampled_from(sorted(arguments))))
        elif change == "more":
            arguments[draw2(KEYS)] = draw2(VALUES)
        elif change == "other":
            arguments = draw2(ARGUMENTS)
        return {**base, "arguments": arguments}

    if expected and draw(st.booleans()):  # the same tool expected again, with the same or other arguments
        expected = expected + draw(st.lists(related(), min_size=1, max_size=2))
    pool = st.one_of(related(), calls(results)) if expected else calls(results)
    made = draw(st.lists(pool, max_size=5))
    if made and draw(st.booleans()):  # a call repeated as it was
        made = draw(st.permutations(made + draw(st.lists(st.sampled_from(made), min_size=1, max_size=2))))
    return expected, made


@st.composite
def records(draw: st.DrawFn, results: bool = False) -> tuple[dict[str, Any], dict[str, Any], list, list]:
    """An evalcore record pair for a generated case; the calls made are flat or inside turns."""
    expected, made = draw(cases(results))
    example = {"expected_tool_calls": expected}
    if draw(st.booleans()):
        return example, {"tool_calls": made}, expected, made
    turns: list[dict[str, Any]] = [{"role": "user", "content": "question"}]
    i = 0
    while i < len(made):
        size = draw(st.integers(1, 3))
        turns.append({"role": "assistant", "content": "", "tool_calls": made[i:i + size]})
        turns += [{"role": "tool", "content": str(c.get("result"))} for c in made[i:i + size]]
        i += size
    turns.append({"role": "assistant", "content": "done"})
    return example, {"turns": turns}, expected, made


def evalcore_value(metric_id: str, example: dict, prediction: dict, **params: Any) -> float:
    score = evalcore.get_metric(metric_id, **params).score_one(example, prediction)
    assert score.status.value == "ok", score
    return score.value


# -- DeepEval --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deepeval_score():
    """``deepeval_score(expected, made, **options)`` -> DeepEval's ToolCorrectnessMetric score, offline."""
    pytest.importorskip("deepeval", reason="the test extra installs DeepEval")
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoModel(DeepEvalBaseLLM):
        """Stands in for the judge model, which the deterministic score never asks."""

        def __init__(self) -> None:
            super().__init__("no-model")

        def load_model(self) -> NoModel:
            return self

        def generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("DeepEval asked a model")

        async def a_generate(self, *args: Any, **kwargs: Any) -> str:
            raise AssertionError("DeepEval asked a model")

        def get_model_name(self) -> str:
            return "no-model"

    model = NoModel()

    def to_deepeval(call: dict[str, Any]) -> Any:
        return ToolCall(name=call["name"], input_parameters=call["arguments"], output=call.get("result"))

    def score(expected: list, made: list, *, arguments: bool = False, results: bool = False, **options: Any) -> float:
        params = ([ToolCallParams.INPUT_PARAMETERS] if arguments else []) + ([ToolCallParams.OUTPUT] if results else [])
        metric = ToolCorrectnessMetric(model=model, async_mode=False, include_reason=False,
                                       evaluation_params=params, **options)
        case = LLMTestCase(input="question", tools_called=[to_deepeval(c) for c in made],
                           expected_tools=[to_deepeval(c) for c in expected])
        return metric.measure(case, _show_indicator=False)

    return score


DEEPEVAL_MODES = {"unordered": {}, "ordered": {"should_consider_ordering": True},
                  "exact": {"should_exact_match": True}}
AS_DEEPEVAL = {"matching": "greedy", "count_repeats": False}  # DeepEval's pairing (see the metric description)


@pytest.mark.parametrize("mode", sorted(DEEPEVAL_MODES))
@pytest.mark.parametrize("results", [False, True], ids=["names", "names+results"])
@SETTINGS
@given(data=st.data())
def test_tool_call_correctness_equals_deepeval(deepeval_score, mode, results, data):
    example, prediction, expected, made = data.draw(records(results))
    ours = evalcore_value("agent/tool_call_correctness", example, prediction, mode=mode, compare_results=results,
                          **AS_DEEPEVAL)
    assert ours == pytest.approx(deepeval_score(expected, made, results=results, **DEEPEVAL_MODES[mode]), abs=1e-12)


@pytest.mark.parametrize("mode", sorted(DEEPEVAL_MODES))
@pytest.mark.parametrize("results", [False, True], ids=["arguments", "arguments+results"])
@SETTINGS
@given(data=st.data())
def test_tool_argument_correctness_equals_deepeval(deepeval_score, mode, results, data):
    example, prediction, expected, made = data.draw(records(results))
    ours = evalcore_value("agent/tool_argument_correctness", example, prediction, mode=mode,
                          compare_results=results, **AS_DEEPEVAL)
    theirs = deepeval_score(expected, made, arguments=True, results=results, **DEEPEVAL_MODES[mode])
    assert ours == pytest.approx(theirs, abs=1e-9)  # DeepEval adds argument shares in set order


@SETTINGS
@given(case=contested())
def test_contested_pairings_equal_deepeval(deepeval_score, case):
    expected, made = case
    example, prediction = {"expected_tool_calls": expected}, {"tool_calls": made}
    ours = evalcore_value("agent/tool_argument_correctness", example, prediction, **AS_DEEPEVAL)
    assert ours == pytest.approx(deepeval_score(expected, made, arguments=True), abs=1e-9)


@SETTINGS
@given(data=st.data())
def test_defaults_equal_deepeval_where_its_pairing_is_not_at_issue(deepeval_score, data):
    """Names only and no call repeated with the same arguments and result: the default pairing is DeepEval's."""
    example, prediction, expected, made = data.draw(records())
    distinct = [c for i, c in enumerate(made) if c not in made[:i]]
    if len(distinct) != len(made):
        prediction = {"tool_calls": distinct}
    assert evalcore_value("agent/tool_call_correctness", example, prediction) == \
        pytest.approx(deepeval_score(expected, distinct), abs=1e-12)


@SETTINGS
@given(data=st.data())
def test_the_best_pairing_scores_at_least_deepevals(deepeval_score, data):
    example, prediction, expected, made = data.draw(records())
    best = evalcore_value("agent/tool_argument_correctness", example, prediction, count_repeats=False)
    assert best >= deepeval_score(expected, made, arguments=True) - 1e-9


# -- agentevals ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def agentevals_match():
    """``agentevals_match(mode, expected, made, args_mode, overrides)`` -> agentevals' verdict (bool)."""
    pytest.importorskip("agentevals", reason="the test extra installs agentevals")
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    def match(mode: str, expected: list, made: list, args_mode: str = "exact",
              overrides: dict[str, Any] | None = None) -> bool:
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, tool_args_match_mode=args_mode,
                                                      tool_args_match_overrides=overrides)
        result = evaluator(outputs=messages(made), reference_outputs=messages(expected))
        return bool(result["score"])

    return match


def messages(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An OpenAI-style trajectory with each call in its own assistant message, followed by its result."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "question"}]
    for i, call in enumerate(calls):
        out.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call{i}", "type": "function",
             "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}]})
        out.append({"role": "tool", "content": str(call.get("result")), "tool_call_id": f"call{i}"})
    return out


OUR_MODE = {"strict": "exact", "unordered": "unordered", "subset": "subset", "superset": "superset"}
# agentevals' argument modes as evalcore's rules; in its subset mode agentevals applies them with the roles swapped
OUR_ARGUMENTS = {"exact": "exact", "ignore": "ignore", "superset": "expected_keys", "subset": "actual_keys"}
SWAPPED = {"exact": "exact", "ignore": "ignore", "superset": "actual_keys", "subset": "expected_keys"}


def our_rule(mode: str, args_mode: Any) -> Any:
    if isinstance(args_mode, list):
        return args_mode
    return (SWAPPED if mode == "subset" else OUR_ARGUMENTS)[args_mode]


OVERRIDES = st.one_of(st.none(), st.dictionaries(NAMES, st.one_of(
    st.sampled_from(["exact", "ignore", "superset", "subset"]),
    st.lists(st.sampled_from(["q", "k", "page", "q.k", "page.q"]), min_size=1, max_size=2, unique=True)),
    max_size=2))


@pytest.mark.parametrize("mode", ["strict", "subset", "superset"])
@pytest.mark.parametrize("args_mode", ["exact", "ignore", "superset", "subset"])
@SETTINGS
@given(data=st.data())
def test_trajectory_match_equals_agentevals(agentevals_match, mode, args_mode, data):
    example, prediction, expected, made = data.draw(records())
    overrides = data.draw(OVERRIDES)
    ours = evalcore_value(
        "agent/trajectory_match", example, prediction, mode=OUR_MODE[mode], arguments=our_rule(mode, args_mode),
        arguments_by_tool=None if overrides is None else {k: our_rule(mode, v) for k, v in overrides.items()},
        matching="greedy")
    assert ours == float(agentevals_match(mode, expected, made, args_mode, overrides))


@pytest.mark.parametrize("mode", ["subset", "superset"])
@pytest.mark.parametrize("args_mode", ["superset", "subset"])
@SETTINGS
@given(case=contested())
def test_contested_trajectories_equal_agentevals(agentevals_match, mode, args_mode, case):
    expected, made = case
    ours = evalcore_value("agent/trajectory_match", {"expected_tool_calls": expected}, {"tool_calls": made},
                          mode=mode, arguments=our_rule(mode, args_mode), matching="greedy")
    assert ours == float(agentevals_match(mode, expected, made, args_mode))


@pytest.mark.parametrize("args_mode", ["exact", "ignore"])
@SETTINGS
@given(data=st.data())
def test_unordered_trajectory_match_equals_agentevals(agentevals_match, args_mode, data):
    """agentevals' unordered mode with an argument mode that is an equivalence (and key-list overrides)."""
    example, prediction, expected, made = data.draw(records())
    overrides = data.draw(st.one_of(st.none(), st.dictionaries(NAMES, st.lists(KEYS, min_size=1, max_size=2),
                                                               max_size=2)))
    for matching in ("optimal", "greedy"):
        ours = evalcore_value("agent/trajectory_match", example, prediction, mode="unordered", arguments=args_mode,
                              arguments_by_tool=overrides, matching=matching)
        assert ours == float(agentevals_match("unordered", expected, made, args_mode, overrides))


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
@SETTINGS
@given(data=st.data())
def test_default_pairing_equals_agentevals_for_exact_arguments(agentevals_match, mode, data):
    example, prediction, expected, made = data.draw(records())
    ours = evalcore_value("agent/trajectory_match", example, prediction, mode=OUR_MODE[mode])
    assert ours == float(agentevals_match(mode, expected, made))


@pytest.mark.parametrize("mode", ["subset", "superset"])
@SETTINGS
@given(data=st.data())
def test_the_best_pairing_accepts_whatever_agentevals_accepts(agentevals_match, mode, data):
    example, prediction, expected, made = data.draw(records())
    ours = evalcore_value("agent/trajectory_match", example, prediction, mode=mode, arguments="expected_keys")
    theirs = agentevals_match(mode, expected, made, "subset" if mode == "subset" else "superset")
    assert ours >= float(theirs)


def test_the_older_agentevals_functions_ignore_arguments(agentevals_match):
    """trajectory_unordered_match / trajectory_subset / trajectory_superset compare tool names only;
    trajectory_strict_match compares arguments exactly: evalcore's `arguments` says which."""
    pytest.importorskip("agentevals")
    import warnings

    from agentevals.trajectory.strict import trajectory_strict_match
    from agentevals.trajectory.subset import trajectory_subset
    from agentevals.trajectory.superset import trajectory_superset
    from agentevals.trajectory.unordered import trajectory_unordered_match

    expected = [{"name": "search", "arguments": {"q": "paris"}}, {"name": "fetch", "arguments": {"page": 2}}]
    made = [{"name": "fetch", "arguments": {"page": 3}}, {"name": "search", "arguments": {"q": "rome"}}]
    example, prediction = {"expected_tool_calls": expected}, {"tool_calls": made}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        verdicts = {
            "exact": trajectory_strict_match(outputs=messages(made), reference_outputs=messages(expected)),
            "unordered": trajectory_unordered_match(outputs=messages(made), reference_outputs=messages(expected)),
            "subset": trajectory_subset(outputs=messages(made), reference_outputs=messages(expected)),
            "superset": trajectory_superset(outputs=messages(made), reference_outputs=messages(expected)),
        }
    for mode, verdict in verdicts.items():
        arguments = "exact" if mode == "exact" else "ignore"
        ours = evalcore_value("agent/trajectory_match", example, prediction, mode=mode, arguments=arguments)
        assert ours == float(verdict["score"]), mode
    assert [v["score"] for v in verdicts.values()] == [False, True, True, True]


# -- agentevals' strict mode, message by message ---------------------------------------------------

ROLES = st.sampled_from(["assistant", "assistant", "ai"])


@st.composite
def conversations(draw: st.DrawFn, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns making ``calls``: a user turn, then assistant turns of 1 to 3 calls (in any order within
    the turn, some named ``ai``), each followed by tool turns, sometimes an assistant turn with an
    empty call list, and a closing assistant or user turn."""
    turns: list[dict[str, Any]] = [{"role": draw(st.sampled_from(["user", "human"])), "content": "question"}]
    i = 0
    while i < len(calls):
        size = draw(st.integers(1, 3))
        group = draw(st.permutations(calls[i:i + size]))
        turns.append({"role": draw(ROLES), "content": "", "tool_calls": list(group)})
        turns += [{"role": "tool", "content": str(c.get("result"))} for c in group]
        i += size
        if draw(st.integers(0, 4)) == 0:
            turns.append({"role": "assistant", "content": "thinking", "tool_calls": []})
    turns.append({"role": draw(st.sampled_from(["assistant", "assistant", "user"])), "content": "done"})
    return turns


def openai_messages(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """evalcore turns as the OpenAI chat messages agentevals reads."""
    out = []
    for n, turn in enumerate(turns):
        message = {"role": turn["role"], "content": turn["content"]}
        if "tool_calls" in turn:
            message["tool_calls"] = [
                {"id": f"call{n}.{i}", "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                for i, c in enumerate(turn["tool_calls"])]
        out.append(message)
    return out


@pytest.fixture(scope="module")
def agentevals_strict():
    """``agentevals_strict(expected_turns, turns, args_mode, overrides)`` -> agentevals' strict verdict."""
    pytest.importorskip("agentevals", reason="the test extra installs agentevals")
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    def match(expected: list, made: list, args_mode: str = "exact", overrides: dict | None = None) -> bool:
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict", tool_args_match_mode=args_mode,
                                                      tool_args_match_overrides=overrides)
        return bool(evaluator(outputs=openai_messages(made), reference_outputs=openai_messages(expected))["score"])

    return match


@pytest.mark.parametrize("args_mode", ["exact", "ignore", "superset", "subset"])
@SETTINGS
@given(data=st.data())
def test_strict_mode_equals_agentevals_strict(agentevals_strict, args_mode, data):
    """Expected and made calls are both grouped into turns; half the time the calls made are the
    expected ones regrouped or reordered within a message, where agentevals and mode='exact' part ways."""
    expected, made = data.draw(cases())
    expected_turns = data.draw(conversations(expected))
    if data.draw(st.booleans()):
        made_turns = [dict(t, tool_calls=data.draw(st.permutations(t["tool_calls"]))) if t.get("tool_calls")
                      else t for t in expected_turns]
    else:
        made_turns = data.draw(conversations(made))
    overrides = data.draw(OVERRIDES)
    matching = data.draw(st.sampled_from(["greedy", "optimal"])) if args_mode in ("exact", "ignore") else "greedy"
    ours = evalcore_value(
        "agent/trajectory_match", {"expected_tool_calls": expected_turns}, {"turns": made_turns}, mode="strict",
        arguments=our_rule("strict", args_mode), matching=matching,
        arguments_by_tool=None if overrides is None else {k: our_rule("strict", v) for k, v in overrides.items()})
    assert ours == float(agentevals_strict(expected_turns, made_turns, args_mode, overrides))


@SETTINGS
@given(case=cases())
def test_strict_mode_on_call_lists_equals_agentevals_with_a_message_per_call(agentevals_match, case):
    expected, made = case
    ours = evalcore_value("agent/trajectory_match", {"expected_tool_calls": expected}, {"tool_calls": made},
                          mode="strict")
    assert ours == float(agentevals_match("strict", expected, made))


# -- ragas' ToolCallAccuracy ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ragas_accuracy():
    """``ragas_accuracy(expected, made, strict_order)`` -> ragas' ToolCallAccuracy score."""
    import asyncio
    import warnings

    from evalcore.testing import import_ragas

    import_ragas(langchain_openai=False)
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall
    from ragas.metrics import ToolCallAccuracy

    def score(expected: list, made: list, strict_order: bool = True) -> float:
        messages = [HumanMessage(content="question")] + [
            AIMessage(content="", tool_calls=[ToolCall(name=c["name"], args=c["arguments"])]) for c in made]
        sample = MultiTurnSample(user_input=messages, reference_tool_calls=[
            ToolCall(name=c["name"], args=c["arguments"]) for c in expected])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ragas warns of empty lists and length mismatches
            return float(asyncio.run(ToolCallAccuracy(strict_order=strict_order).multi_turn_ascore(sample)))

    return score


@pytest.mark.parametrize("mode", ["ordered", "unordered"])
@SETTINGS
@given(data=st.data())
def test_tool_call_accuracy_equals_ragas(ragas_accuracy, mode, data):
    example, prediction, expected, made = data.draw(records())
    ours = evalcore_value("agent/tool_call_accuracy", example, prediction, mode=mode)
    assert ours == ragas_accuracy(expected, made, strict_order=mode == "ordered")


def test_tool_call_accuracy_by_hand(ragas_accuracy):
    """search(q=paris, k=2) expected, search(q=paris, k=2.0) made: '2' is not '2.0', so 1/2; the
    other call in the wrong order scores 0 ordered; unordered both sort by name: (0.5 + 1) / 2."""
    paris = {"name": "search", "arguments": {"q": "paris", "k": 2}}
    fetch = {"name": "fetch", "arguments": {"url": "a"}}
    made = [fetch, {"name": "search", "arguments": {"q": "paris", "k": 2.0}}]
    cases = [([paris], made[1:], "ordered", 0.5), ([paris, fetch], made, "ordered", 0.0),
             ([paris, fetch], made, "unordered", 0.75), ([], [], "ordered", 1.0), ([paris], [], "ordered", 0.0)]
    for expected, calls, mode, value in cases:
        ours = evalcore_value("agent/tool_call_accuracy", {"expected_tool_calls": expected}, {"tool_calls": calls},
                              mode=mode)
        assert ours == ragas_accuracy(expected, calls, strict_order=mode == "ordered") == value
