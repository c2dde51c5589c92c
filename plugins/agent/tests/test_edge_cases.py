"""Hand-worked cases: the definitions' edges, and where a reference behaves surprisingly.

Where a reference is installed its own answer is asserted beside evalcore's, so each surprise
is shown by the reference itself, not described from memory.
"""

from __future__ import annotations

import json

import pytest

CORRECT = "agent/tool_call_correctness"
ARGS = "agent/tool_argument_correctness"
TRAJ = "agent/trajectory_match"

PARIS = ("search", {"q": "paris"})
ROME = ("search", {"q": "rome"})
FETCH = ("fetch", {"url": "a"})


@pytest.fixture(scope="module")
def deepeval():
    """``deepeval(expected, made, arguments=False, **options)`` -> DeepEval's ToolCorrectnessMetric score."""
    pytest.importorskip("deepeval", reason="the test extra installs DeepEval")
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.models import DeepEvalBaseLLM
    from deepeval.test_case import LLMTestCase, ToolCall, ToolCallParams

    class NoModel(DeepEvalBaseLLM):
        def __init__(self):
            super().__init__("no-model")

        def load_model(self):
            return self

        def generate(self, *args, **kwargs):
            raise AssertionError("DeepEval asked a model")

        async def a_generate(self, *args, **kwargs):
            raise AssertionError("DeepEval asked a model")

        def get_model_name(self):
            return "no-model"

    def score(expected, made, arguments=False, **options):
        metric = ToolCorrectnessMetric(model=NoModel(), async_mode=False, include_reason=False,
                                       evaluation_params=[ToolCallParams.INPUT_PARAMETERS] if arguments else [],
                                       **options)
        case = LLMTestCase(input="q", tools_called=[ToolCall(name=n, input_parameters=a) for n, a in made],
                           expected_tools=[ToolCall(name=n, input_parameters=a) for n, a in expected])
        return metric.measure(case, _show_indicator=False)

    return score


def trajectory(calls, per_message=1):
    """OpenAI-style messages holding ``calls``, ``per_message`` calls in each assistant message."""
    out = [{"role": "user", "content": "question"}]
    for start in range(0, len(calls), per_message):
        out.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{start + i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls[start:start + per_message])]})
    return out


@pytest.fixture(scope="module")
def agentevals():
    """``agentevals(mode, expected, made, args_mode="exact", per_message=1)`` -> agentevals' verdict."""
    pytest.importorskip("agentevals", reason="the test extra installs agentevals")
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    def verdict(mode, expected, made, args_mode="exact", per_message=1):
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode, tool_args_match_mode=args_mode)
        result = evaluator(outputs=trajectory(made, per_message), reference_outputs=trajectory(expected, per_message))
        return float(result["score"])

    return verdict


# -- no expected calls, no calls made ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["unordered", "ordered", "exact"])
def test_no_expected_calls(value, deepeval, mode):
    options = {"unordered": {}, "ordered": {"should_consider_ordering": True}, "exact": {"should_exact_match": True}}
    assert value(CORRECT, [], [], mode=mode) == deepeval([], [], **options[mode]) == 1.0
    assert value(CORRECT, [], [PARIS], mode=mode) == deepeval([], [PARIS], **options[mode]) == 0.0
    assert value(ARGS, [], [PARIS], mode=mode) == 0.0


@pytest.mark.parametrize(("mode", "none_made", "one_made"), [
    ("exact", 1.0, 0.0), ("unordered", 1.0, 0.0), ("subset", 1.0, 0.0), ("superset", 1.0, 1.0), ("ordered", 1.0, 1.0)])
def test_no_expected_calls_in_a_trajectory(value, agentevals, mode, none_made, one_made):
    assert value(TRAJ, [], [], mode=mode) == none_made
    assert value(TRAJ, [], [PARIS], mode=mode) == one_made
    if mode != "ordered":
        reference = "strict" if mode == "exact" else mode
        assert agentevals(reference, [], []) == none_made
        assert agentevals(reference, [], [PARIS]) == one_made


@pytest.mark.parametrize(("mode", "expected"), [
    ("exact", 0.0), ("unordered", 0.0), ("subset", 1.0), ("superset", 0.0), ("ordered", 0.0)])
def test_no_calls_made(value, agentevals, deepeval, mode, expected):
    assert value(TRAJ, [PARIS, FETCH], [], mode=mode) == expected
    if mode != "ordered":
        assert agentevals("strict" if mode == "exact" else mode, [PARIS, FETCH], []) == expected
    assert value(CORRECT, [PARIS, FETCH], []) == deepeval([PARIS, FETCH], []) == 0.0


