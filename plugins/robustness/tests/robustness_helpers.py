"""Helpers shared by the robustness tests."""


def corpus(metric, records):
    """Per-sample states of ``records`` [(example, prediction)] and the corpus score."""
    states = metric.states([e for e, _ in records], [p for _, p in records])
    return metric.corpus_score([s for _, s in states])


def rec(record_id, response, reference=None, **labels):
    example = {"id": record_id, "labels": labels}
    if reference is not None:
        example["reference_answer"] = reference
    return example, {"response": response}
