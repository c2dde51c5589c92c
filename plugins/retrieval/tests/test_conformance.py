"""The evalcore conformance kit applied to every retrieval metric."""

from evalcore.testkit import PluginConformance

DOCS = [{"doc_id": "d1", "relevance": 2}, {"doc_id": "d3", "relevance": 1}]


class TestConformance(PluginConformance):
    namespace = "retrieval"
    package = "evalcore_retrieval"
    heavy = ("numpy", "pytrec_eval")
    examples = [
        {"example": {"relevant_docs": DOCS},
         "prediction": {"retrieved": [{"doc_id": "d2", "score": 0.9}, {"doc_id": "d1", "score": 0.8}]}},
        {"example": {"relevant_docs": DOCS[:1]},
         "prediction": {"retrieved": [{"doc_id": "d1", "score": 0.5}, {"doc_id": "d3", "score": 0.4}]}},
    ]
    bad_inputs = [{"example": {"relevant_docs": DOCS}, "prediction": {"retrieved": "d1"}},
                  {"example": {}, "prediction": {"retrieved": [{"doc_id": "d1", "score": 1.0}]}}]