def test_a_prediction_without_tool_calls_made_none(metric):
    score = metric(CORRECT).score_one({"expected_tool_calls": [{"name": "search"}]}, {"response": "I know this"})
    assert (score.value, score.details["called"]) == (0.0, 0)


def test_missing_expected_calls_skip_the_sample(metric):
    for metric_id in (CORRECT, ARGS, TRAJ):
        score = metric(metric_id).score_one({"query": "q"}, {"tool_calls": [{"name": "search"}]})
        assert score.status.value == "skipped"
        assert score.reason == "example.expected_tool_calls is missing"


# -- repeats ----------------------------------------------------------------------------------------


def test_a_call_repeated(value, agentevals, deepeval):
    made = [PARIS, PARIS]
    assert value(CORRECT, [PARIS], made) == deepeval([PARIS], made) == 1.0
    for mode, expected in [("exact", 0.0), ("unordered", 0.0), ("superset", 1.0), ("subset", 0.0)]:
        assert value(TRAJ, [PARIS], made, mode=mode) == expected
        assert agentevals("strict" if mode == "exact" else mode, [PARIS], made) == expected
    assert value(TRAJ, [PARIS], made, mode="ordered") == 1.0


def test_deepeval_pairs_identical_repeats_once(value, deepeval):
    """DeepEval keeps the paired calls in a set of values: once one `search(q='paris')` is paired, an
    identical second call counts as paired too, so two expected repeats score 0.5. evalcore pairs each
    repeat; `count_repeats=False` gives DeepEval's number. Its ordered and exact scores pair repeats."""
    assert deepeval([PARIS, PARIS], [PARIS, PARIS]) == 0.5
    assert deepeval([PARIS, PARIS], [PARIS, PARIS], arguments=True) == 0.5
    assert value(CORRECT, [PARIS, PARIS], [PARIS, PARIS]) == 1.0
    assert value(CORRECT, [PARIS, PARIS], [PARIS, PARIS], count_repeats=False) == 0.5
    assert value(ARGS, [PARIS, PARIS], [PARIS, PARIS], count_repeats=False) == 0.5
    # by name only, the same two calls with different arguments are not identical: both pair
    bare = ("search", {})
    assert deepeval([bare, bare], [PARIS, ROME]) == 1.0 == value(CORRECT, [bare, bare], [PARIS, ROME])
    assert deepeval([PARIS, PARIS], [PARIS, PARIS], should_consider_ordering=True) == 1.0
    assert value(CORRECT, [PARIS, PARIS], [PARIS, PARIS], mode="ordered", count_repeats=False) == 1.0


# -- arguments --------------------------------------------------------------------------------------


def test_nested_arguments_earn_partial_credit(value, deepeval):
    expected = [("search", {"q": "x", "filter": {"city": "paris", "days": 3}})]
    made = [("search", {"q": "x", "filter": {"city": "paris", "days": 4}})]
    # q agrees: 1/2; filter shares city of {city, days}: 1/2 of 1/2
    assert value(ARGS, expected, made) == deepeval(expected, made, arguments=True) == 0.75
    assert value(ARGS, expected, made, arguments="exact") == 0.0
    assert value(ARGS, expected, [("search", {"q": "x", "filter": {"city": "paris", "days": 3}, "n": 5})],
                 arguments="expected_keys") == 1.0
    assert value(TRAJ, expected, made) == 0.0
    assert value(TRAJ, expected, made, arguments_by_tool={"search": ["q", "filter.city"]}) == 1.0
    assert value(CORRECT, expected, made) == 1.0


def test_the_same_tool_with_different_arguments(value, agentevals, deepeval):
    expected, made = [PARIS, ROME], [ROME, PARIS]
    assert value(TRAJ, expected, made) == agentevals("strict", expected, made) == 0.0
    assert value(TRAJ, expected, made, mode="unordered") == agentevals("unordered", expected, made) == 1.0
    assert value(ARGS, expected, made) == deepeval(expected, made, arguments=True) == 1.0
    assert value(ARGS, expected, made, mode="ordered") == \
        deepeval(expected, made, arguments=True, should_consider_ordering=True) == 0.5
    assert value(CORRECT, expected, made, mode="ordered") == 1.0  # names alone are in order
    assert value(ARGS, expected, made, mode="exact") == \
        deepeval(expected, made, arguments=True, should_exact_match=True) == 0.0


