"""The batch path of the answer metrics (``score_batch``: texts normalised together, once) gives
the same results as scoring each pair on its own, through ``score_many``, ``evalcore.evaluate``
and the command line, and one bad record among many is one error row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import evalcore
import pytest
from dspy.evaluate import metrics as dm
from evalcore.plugin import Score
from evalcore.testing import run_evalcore
from evalcore_overlap._normalize import Normalizer
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import any_texts, references, texts

SETTINGS = settings(max_examples=150, deadline=None)

METRICS: list[tuple[str, dict[str, Any]]] = [
    ("overlap/exact_match", {}),
    ("overlap/exact_match", {"empty_reference": "score"}),
    ("overlap/exact_match", {"empty_response": "skip", "ignore_case": False}),
    ("overlap/token_f1", {}),
    ("overlap/token_f1", {"both_empty": 1.0, "ignore_articles": False}),
    ("overlap/hotpot_f1", {"ignore_punctuation": False}),
    ("overlap/answer_exact_match", {}),
    ("overlap/answer_exact_match", {"frac": 0.5}),
]

# texts with what the joined normalisation must keep apart: NUL, the whitespace that str.split
# splits on (\x1c-\x1f included), articles at the edges, punctuation next to the separator
edgy_texts = st.one_of(any_texts, st.text(alphabet=" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x00.,!-'aAnNtThHeE1é",
                                           max_size=20))
reference_fields = st.one_of(edgy_texts, references, st.just([]), st.none(), st.integers(), st.just(["ok", 3]))
response_fields = st.one_of(edgy_texts, edgy_texts, st.none(), st.integers(), st.just(" \t"))


def one_by_one(metric: Any, examples: list[dict], predictions: list[dict]) -> list[dict]:
    """Each pair scored by ``score`` alone, its exception its skip or error (the per-record path)."""
    out = []
    for example, prediction in zip(examples, predictions):
        try:
            out.append(metric.score(example, prediction).to_dict())
        except Exception as exc:  # noqa: BLE001 - the row a failing pair gets
            out.append(Score.from_exception(exc).to_dict())
    return out


@SETTINGS
@given(texts_=st.lists(edgy_texts, max_size=30))
def test_joined_normalisation_equals_dspy_text_by_text(texts_: list[str]) -> None:
    # DSPy's own normalize_text is the reference, one text at a time
    table = Normalizer(True, True, True).table(texts_)
    assert [table[text] for text in texts_] == [dm.normalize_text(text) for text in texts_]


@SETTINGS
@given(pairs=st.lists(st.tuples(reference_fields, response_fields), min_size=1, max_size=25),
       which=st.sampled_from(range(len(METRICS))))
def test_batch_rows_equal_per_record_rows(pairs: list[tuple[Any, Any]], which: int) -> None:
    metric_id, params = METRICS[which]
    metric = evalcore.get_metric(metric_id, **params)
    examples = [{} if ref is None else {"reference_answer": ref} for ref, _ in pairs]
    predictions = [{} if resp is None else {"response": resp} for _, resp in pairs]
    assert metric.batched
    assert [s.to_dict() for s in metric.score_many(examples, predictions)] == one_by_one(metric, examples, predictions)


@SETTINGS
@given(refs=st.lists(references, min_size=2, max_size=20), preds=st.lists(texts(), min_size=20, max_size=20))
def test_score_many_equals_dspy(refs: list[list[str]], preds: list[str]) -> None:
    pairs = list(zip(refs, preds))
    examples = [{"reference_answer": r} for r, _ in pairs]
    predictions = [{"response": p} for _, p in pairs]
    f1 = evalcore.get_metric("overlap/token_f1").score_many(examples, predictions)
    em = evalcore.get_metric("overlap/exact_match", empty_reference="score").score_many(examples, predictions)
    assert [s.value for s in f1] == [dm.F1(p, r) for r, p in pairs]
    assert [s.value for s in em] == [float(dm.EM(p, r)) for r, p in pairs]


def _records(n: int, bad: int) -> list[dict[str, Any]]:
    """``n`` records; record ``bad`` holds a number as its response (the metric's input error)."""
    records = []
    for i in range(n):
        answer = ["Paris", "the Eiffel Tower", "1990", "an apple"][i % 4]
        response = answer.upper() + "!" if i % 3 else f"not {answer}"
        records.append({"id": f"q{i}", "example": {"reference_answer": answer},
                        "prediction": {"response": 42 if i == bad else response}})
    records.append({"id": "blank", "example": {"reference_answer": "  "}, "prediction": {"response": "x"}})
    return records


def _scores(journal: Path, metric_id: str) -> dict[str, dict]:
    rows = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row["scores"][metric_id] for row in rows if "scores" in row}


@pytest.mark.parametrize("metric_id", ["overlap/exact_match", "overlap/token_f1"])
def test_evaluate_batch_rows_equal_per_record_rows(tmp_path: Path, metric_id: str) -> None:
    records = _records(250, bad=137)
    batched = evalcore.evaluate(records, [metric_id], progress=False, chunk_size=100,
                                samples=tmp_path / "batched.jsonl")
    # a time limit scores each record on its own (the per-record path, on a worker thread)
    single = evalcore.evaluate(records, [metric_id], progress=False, chunk_size=100, timeout_s=60,
                               samples=tmp_path / "single.jsonl")
    rows, expected = _scores(tmp_path / "batched.jsonl", metric_id), _scores(tmp_path / "single.jsonl", metric_id)
    assert rows == expected
    assert rows["q137"]["status"] == "error" and rows["q137"]["error"]["type"] == "InputError"
    assert rows["blank"]["status"] == ("skipped" if metric_id == "overlap/exact_match" else "ok")
    assert sum(row["status"] == "ok" for row in rows.values()) == 249 + (metric_id == "overlap/token_f1")
    assert batched.metrics[metric_id].value == single.metrics[metric_id].value
    assert batched.metrics[metric_id].n_errors == 1


def test_cli_one_bad_record_is_one_error_row(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    records = _records(1500, bad=1234)  # two chunks of the default size; the bad record in the second
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    run_evalcore("evaluate", str(data), "-m", "overlap/exact_match", "--no-progress",
                 "--samples", str(tmp_path / "rows.jsonl"), "-o", str(tmp_path / "result.json"))
    rows = _scores(tmp_path / "rows.jsonl", "overlap/exact_match")
    assert len(rows) == 1501
    assert rows["q1234"]["status"] == "error"
    assert "prediction.response" in rows["q1234"]["error"]["message"]
    ok = [row for row in rows.values() if row["status"] == "ok"]
    assert len(ok) == 1499
    # by hand: the response is the answer upper-cased with "!" unless i % 3 == 0 ("not ..."),
    # so every record with i % 3 != 0 matches after DSPy's normalisation, the others do not
    assert all(row["value"] == (1.0 if int(i[1:]) % 3 else 0.0) for i, row in rows.items()
               if row["status"] == "ok")
    result = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert result["metrics"]["overlap/exact_match"]["n_errors"] == 1
