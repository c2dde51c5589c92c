"""SQuAD v2 against the official evaluation script's functions, as HF evaluate's squad_v2 calls
them. evaluate loads the script from the Hugging Face hub, which the tests cannot reach, so the
functions of metrics/squad_v2/compute_score.py (evaluate's main branch) and the lines of
``SquadV2._compute`` are ported here as the reference."""

from __future__ import annotations

import collections
import re
import string

import evalcore
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import shards, texts

SETTINGS = settings(max_examples=200, deadline=None)
MEASURES = ("exact", "f1", "best_exact", "best_f1")

# -- the reference ----------------------------------------------------------------------------

ARTICLES_REGEX = re.compile(r"\b(a|an|the)\b", re.UNICODE)


def make_qid_to_has_ans(dataset):
    qid_to_has_ans = {}
    for article in dataset:
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                qid_to_has_ans[qa["id"]] = bool(qa["answers"]["text"])
    return qid_to_has_ans


def normalize_answer(s):
    def remove_articles(text):
        return ARTICLES_REGEX.sub(" ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def get_tokens(s):
    if not s:
        return []
    return normalize_answer(s).split()


def compute_exact(a_gold, a_pred):
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def compute_f1(a_gold, a_pred):
    gold_toks = get_tokens(a_gold)
    pred_toks = get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


def get_raw_scores(dataset, preds):
    exact_scores = {}
    f1_scores = {}
    for article in dataset:
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                qid = qa["id"]
                gold_answers = [t for t in qa["answers"]["text"] if normalize_answer(t)]
                if not gold_answers:
                    gold_answers = [""]
                a_pred = preds[qid]
                exact_scores[qid] = max(compute_exact(a, a_pred) for a in gold_answers)
                f1_scores[qid] = max(compute_f1(a, a_pred) for a in gold_answers)
    return exact_scores, f1_scores


def apply_no_ans_threshold(scores, na_probs, qid_to_has_ans, na_prob_thresh):
    new_scores = {}
    for qid, s in scores.items():
        pred_na = na_probs[qid] > na_prob_thresh
        new_scores[qid] = float(not qid_to_has_ans[qid]) if pred_na else s
    return new_scores


def make_eval_dict(exact_scores, f1_scores, qid_list=None):
    if not qid_list:
        total = len(exact_scores)
        return collections.OrderedDict([
            ("exact", 100.0 * sum(exact_scores.values()) / total),
            ("f1", 100.0 * sum(f1_scores.values()) / total),
            ("total", total),
        ])
    total = len(qid_list)
    return collections.OrderedDict([
        ("exact", 100.0 * sum(exact_scores[k] for k in qid_list) / total),
        ("f1", 100.0 * sum(f1_scores[k] for k in qid_list) / total),
        ("total", total),
    ])


def merge_eval(main_eval, new_eval, prefix):
    for k in new_eval:
        main_eval[f"{prefix}_{k}"] = new_eval[k]


def find_best_thresh(preds, scores, na_probs, qid_to_has_ans):
    num_no_ans = sum(1 for k in qid_to_has_ans if not qid_to_has_ans[k])
    cur_score = num_no_ans
    best_score = cur_score
    best_thresh = 0.0
    qid_list = sorted(na_probs, key=lambda k: na_probs[k])
    for qid in qid_list:
        if qid not in scores:
            continue
        if qid_to_has_ans[qid]:
            diff = scores[qid]
        else:
            diff = -1 if preds[qid] else 0
        cur_score += diff
        if cur_score > best_score:
            best_score = cur_score
            best_thresh = na_probs[qid]
    return 100.0 * best_score / len(scores), best_thresh


def find_all_best_thresh(main_eval, preds, exact_raw, f1_raw, na_probs, qid_to_has_ans):
    best_exact, exact_thresh = find_best_thresh(preds, exact_raw, na_probs, qid_to_has_ans)
    best_f1, f1_thresh = find_best_thresh(preds, f1_raw, na_probs, qid_to_has_ans)
    main_eval["best_exact"] = best_exact
    main_eval["best_exact_thresh"] = exact_thresh
    main_eval["best_f1"] = best_f1
    main_eval["best_f1_thresh"] = f1_thresh


def squad_v2(predictions, references, no_answer_threshold=1.0):
    """HF evaluate's ``SquadV2._compute``."""
    no_answer_probabilities = {p["id"]: p["no_answer_probability"] for p in predictions}
    dataset = [{"paragraphs": [{"qas": references}]}]
    predictions = {p["id"]: p["prediction_text"] for p in predictions}
    qid_to_has_ans = make_qid_to_has_ans(dataset)
    has_ans_qids = [k for k, v in qid_to_has_ans.items() if v]
    no_ans_qids = [k for k, v in qid_to_has_ans.items() if not v]
    exact_raw, f1_raw = get_raw_scores(dataset, predictions)
    exact_thresh = apply_no_ans_threshold(exact_raw, no_answer_probabilities, qid_to_has_ans, no_answer_threshold)
    f1_thresh = apply_no_ans_threshold(f1_raw, no_answer_probabilities, qid_to_has_ans, no_answer_threshold)
    out_eval = make_eval_dict(exact_thresh, f1_thresh)
    if has_ans_qids:
        merge_eval(out_eval, make_eval_dict(exact_thresh, f1_thresh, qid_list=has_ans_qids), "HasAns")
    if no_ans_qids:
        merge_eval(out_eval, make_eval_dict(exact_thresh, f1_thresh, qid_list=no_ans_qids), "NoAns")
    find_all_best_thresh(out_eval, predictions, exact_raw, f1_raw, no_answer_probabilities, qid_to_has_ans)
    return dict(out_eval)


# -- evalcore -----------------------------------------------------------------------------------

Question = tuple[list[str], str, float]  # gold answers (empty: unanswerable), response, no-answer probability


def records(questions: list[Question]) -> tuple[list[dict], list[dict]]:
    examples = [{"reference_answer": answers} for answers, _, _ in questions]
    predictions = [{"response": text, "no_answer_probability": p} for _, text, p in questions]
    return examples, predictions


def reference(questions: list[Question], threshold: float = 1.0) -> dict:
    predictions = [{"id": str(i), "prediction_text": text, "no_answer_probability": p}
                   for i, (_, text, p) in enumerate(questions)]
    refs = [{"id": str(i), "answers": {"text": answers, "answer_start": [0] * len(answers)}}
            for i, (answers, _, _) in enumerate(questions)]
    return squad_v2(predictions, refs, no_answer_threshold=threshold)


def ours(questions: list[Question], measure: str, **params: object) -> evalcore.Score:
    metric = evalcore.get_metric("overlap/squad_v2", measure=measure, **params)
    return metric.corpus_score([state for _, state in metric.states(*records(questions))])


ANSWERS = ("Paris", "the Eiffel Tower", "1889", "Gustave Eiffel", "a tower", "the", "!!", "", "Paris, France")
# probabilities exact in float32, the type HF evaluate stores them in, so both sides see one value
probabilities = st.sampled_from((0.0, 0.125, 0.25, 0.5, 0.75, 0.875, 1.0))
questions = st.lists(st.tuples(
    st.lists(st.sampled_from(ANSWERS), max_size=3),
    st.one_of(st.sampled_from(ANSWERS), texts(6)),
    probabilities,
), min_size=1, max_size=12)


@SETTINGS
@given(data=questions, threshold=st.sampled_from((1.0, 0.5, 0.2, 0.0)))
def test_every_number_equals_the_squad_v2_script(data: list[Question], threshold: float) -> None:
    want = reference(data, threshold)
    for measure in MEASURES:
        score = ours(data, measure, no_answer_threshold=threshold)
        assert score.value == want[measure] and score.details == want
    for subset, prefix in (("has_ans", "HasAns"), ("no_ans", "NoAns")):
        for measure in ("exact", "f1"):
            score = ours(data, measure, subset=subset, no_answer_threshold=threshold)
            if f"{prefix}_total" in want:
                assert score.value == want[f"{prefix}_{measure}"]
            else:
                assert score.status.value == "skipped"


@SETTINGS
@given(data=questions, cuts=st.lists(st.integers(0, 12), max_size=3))
def test_shards_merge_to_the_whole(data: list[Question], cuts: list[int]) -> None:
    metric = evalcore.get_metric("overlap/squad_v2", measure="best_f1")
    states = [state for _, state in metric.states(*records(data))]
    parts = [metric.merge(shard) for shard in shards(states, cuts)]
    journalled = [metric.decode_state(metric.encode_state(shard)) for shard in parts]
    assert metric.corpus_score(journalled) == metric.corpus_score(states)


def test_documented_example() -> None:
    # HF evaluate's squad_v2 documentation example and the dict it prints
    score = ours([(["1976"], "1976", 0.0)], "f1")
    assert score.details == {
        "exact": 100.0, "f1": 100.0, "total": 1, "HasAns_exact": 100.0, "HasAns_f1": 100.0,
        "HasAns_total": 1, "best_exact": 100.0, "best_exact_thresh": 0.0, "best_f1": 100.0,
        "best_f1_thresh": 0.0,
    }


HAND = [(["Paris"], "Paris", 0.3), ([], "London", 0.8)]


def test_no_answer_threshold_hand_worked() -> None:
    # threshold 1.0: q1 exact 1; q2 is unanswerable but answered -> 0; exact 50
    assert ours(HAND, "exact").value == 50.0
    # threshold 0.5: q2's probability 0.8 > 0.5 predicts "no answer" -> 1; q1 (0.3) keeps 1
    assert ours(HAND, "exact", no_answer_threshold=0.5).value == 100.0
    assert ours(HAND, "exact", subset="no_ans", no_answer_threshold=0.5).value == 100.0
    assert ours(HAND, "exact", subset="has_ans").value == 100.0
    # best: start at 1 (one unanswerable); q1 at 0.3 adds 1 -> 2 (best, threshold 0.3);
    # q2 at 0.8 answered though unanswerable -> 1
    best = ours(HAND, "best_exact")
    assert best.value == 100.0 and best.details["best_exact_thresh"] == 0.3


def test_f1_and_empty_gold_hand_worked() -> None:
    # "eiffel tower" vs gold "the Eiffel Tower in Paris" -> eiffel tower in paris: P 2/2, R 2/4 -> 2/3
    assert ours([(["the Eiffel Tower in Paris"], "Eiffel Tower", 0.0)], "f1").value == pytest.approx(200 / 3)
    # unanswerable, abstained: exact and F1 1; gold that normalises to nothing counts as ""
    assert ours([([], "", 0.0)], "f1").value == 100.0
    assert ours([(["the"], "", 0.0)], "exact").details["HasAns_exact"] == 100.0


def test_inputs_and_parameters() -> None:
    metric = evalcore.get_metric("overlap/squad_v2", measure="f1")
    assert metric.id == "overlap/squad_v2(measure='f1')"
    bad = metric.score_one({"reference_answer": ["x"]}, {"response": "x", "no_answer_probability": "high"})
    assert bad.status.value == "error" and "prediction.no_answer_probability" in bad.error_message
    assert metric.score_one({"reference_answer": []}, {"response": ""}).value == 100.0  # abstained
    assert metric.score_one({"reference_answer": []}, {}).reason == "prediction.response is missing"
    assert metric.score_one({}, {"response": ""}).reason == "example.reference_answer is missing"
    with pytest.raises(evalcore.ParameterError, match="subset"):
        evalcore.get_metric("overlap/squad_v2", measure="best_f1", subset="has_ans")
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("overlap/squad_v2")
