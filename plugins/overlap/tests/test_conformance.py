"""The evalcore conformance kit applied to every overlap metric."""

from evalcore.testkit import PluginConformance

PASSAGES = [{"doc_id": "d1", "text": "Paris is the capital and most populous city of France."}]


class TestConformance(PluginConformance):
    namespace = "overlap"
    package = "evalcore_overlap"
    heavy = ("numpy", "rouge_score", "sacrebleu", "nltk", "regex")
    examples = [
        {"example": {"query": "What is the capital of France?", "reference_answer": "Paris",
                     "relevant_docs": PASSAGES},
         "prediction": {"response": "Paris is the capital of France.", "retrieved": PASSAGES}},
        {"example": {"query": "When was the tower completed?", "reference_answer": "in 1889",
                     "relevant_docs": PASSAGES},
         "prediction": {"response": "It was completed in 1889.", "retrieved": PASSAGES}},
    ]
    params = {"overlap/rouge": {"variant": "L"}, "overlap/squad_v2": {"measure": "f1"}}
    bad_inputs = [{"example": {}, "prediction": {}}]
