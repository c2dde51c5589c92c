"""Versioned prompt templates of the judge metrics.

A template is a system message and a user message with ``{placeholders}``; its hash goes
into every result's details and every cache key, so editing a prompt never reuses old
answers. Bump the metric version in ``_register`` when a template changes.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
from evalcore.cache import content_hash

_JSON_RULE = (
    "Answer with a single JSON object and nothing else, with the keys {keys}. "
    "Every score is a number on the scale {scale}."
)


@attrs.frozen
class Template:
    """A prompt template; ``hash`` identifies its exact text."""

    name: str
    system: str
    user: str

    @property
    def hash(self) -> str:
        return content_hash({"name": self.name, "system": self.system, "user": self.user})[:16]

    def render(self, **values: str) -> list[dict[str, str]]:
        """The chat messages with ``values`` filled in."""
        return [
            {"role": "system", "content": self.system.format(**values)},
            {"role": "user", "content": self.user.format(**values)},
        ]


def json_rule(keys: Sequence[str], scale: str) -> str:
    """The output instruction shared by every template."""
    return _JSON_RULE.format(keys=", ".join(f'"{k}"' for k in keys), scale=scale)


def numbered(texts: Sequence[str]) -> str:
    """Evidence passages as a numbered list."""
    return "\n".join(f"[{i}] {t}" for i, t in enumerate(texts, 1)) or "(none)"


FAITHFULNESS = Template(
    "faithfulness",
    "You judge whether an answer is supported by the evidence given. Claims that the evidence "
    "does not state or imply count against the answer; knowledge outside the evidence does not "
    "count as support. {rule}",
    "Question:\n{query}\n\nEvidence:\n{evidence}\n\nAnswer:\n{response}\n\n"
    "How well is the answer supported by the evidence? Give \"score\" and a short \"explanation\".",
)

ANSWER_QUALITY = Template(
    "answer_quality",
    "You rate how well an answer serves a question, on each of these dimensions: {dimensions}. {rule}",
    "Question:\n{query}\n\nAnswer:\n{response}\n\nRate each dimension and give a short \"explanation\".",
)

SEMANTIC_F1 = Template(
    "semantic_f1",
    "Compare a system's response to the ground truth to compute its recall and precision. "
    "Recall is the fraction of the ground truth covered by the system response; precision is the "
    "fraction of the system response covered by the ground truth. {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"recall\", \"precision\" and a short \"explanation\".",
)

SEMANTIC_F1_DECOMPOSED = Template(
    "semantic_f1_decompositional",
    "Compare a system's response to the ground truth to compute recall and precision of key ideas. "
    "First list the key ideas of each, then discuss their overlap, then give recall (the fraction "
    "of ground-truth key ideas present in the system response) and precision (the fraction of "
    "system-response key ideas present in the ground truth). {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"ground_truth_key_ideas\", \"system_response_key_ideas\", \"discussion\", "
    "\"recall\" and \"precision\".",
)

COMPLETENESS = Template(
    "completeness",
    "Estimate the completeness of a system's response against the ground truth: the fraction of "
    "the ground truth's content that the response covers. {rule}",
    "Question:\n{query}\n\nGround truth:\n{reference}\n\nSystem response:\n{response}\n\n"
    "Give \"completeness\" and a short \"explanation\".",
)

GROUNDEDNESS = Template(
    "groundedness",
    "Estimate the groundedness of a system's response in the retrieved context: the fraction of the "
    "response's claims that the context supports or that follow from commonsense. {rule}",
    "Question:\n{query}\n\nRetrieved context:\n{evidence}\n\nSystem response:\n{response}\n\n"
    "Give \"groundedness\" and a short \"explanation\".",
)

LLM_JUDGE = Template(
    "llm_judge",
    "{system_prompt}\n\nEvaluate the output against these criteria:\n{criteria}\n{rule}",
    "Input:\n{query}\n\n{reference_block}Output:\n{response}\n\n"
    "Give an overall \"score\" and an \"explanation\" of it.",
)

DIFF_SEMANTIC = Template(
    "diff_semantic",
    "You decide whether two texts say the same thing: the same facts, claims and meaning, "
    "whatever the wording or formatting. {rule}",
    "Expected:\n{expected}\n\nActual:\n{actual}\n\n"
    "Give \"score\" 1 if they are semantically equivalent and 0 if they are not, and an \"explanation\".",
)