def test_greedy_pairing_misses_the_best_one(value, deepeval, agentevals):
    """The first expected call takes the first call that fits, leaving the second expected call worse off."""
    expected = [("search", {"q": "paris"}), ("search", {"q": "paris", "k": 2})]
    made = [("search", {"q": "paris", "k": 2}), ("search", {"q": "paris", "page": 3})]
    greedy = (0.5 + 1 / 3) / 2  # DeepEval: paris -> made[0] (0.5, first of a tie), then 1/3 for the other
    assert deepeval(expected, made, arguments=True) == pytest.approx(greedy)
    assert value(ARGS, expected, made, matching="greedy") == pytest.approx(greedy)
    assert value(ARGS, expected, made) == pytest.approx((0.5 + 1.0) / 2)

    made = [("search", {"q": "paris", "k": 2}), ("search", {"q": "paris"})]
    assert agentevals("superset", expected, made, "superset") == 0.0
    assert value(TRAJ, expected, made, mode="superset", arguments="expected_keys", matching="greedy") == 0.0
    assert value(TRAJ, expected, made, mode="superset", arguments="expected_keys") == 1.0


def test_agentevals_swaps_its_argument_modes_in_subset_mode(value, agentevals):
    """In subset mode agentevals calls its argument matcher with the expected call first: its 'superset'
    then means the expected call holds the call's arguments. evalcore's rules keep one meaning."""
    expected, made = [("search", {"q": "paris"})], [("search", {"q": "paris", "k": 2})]
    assert agentevals("superset", expected, made, "superset") == 1.0
    assert agentevals("subset", expected, made, "superset") == 0.0
    assert agentevals("subset", expected, made, "subset") == 1.0
    assert value(TRAJ, expected, made, mode="superset", arguments="expected_keys") == 1.0
    assert value(TRAJ, expected, made, mode="subset", arguments="expected_keys") == 1.0
    assert value(TRAJ, expected, made, mode="subset", arguments="actual_keys") == 0.0


def test_agentevals_unordered_checks_key_rules_both_ways(value, agentevals):
    """agentevals' unordered mode is its superset check then its subset check, each with the argument
    matcher's roles as there: with 'superset' arguments the extra argument fails the second check."""
    expected, made = [("search", {"q": "paris"})], [("search", {"q": "paris", "k": 2})]
    assert agentevals("unordered", expected, made, "superset") == 0.0
    assert value(TRAJ, expected, made, mode="unordered", arguments="expected_keys") == 1.0
    assert value(TRAJ, expected, made, mode="unordered", arguments="exact") == 0.0


def test_true_is_not_one(value, agentevals, deepeval):
    """Arguments compare as JSON; both references use Python equality, where True == 1."""
    expected, made = [("confirm", {"send": True})], [("confirm", {"send": 1})]
    assert agentevals("strict", expected, made) == 1.0
    assert deepeval(expected, made, arguments=True) == 1.0
    assert value(TRAJ, expected, made) == 0.0
    assert value(ARGS, expected, made) == 0.0
    assert value(TRAJ, [("f", {"n": 2})], [("f", {"n": 2.0})]) == 1.0


def test_agentevals_strict_lets_calls_in_one_message_come_in_any_order(value, agentevals):
    """agentevals compares messages: two calls made together may come in either order. evalcore compares
    the sequence of calls; `mode='unordered'` accepts them."""
    expected, made = [PARIS, FETCH], [FETCH, PARIS]
    assert agentevals("strict", expected, made, per_message=2) == 1.0
    assert agentevals("strict", expected, made, per_message=1) == 0.0
    assert value(TRAJ, expected, made) == 0.0
    assert value(TRAJ, expected, made, mode="unordered") == 1.0


def test_ordered_mode_allows_calls_in_between(value):
    expected = [PARIS, FETCH]
    assert value(TRAJ, expected, [PARIS, ROME, FETCH], mode="ordered") == 1.0
    assert value(TRAJ, expected, [FETCH, PARIS], mode="ordered") == 0.0
    assert value(TRAJ, expected, [PARIS, ROME, FETCH], mode="exact") == 0.0


def test_ignore_case(value):
    assert value(TRAJ, [("Search", {"q": "Paris"})], [PARIS]) == 0.0
    assert value(TRAJ, [("Search", {"q": "Paris"})], [PARIS], ignore_case=True) == 1.0
    assert value(CORRECT, ["Search"], ["search"], ignore_case=True) == 1.0
    assert value(TRAJ, [PARIS], [("SEARCH", {"q": "rome"})], ignore_case=True,
                 arguments_by_tool={"Search": "ignore"}) == 1.0


def test_results(value):
    expected = [("fetch", {"url": "a"}, "page text")]
    assert value(CORRECT, expected, [("fetch", {"url": "a"}, "other text")]) == 1.0
    assert value(CORRECT, expected, [("fetch", {"url": "a"}, "other text")], compare_results=True) == 0.0
    assert value(ARGS, expected, [("fetch", {"url": "a"}, "page text")], compare_results=True) == 1.0


