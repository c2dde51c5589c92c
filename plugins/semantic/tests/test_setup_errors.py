"""Setup errors name the metric and parameter; BERTScore runs through the evaluator."""

import evalcore
import pytest


@pytest.mark.parametrize("metric_id, params, parameter", [
    ("semantic/embedding_similarity", {}, "model"),
    ("semantic/embedding_similarity", {"model": "/no/such/model/dir"}, "model"),
    ("semantic/embedding_similarity", {"base_url": "http://127.0.0.1:9"}, "model"),
    ("semantic/intra_list_diversity", {"model": "./missing"}, "model"),
    ("semantic/bertscore", {}, "model"),
    ("semantic/bertscore", {"model": "roberta-large"}, "model"),
    ("semantic/embedding_similarity", {"embed": "not callable"}, "embed"),
])
def test_missing_model_or_backend_is_a_parameter_error(monkeypatch, metric_id, params, parameter):
    monkeypatch.delenv("EVALCORE_EMBEDDING_MODEL", raising=False)
    with pytest.raises(evalcore.ParameterError) as info:
        evalcore.get_metric(metric_id, **params)
    message = str(info.value)
    assert message.startswith(metric_id) and f"parameter {parameter!r}" in message and "\n" not in message


def test_bad_bertscore_parameters(minilm, tmp_path):
    with pytest.raises(evalcore.ParameterError, match=r"semantic/bertscore.*'num_layers'.*between 0 and 6"):
        evalcore.get_metric("semantic/bertscore", model=minilm, num_layers=40)
    with pytest.raises(evalcore.ParameterError, match=r"'baseline_path'"):
        evalcore.get_metric("semantic/bertscore", model=minilm, rescale_with_baseline=True)
    with pytest.raises(evalcore.ParameterError, match=r"'baseline_path'.*does not exist"):
        evalcore.get_metric("semantic/bertscore", model=minilm, rescale_with_baseline=True,
                            baseline_path=str(tmp_path / "none.tsv"))
    broken = tmp_path / "broken.tsv"
    broken.write_text("LAYER,P,R,F\n0,x,0.1,0.1\n")
    with pytest.raises(evalcore.ParameterError, match=r"'baseline_path'"):
        evalcore.get_metric("semantic/bertscore", model=minilm, num_layers=0, rescale_with_baseline=True,
                            baseline_path=str(broken))


def test_bertscore_through_evaluate(minilm, tmp_path):
    records = [
        {"id": "a", "example": {"reference_answer": "The cat sat on the mat."},
         "prediction": {"response": "A cat was sitting on the mat."}},
        {"id": "b", "example": {"reference_answer": "Paris is the capital of France."},
         "prediction": {"response": "The capital of France is Paris."}},
        {"id": "c", "example": {"reference_answer": "x"}, "prediction": {"response": ""}},
    ]
    metric = evalcore.get_metric("semantic/bertscore", model=minilm)
    direct = metric.score_many([r["example"] for r in records], [r["prediction"] for r in records])
    result = evalcore.evaluate(records, [metric], output=tmp_path / "report.json")
    summary = result.metrics[metric.id].to_dict()
    assert summary["n"] == 2 and summary["n_skipped"] == 1
    assert summary["value"] == pytest.approx((direct[0].value + direct[1].value) / 2)
    assert 0.0 < summary["value"] <= 1.0
    assert (tmp_path / "report.json").is_file()
