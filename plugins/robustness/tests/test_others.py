"""negative_rejection, counterfactual_consistency and the seed-004 robustness score."""

import evalcore
import pytest
from evalcore import Status
from robustness_helpers import corpus, rec


def rejection(response, scenario="unanswerable", **params):
    m = evalcore.get_metric("robustness/negative_rejection", **params)
    return m.score_one({"labels": {"scenario": scenario}}, {"response": response})


def test_negative_rejection():
    assert rejection("  I DON'T KNOW.").value == 1.0
    assert rejection("I don\u2019t know the answer").value == 1.0  # typographic apostrophe
    assert rejection("There is not enough information here").value == 1.0
    s = rejection("It is 42.")
    assert s.value == 0.0 and "no refusal" in s.feedback
    assert rejection("It is 42.", scenario="typo").status is Status.SKIPPED
    assert rejection("no idea", refusal_patterns=["No idea"]).value == 1.0
    m = evalcore.get_metric("robustness/negative_rejection")
    assert m.score_one({}, {"response": "x"}).status is Status.SKIPPED
    assert m.score_one({"labels": {"scenario": "unanswerable"}}, {}).status is Status.SKIPPED
    assert m.score_one({"labels": ["unanswerable"]}, {"response": "x"}).status is Status.ERROR


def test_negative_rejection_rate():
    # 2 refusals among 3 unanswerable samples -> mean 2/3; the answerable one is skipped
    m = evalcore.get_metric("robustness/negative_rejection")
    scores = m.score_many(
        [{"labels": {"scenario": s}} for s in ("unanswerable", "unanswerable", "unanswerable", "typo")],
        [{"response": r} for r in ("cannot answer that", "Paris", "I don't know", "x")],
    )
    values = [s.value for s in scores if s.ok]
    assert sum(values) / len(values) == pytest.approx(2 / 3) and scores[3].status is Status.SKIPPED


CF = [
    rec("q1", "the capital is paris"),
    rec("q2", "blue"),
    rec("q1-cf", "the capital is lyon", variant_of="q1", scenario="counterfactual"),  # 3/4 common -> F1 0.75
    rec("q2-cf", "blue", variant_of="q2", scenario="counterfactual"),                 # 1.0
    rec("q2-p", "red", variant_of="q2", scenario="paraphrase"),                        # other scenario
]


def test_counterfactual_consistency():
    m = evalcore.get_metric("robustness/counterfactual_consistency", similarity="local/local_f1")
    s = corpus(m, CF)
    # 'the' is an article and dropped: {capital, is, paris} vs {capital, is, lyon}: 2/3 each -> F1 2/3
    # mean(2/3, 1.0) = 5/6
    assert s.value == pytest.approx(5 / 6) and s.details["pairs"] == 2
    any_variant = evalcore.get_metric("robustness/counterfactual_consistency", similarity="local/local_f1",
                                      scenario=None)
    assert corpus(any_variant, CF).value == pytest.approx((2 / 3 + 1.0 + 0.0) / 3)


def test_counterfactual_missing_base_and_empty():
    m = evalcore.get_metric("robustness/counterfactual_consistency", similarity="local/local_f1")
    s = corpus(m, [rec("x-cf", "a", variant_of="x", scenario="counterfactual")])
    assert s.status is Status.SKIPPED and s.details["missing_bases"] == ["x-cf"]
    assert "1 variants" in s.reason and "0 with their base" in s.reason
    assert corpus(m, CF[:2]).status is Status.SKIPPED


def test_counterfactual_default_similarity_is_token_f1():
    info = evalcore.describe("robustness/counterfactual_consistency")
    assert info.spec.param("similarity").default == "overlap/token_f1"
    try:
        m = evalcore.get_metric("robustness/counterfactual_consistency")
    except evalcore.UnknownMetricError:
        pytest.skip("evalcore-overlap is not installed")
    assert corpus(m, CF).value == pytest.approx(5 / 6)


@pytest.mark.parametrize("mode, signal, response, expected", [
    # signal tokens {revenue, grew, q3} (normalised); response has revenue and q3 -> 2/3
    ("normalized_overlap", "Revenue grew in Q3", "Q3 revenue was flat", 0.5),
    ("normalized_overlap", "Revenue grew in Q3", "In Q3, revenue grew!", 1.0),
    ("exact_casefold", "Approved", "  APPROVED ", 1.0),
    ("exact_casefold", "Approved", "approved.", 0.0),
])
def test_expected_signal(mode, signal, response, expected):
    m = evalcore.get_metric("robustness/robustness", mode=mode)
    assert m.score_one({"expected_signal": signal}, {"response": response}).value == pytest.approx(expected)


def test_expected_signal_sources_and_skips():
    m = evalcore.get_metric("robustness/robustness", expected_signal="paris")
    assert m.score_one({}, {"response": "Paris"}).value == 1.0
    plain = evalcore.get_metric("robustness/robustness")
    assert plain.score_one({}, {"response": "x"}).status is Status.SKIPPED
    assert plain.score_one({"expected_signal": "the"}, {"response": "x"}).status is Status.SKIPPED
    assert plain.score_one({"expected_signal": 3}, {"response": "x"}).status is Status.ERROR