def test_rules_per_tool(value):
    expected = [("search", {"q": "paris", "session": "s1"}), ("fetch", {"url": "a"})]
    made = [("search", {"q": "paris", "session": "s2"}), ("fetch", {"url": "b"})]
    assert value(TRAJ, expected, made) == 0.0
    assert value(TRAJ, expected, made, arguments_by_tool={"search": ["q"], "fetch": "ignore"}) == 1.0
    assert value(ARGS, expected, made, arguments_by_tool={"search": ["q"]}) == 0.5


# -- where calls come from ---------------------------------------------------------------------------


def test_calls_from_turns_and_other_fields(metric):
    example = {"expected_tool_calls": [{"name": "search", "arguments": {"q": "paris"}}, {"name": "fetch"}]}
    turns = [{"role": "user", "content": "go"},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": {"q": "paris"}}]},
             {"role": "tool", "content": "found"},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "fetch", "arguments": None}]}]
    assert metric(TRAJ).score_one(example, {"turns": turns}).value == 1.0
    nested = {"trace": {"steps": turns}}
    score = metric(TRAJ, field="trace.steps").score_one(example, nested)
    assert (score.value, score.details["calls_from"]) == (1.0, "prediction.trace.steps")
    reference = {"reference": {"conversation": turns}}
    assert metric(TRAJ, expected_field="reference.conversation").score_one(reference, {"turns": turns}).value == 1.0
    # tool_calls wins over turns when both are there
    both = {"tool_calls": [{"name": "fetch"}], "turns": turns}
    assert metric(TRAJ).score_one(example, both).value == 0.0


# -- bad input --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("example", "prediction", "field"), [
    ({"expected_tool_calls": []}, {"tool_calls": "search"}, "prediction.tool_calls"),
    ({"expected_tool_calls": []}, {"tool_calls": [{"name": "a"}, {"arguments": {}}]}, "prediction.tool_calls[1].name"),
    ({"expected_tool_calls": []}, {"tool_calls": [{"name": ""}]}, "prediction.tool_calls[0].name"),
    ({"expected_tool_calls": []}, {"tool_calls": [{"name": "a", "arguments": "q=1"}]},
     "prediction.tool_calls[0].arguments"),
    ({"expected_tool_calls": []}, {"tool_calls": ["search"]}, "prediction.tool_calls[0]"),
    ({"expected_tool_calls": []}, {"turns": [{"role": "user"}, "hi"]}, "prediction.turns[1]"),
    ({"expected_tool_calls": []}, {"turns": [{"role": "assistant", "tool_calls": {"name": "a"}}]},
     "prediction.turns[0].tool_calls"),
    ({"expected_tool_calls": []}, {"turns": [{"role": "assistant", "tool_calls": [{"name": "a", "arguments": [1]}]}]},
     "prediction.turns[0].tool_calls[0].arguments"),
    ({"expected_tool_calls": "search"}, {"tool_calls": []}, "example.expected_tool_calls"),
    ({"expected_tool_calls": [{"name": "a"}, {"name": 3}]}, {}, "example.expected_tool_calls[1].name"),
])
def test_bad_input_is_an_error_naming_the_field(metric, example, prediction, field):
    for metric_id in (CORRECT, ARGS, TRAJ):
        score = metric(metric_id).score_one(example, prediction)
        assert (score.status.value, score.error_type) == ("error", "InputError")
        assert score.error_message.startswith(field + ": "), score.error_message


def test_deeply_nested_arguments_are_an_error_not_a_crash(metric):
    deep: dict = {}
    for _ in range(5000):
        deep = {"a": deep}
    example = {"expected_tool_calls": [{"name": "f", "arguments": deep}]}
    score = metric(TRAJ).score_one(example, {"tool_calls": [{"name": "f", "arguments": deep}]})
    assert (score.status.value, score.error_type) == ("error", "InputError")
    assert "nested too deeply" in score.error_message


@pytest.mark.parametrize(("metric_id", "rules"), [
    (TRAJ, {"search": "partial"}), (TRAJ, {"search": "superset"}), (ARGS, {"search": []}), (ARGS, {"search": 3}),
])
def test_bad_rules_per_tool_are_parameter_errors(metric, metric_id, rules):
    import evalcore

    with pytest.raises(evalcore.ParameterError, match="arguments_by_tool"):
        metric(metric_id, arguments_by_tool=rules)


def test_many_calls_stay_fast(metric):
    calls = [{"name": f"t{i % 7}", "arguments": {"i": i % 13, "j": i % 5}} for i in range(400)]
    example = {"expected_tool_calls": calls}
    made = {"tool_calls": calls[::-1]}
    assert metric(ARGS, arguments="expected_keys").score_one(example, made).value == 1.0
    assert metric(ARGS).score_one(example, made).value == 1.0
    assert metric(TRAJ, mode="unordered").score_one(example, made).value == 1.0
