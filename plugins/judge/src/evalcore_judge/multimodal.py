"""Multimodal faithfulness and relevance: ragas' MultiModalFaithfulness and MultiModalRelevance.

One call per sample: ragas' instruction, the response (and, for relevance, the question), then each
context in order, a text as ``Context i: TEXT`` and an image as an OpenAI-compatible image part
followed by ``[Image context i]``, then ragas' closing instruction. The contexts are the evidence
(``prediction.retrieved`` or ``example.relevant_docs``; a document whose text names an image is the
image, as ragas reads its contexts) followed by ``example.images``. The judge answers a yes/no
verdict and its reason; the value is 1.0 for yes and 0.0 for no, as ragas scores it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from evalcore.plugin import InputError, Record, SkipSample, inputs
from evalcore_http.images import image_part, is_image
from pydantic import Field

from .metrics import JudgeMetric, Request, Verdict
from .parsing import Parsed
from .prompts import Template
from .schemas import JudgeAnswer

FAITHFULNESS_INSTRUCTION = (
    "You are evaluating whether a response is faithful to the provided context information.\n\n"
    "A response is considered FAITHFUL if:\n"
    "- All claims in the response can be directly inferred from the visual or textual context\n"
    "- The response does not contain information that contradicts the context\n"
    "- The response does not hallucinate facts not present in the context\n\n"
    "A response is considered NOT FAITHFUL if:\n"
    "- It contains claims that cannot be verified from the context\n"
    "- It contradicts information in the context\n"
    "- It makes up facts not supported by the context\n\n"
    "You must evaluate faithfulness based on BOTH visual (images) and textual context if provided."
)
FAITHFULNESS_CLOSING = ("\n\nBased on the above contexts (both visual and textual), determine if the response is "
                        "faithful. A response is faithful if all claims can be inferred from the provided contexts.")
RELEVANCE_INSTRUCTION = (
    "You are evaluating whether a response for a given question is relevant and in line with the provided "
    "context information.\n\nA response is considered RELEVANT if:\n"
    "- It appropriately addresses the user's question\n"
    "- It is consistent with the visual and/or textual context provided\n"
    "- The information in the response can be supported by the context\n\n"
    "A response is considered NOT RELEVANT if:\n"
    "- It does not address the user's question\n"
    "- It contradicts or is not in line with the context information\n"
    "- It provides information that is unrelated to both the question and context\n\n"
    "You must evaluate relevance based on BOTH visual (images) and textual context if provided."
)
RELEVANCE_CLOSING = ("\n\nBased on the above contexts (both visual and textual), determine if the response is "
                     "relevant. A response is relevant if it appropriately addresses the question using "
                     "information from the provided contexts.")


class FaithfulAnswer(JudgeAnswer):
    """ragas' MultiModalFaithfulnessOutput: whether the response is faithful to the contexts, and why."""

    schema_name: ClassVar[str] = "multimodal_faithfulness"
    score_fields: ClassVar[tuple[str, ...]] = ("faithful",)
    rationale_field: ClassVar[str] = "reason"
    faithful: bool = Field(description="True if the response is faithful to the contexts, False otherwise")
    reason: str = Field("", description="Explanation for the faithfulness verdict")


class RelevantAnswer(JudgeAnswer):
    """ragas' MultiModalRelevanceOutput: whether the response is relevant to the question and contexts, and why."""

    schema_name: ClassVar[str] = "multimodal_relevance"
    score_fields: ClassVar[tuple[str, ...]] = ("relevant",)
    rationale_field: ClassVar[str] = "reason"
    relevant: bool = Field(description="True if the response is relevant to the question and contexts, "
                                       "False otherwise")
    reason: str = Field("", description="Explanation for the relevance verdict")


FAITHFULNESS = Template("multimodal_faithfulness", FAITHFULNESS_INSTRUCTION, FAITHFULNESS_CLOSING, FaithfulAnswer)
RELEVANCE = Template("multimodal_relevance", RELEVANCE_INSTRUCTION, RELEVANCE_CLOSING, RelevantAnswer)


def contexts(example: Record, prediction: Record, source: str, k: int | None) -> list[str]:
    """The evidence texts (none is no error here) followed by ``example.images``."""
    try:
        found = list(inputs.evidence(example, prediction, source, k))
    except SkipSample:
        found = []
    images = example.get("images")
    if images is not None:
        if isinstance(images, str):
            images = [images]
        if not isinstance(images, list) or not all(isinstance(i, str) for i in images):
            raise InputError("a list of image paths, URLs or data URLs", field="example.images")
        found.extend(images)
    if not found:
        raise SkipSample("no contexts: no evidence documents and no example.images")
    return found


def message_content(head: str, closing: str, items: Sequence[str], max_bytes: int) -> list[dict[str, Any]]:
    """ragas' multimodal message: ``head``, each context as text or image, then ``closing``."""
    content: list[dict[str, Any]] = [{"type": "text", "text": head}]
    for i, item in enumerate(items):
        if is_image(item):
            content.append(image_part(item, max_bytes=max_bytes, field=f"context {i + 1}"))
            content.append({"type": "text", "text": f"[Image context {i + 1}]"})
        else:
            content.append({"type": "text", "text": f"Context {i + 1}: {item}"})
    content.append({"type": "text", "text": closing})
    return content


class _MultiModal(JudgeMetric):
    template: ClassVar[Template]

    def head(self, example: Record, response: str) -> str:
        raise NotImplementedError

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        response = inputs.response(prediction, blank="skip")
        items = contexts(example, prediction, self.params["evidence_source"], self.params["k"])
        content = message_content(self.head(example, response), self.template.user, items,
                                  self.params["max_image_bytes"])
        return [Request(self.template.name, self.template, [{"role": "user", "content": content}],
                        self.template.answer)]

    def combine(self, parsed: Mapping[str, Parsed]) -> Verdict:
        judged = parsed[self.template.name]
        (value,) = judged.values.values()
        return Verdict(value, judged.explanation, {"reason": judged.explanation})


class MultiModalFaithfulness(_MultiModal):
    """ragas' MultiModalFaithfulness: is the response supported by the text and image contexts?"""

    template = FAITHFULNESS

    def head(self, example: Record, response: str) -> str:
        return f"{FAITHFULNESS_INSTRUCTION}\n\nResponse to evaluate:\n{response}\n\nRetrieved contexts:\n"


class MultiModalRelevance(_MultiModal):
    """ragas' MultiModalRelevance: does the response address the question, in line with the contexts?"""

    template = RELEVANCE

    def head(self, example: Record, response: str) -> str:
        query = example.get("query")
        if not isinstance(query, str) or not query.strip():
            raise SkipSample("no example.query")
        return (f"{RELEVANCE_INSTRUCTION}\n\nQuestion: {query}\n\nResponse to evaluate: {response}\n\n"
                "Retrieved contexts:\n")
