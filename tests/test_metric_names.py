"""The names people type resolve to the metric they mean, through the bundled plugins."""

from __future__ import annotations

import evalcore
import pytest

SPELLINGS = {
    "MRR": "retrieval/mrr", "mrr": "retrieval/mrr", "MRR@10": "retrieval/mrr@10", "RR@10": "retrieval/mrr@10",
    "MAP": "retrieval/map", "AP": "retrieval/map", "map_cut_10": "retrieval/map@10",
    "nDCG@10": "retrieval/ndcg@10", "NDCG@10": "retrieval/ndcg@10", "ndcg_cut_10": "retrieval/ndcg@10",
    "P@5": "retrieval/precision@5", "p@5": "retrieval/precision@5", "P_5": "retrieval/precision@5",
    "Recall@5": "retrieval/recall@5", "R@5": "retrieval/recall@5", "RECALL_5": "retrieval/recall@5",
    "BLEU": "overlap/bleu", "Bleu": "overlap/bleu",
    "ROUGE-L": "overlap/rouge(variant='L')", "rouge-l": "overlap/rouge(variant='L')",
    "rougeL": "overlap/rouge(variant='L')", "ROUGE-Lsum": "overlap/rouge(variant='Lsum')",
    "rouge-1": "overlap/rouge(variant='1')", "ROUGE-2": "overlap/rouge(variant='2')",
    "overlap/ROUGE-L": "overlap/rouge(variant='L')",
    "F1": "overlap/token_f1", "f1": "overlap/token_f1", "EM": "overlap/exact_match", "em": "overlap/exact_match",
    "Retrieval/NDCG(gain='exp2')@5": "retrieval/ndcg(gain='exp2')@5",
}


@pytest.mark.parametrize(("typed", "expected"), SPELLINGS.items(), ids=list(SPELLINGS))
def test_common_spellings_resolve(typed, expected):
    assert evalcore.get_metric(typed).id == expected
    assert evalcore.describe(typed).key == expected.split("(")[0].split("@")[0]


@pytest.mark.parametrize("typed", ["ndcg@", "rouge(variant=", "bleu)", "NDCG@", "ROUGE(variant="])
def test_an_id_that_does_not_parse_names_the_closest_ids(typed):
    with pytest.raises(evalcore.MetricIdError, match="did you mean") as info:
        evalcore.get_metric(typed)
    family = typed.split("(")[0].split("@")[0].rstrip(")").lower()
    assert any(s.endswith(f"/{family}") for s in info.value.suggestions), info.value.suggestions


def test_describe_and_evaluate_take_the_spellings(evalcore_cli, tmp_path):
    described = evalcore_cli("describe", "rouge-l")
    assert described.returncode == 0, described.stderr
    assert described.stdout.startswith("overlap/rouge(variant='L')  ")
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "1", "example": {"reference_answer": "Paris"}, "prediction": {"response": "paris"}}\n')
    proc = evalcore_cli("evaluate", str(data), "-m", "EM", "-m", "F1", "-m", "ROUGE-L", "--json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    import json

    metrics = json.loads(proc.stdout)["metrics"]
    assert {k: v["value"] for k, v in metrics.items()} == {
        "overlap/exact_match": 1.0, "overlap/token_f1": 1.0, "overlap/rouge(variant='L')": 1.0}


@pytest.mark.parametrize(("typed", "expected"), [
    ("ndcg@", "did you mean 'retrieval/ndcg'"),
    ("rouge(variant=", "did you mean 'overlap/rouge'"),
    ("bleu)", "did you mean 'overlap/bleu'"),
])
def test_a_broken_id_is_one_error_line_with_suggestions(evalcore_cli, tmp_path, typed, expected):
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": "1", "example": {"reference_answer": "a"}, "prediction": {"response": "a"}}\n')
    proc = evalcore_cli("evaluate", str(data), "-m", typed)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], lines
