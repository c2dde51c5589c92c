"""Conversation metrics, as DeepEval defines them for a ``ConversationalTestCase``.

The conversation is ``example.turns`` followed by ``prediction.turns`` (either may be absent),
each a list of ``{"role", "content"}`` (DeepEval's turns: roles ``user`` and ``assistant``; turns
with other roles, such as ``tool`` or ``system``, are left out, as DeepEval's turns cannot hold
them). A turn may carry ``images`` (paths, http(s) URLs or data URLs): the prompt shows them as
``Image N`` in the turn and sends each after the text as an OpenAI-compatible image part. Every
verdict is ``yes`` or ``no`` with a reason; the scores are DeepEval's:

* :class:`KnowledgeRetention` — facts from each user turn; each assistant turn after some facts
  judged for forgetting or contradicting them; value = ``no`` verdicts / verdicts (1 without any).
* :class:`RoleAdherence` — one call: the assistant turns out of ``example.chatbot_role``; value =
  (assistant turns - min(out of character, assistant turns)) / assistant turns (1 without any).
* :class:`ConversationCompleteness` — the user's intentions, each judged satisfied or not; value =
  ``yes`` / intentions (1 without any).
* :class:`ConversationRelevancy` — DeepEval's ``TurnRelevancyMetric``: the conversation cut into
  user-assistant exchanges, a window of the last ``window_size`` exchanges ending at each, the
  last assistant message of each window judged relevant or not; value = ``yes`` / windows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from evalcore.plugin import InputError, Record, SkipSample
from evalcore_http.images import image_part
from pydantic import Field

from .metrics import Request, StagedJudgeMetric, Verdict
from .prompts import Template
from .schemas import JudgeAnswer, _Item

ROLES = ("user", "assistant")


def conversation(example: Record, prediction: Record, *, calls: bool = False) -> list[dict[str, Any]]:
    """``example.turns`` then ``prediction.turns``, the user and assistant turns only (with ``calls``,
    an assistant turn keeps its ``tool_calls``); no turn skips."""
    turns: list[dict[str, Any]] = []
    for role, record in (("example", example), ("prediction", prediction)):
        found = record.get("turns")
        if found is None:
            continue
        if not isinstance(found, list):
            raise InputError(f"expected a list of turns, got {type(found).__name__}", field=f"{role}.turns")
        for i, turn in enumerate(found):
            if not isinstance(turn, Mapping) or not isinstance(turn.get("content", ""), str):
                raise InputError("a turn is {role, content} with text content", field=f"{role}.turns[{i}]")
            if turn.get("role") in ROLES:
                kept = {"role": turn["role"], "content": turn.get("content") or ""}
                if calls and turn.get("tool_calls"):
                    kept["tool_calls"] = turn["tool_calls"]
                if turn.get("images"):
                    kept["images"] = _turn_images(turn["images"], f"{role}.turns[{i}].images")
                turns.append(kept)
    if not turns:
        raise SkipSample("no user or assistant turns in example.turns / prediction.turns")
    return turns


def _turn_images(images: Any, field: str) -> list[tuple[str, str]]:
    """A turn's images as (image, field naming it) pairs; anything but a string or a list of them is an error."""
    if isinstance(images, str):
        images = [images]
    if not isinstance(images, list) or not all(isinstance(image, str) for image in images):
        raise InputError("a list of image paths, URLs or data URLs", field=field)
    return [(image, f"{field}[{j}]") for j, image in enumerate(images)]


def labelled(turns: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The turns with each image replaced by its label ``Image N`` (numbered in order), and the images
    in that order; turns without images as they are."""
    images: list[tuple[str, str]] = []
    out = []
    for turn in turns:
        kept = dict(turn)
        if turn.get("images"):
            kept["images"] = [f"Image {len(images) + j + 1}" for j in range(len(turn["images"]))]
            images.extend(turn["images"])
        out.append(kept)
    return out, images


def message(turn: Mapping[str, Any]) -> str:
    """One labelled turn's text, its image labels after it."""
    labels = turn.get("images")
    return f"{turn['content']} [{', '.join(labels)}]" if labels else turn["content"]


def with_images(messages: list[dict[str, Any]], images: Sequence[tuple[str, str]],
                max_bytes: int) -> list[dict[str, Any]]:
    """``messages`` with ``images`` after the last message's text, each labelled ``Image N:`` and sent as
    an OpenAI-compatible image part (a local file read and base64-encoded, at most ``max_bytes``);
    without images, ``messages`` as they are."""
    if not images:
        return messages
    parts: list[dict[str, Any]] = [{"type": "text", "text": messages[-1]["content"]}]
    for n, (image, field) in enumerate(images, 1):
        parts += [{"type": "text", "text": f"Image {n}:"}, image_part(image, max_bytes=max_bytes, field=field)]
    return [*messages[:-1], {**messages[-1], "content": parts}]


def shown(turns: Sequence[Mapping[str, str]], *, indexed: bool = False) -> str:
    """Turns as the judge reads them: a JSON list of ``{role, content}`` (with ``index`` when asked)."""
    rows = [{"index": i, **t} if indexed else dict(t) for i, t in enumerate(turns)]
    return json.dumps(rows, ensure_ascii=False, indent=1)


def yes_fraction(verdicts: Sequence[str], passing: str = "yes") -> float:
    """DeepEval's ``score_qag_verdicts`` with one passing verdict: its share; 1 without verdicts."""
    return sum(1 for v in verdicts if v == passing) / len(verdicts) if verdicts else 1.0


def unit_interactions(turns: Sequence[Mapping[str, str]]) -> list[list[Mapping[str, str]]]:
    """DeepEval's ``get_unit_interactions``: the turns cut where a user turn follows an assistant
    turn (once a user turn was seen); the last unit only when it ends with the assistant and holds a
    user turn and one more."""
    units: list[list[Mapping[str, str]]] = []
    current: list[Mapping[str, str]] = []
    has_user = False
    for turn in turns:
        if current and current[-1]["role"] == "assistant" and turn["role"] == "user" and has_user:
            units.append(current)
            current = [turn]
            continue
        current.append(turn)
        has_user = has_user or turn["role"] == "user"
    if current and len(current) > 1 and current[-1]["role"] == "assistant" and has_user:
        units.append(current)
    return units


def sliding_windows(units: Sequence[Sequence[Mapping[str, str]]], size: int) -> list[list[Mapping[str, str]]]:
    """DeepEval's ``get_turns_in_sliding_window``, flattened: the turns of the last ``size`` units up to each unit."""
    return [[t for unit in units[max(0, i - size + 1): i + 1] for t in unit] for i in range(len(units))]


# -- answers ---------------------------------------------------------------------------------------


class YesNoVerdictAnswer(JudgeAnswer):
    """A yes/no verdict and its reason (DeepEval's conversational verdicts)."""

    schema_name: ClassVar[str] = "yes_no_verdict"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field(description="the reason of the verdict")
    verdict: Literal["yes", "no"] = Field(description="yes or no, as the question asks")


class Fact(_Item):
    """One fact the user stated: what it is about, and its value."""

    name: str = Field(description="what the fact is about, e.g. 'Birth year'")
    value: str = Field(description="the fact's value, e.g. '1992'")


class KnowledgeAnswer(JudgeAnswer):
    """DeepEval's knowledge extraction: the facts a user message states (none: empty)."""

    schema_name: ClassVar[str] = "user_knowledge"
    facts: list[Fact] = Field(description="the facts the latest user message states or corrects")


class OutOfCharacter(_Item):
    """One assistant turn out of the chatbot role: its index in the messages, and why."""

    index: int = Field(description="the index of the assistant message")
    reason: str = Field(description="how the message departs from the role")


class OutOfCharacterAnswer(JudgeAnswer):
    """DeepEval's role adherence verdicts: the assistant messages that did not adhere to the role."""

    schema_name: ClassVar[str] = "out_of_character"
    verdicts: list[OutOfCharacter] = Field(description="one entry per assistant message out of the role")


class IntentionsAnswer(JudgeAnswer):
    """DeepEval's user intentions: each overall objective of the user, separately."""

    schema_name: ClassVar[str] = "user_intentions"
    intentions: list[str] = Field(description="the user's intentions, one per task")


_JSON_VERDICT = 'Answer with a single JSON object and nothing else: {{"reason": "...", "verdict": "yes" or "no"}}.'

KNOWLEDGE = Template(
    "conversation_knowledge",
    "Extract the facts that the latest user message states about the user or their situation, or corrects, "
    "using the previous turns only to understand it. Do not invent facts; a message that states none gives "
    'an empty list. Answer with a single JSON object and nothing else: {{"facts": [{{"name": "...", '
    '"value": "..."}}, ...]}}.',
    "Previous turns:\n{previous}\n\nLatest user message:\n{message}\n\nExtract the facts.",
    KnowledgeAnswer,
)

KNOWLEDGE_VERDICT = Template(
    "conversation_knowledge_verdict",
    "You are given an AI-generated message and facts previously stated in the conversation. Decide whether the "
    "message forgets or contradicts any of the known facts: verdict 'yes' if it does (asking again for "
    "something already known counts), 'no' if it is consistent with them or only asks for clarification or "
    "confirmation. Use only the facts given. " + _JSON_VERDICT,
    "AI message:\n{message}\n\nPrevious knowledge:\n{knowledge}\n\nDoes the message forget or contradict it?",
    YesNoVerdictAnswer,
)

ROLE_ADHERENCE = Template(
    "conversation_role_adherence",
    "Given the messages between a user and an AI chatbot and the chatbot's role, list the assistant messages "
    "that do not adhere to the role (out of character), each by its index with the reason; an empty list "
    'when every assistant message keeps to it. Answer with a single JSON object and nothing else: '
    '{{"verdicts": [{{"index": 0, "reason": "..."}}, ...]}}.',
    "Chatbot role:\n{role}\n\nMessages:\n{turns}\n\nWhich assistant messages are out of character?",
    OutOfCharacterAnswer,
)

INTENTIONS = Template(
    "conversation_intentions",
    "Given the messages between a user and an AI, extract every intention of the user in the conversation: "
    "the overall objective of each task, not its specifics; several tasks give several intentions, not one "
    'summary. Answer with a single JSON object and nothing else: {{"intentions": ["...", ...]}}.',
    "Turns:\n{turns}\n\nExtract the user's intentions.",
    IntentionsAnswer,
)

INTENTION_VERDICT = Template(
    "conversation_intention_verdict",
    "Given the messages between a user and an AI and one user intention, decide whether the AI's responses "
    "satisfied the intention: 'yes' if they did, 'no' only if they failed to. Quote the AI where you give a "
    "reason. " + _JSON_VERDICT,
    "Turns:\n{turns}\n\nUser intention:\n{intention}\n\nWas the intention satisfied?",
    YesNoVerdictAnswer,
)

TURN_RELEVANCE = Template(
    "conversation_turn_relevance",
    "Given the messages between a user and an AI, decide whether the LAST assistant message is relevant to "
    "the context of the messages, using the earlier messages as context: 'no' only if it is completely "
    "irrelevant to its input (vague answers to vague inputs, such as greetings, are relevant). " + _JSON_VERDICT,
    "Messages:\n{turns}\n\nIs the last assistant message relevant?",
    YesNoVerdictAnswer,
)


# -- metrics ---------------------------------------------------------------------------------------


def _rank(role: str) -> int:
    return int(role.rsplit("_", 1)[1])


def _verdict_rows(answers: Mapping[str, JudgeAnswer], prefix: str) -> list[tuple[int, JudgeAnswer]]:
    """The answers whose role starts with ``prefix``, ordered by the number after it."""
    return sorted(((_rank(r), a) for r, a in answers.items() if r.startswith(prefix)), key=lambda pair: pair[0])


class ConversationJudgeMetric(StagedJudgeMetric):
    """A conversation metric: its requests carry the images of the turns they show."""

    def _request(self, name: str, template: Template, images: Sequence[tuple[str, str]], /,
                 **values: str) -> Request:
        """The request ``name``: ``template`` with ``values``, and ``images`` after its text."""
        messages = with_images(template.render(**values), images, self.params["max_image_bytes"])
        return Request(name, template, messages, template.answer)

    def _turns_request(self, name: str, template: Template, turns: Sequence[Mapping[str, Any]], /, *,
                       indexed: bool = False, **values: str) -> Request:
        """``template`` asked with ``turns`` shown (their images labelled and sent) and ``values``."""
        labelled_turns, images = labelled(turns)
        return self._request(name, template, images, turns=shown(labelled_turns, indexed=indexed), **values)


class KnowledgeRetention(ConversationJudgeMetric):
    """DeepEval's KnowledgeRetentionMetric: the share of assistant turns that keep the user's facts."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        turns = conversation(example, prediction)
        return [self._extraction(i, turns[:i + 1]) for i, turn in enumerate(turns) if turn["role"] == "user"]

    def _extraction(self, i: int, turns: Sequence[Mapping[str, Any]]) -> Request:
        """The facts of the last of ``turns``, the earlier ones shown as context."""
        labelled_turns, images = labelled(turns)
        return self._request(f"knowledge_{i}", KNOWLEDGE, images, previous=shown(labelled_turns[:-1]),
                         message=message(labelled_turns[-1]))

    def _verdict(self, i: int, turn: Mapping[str, Any], known: Sequence[Mapping[str, str]]) -> Request:
        (labelled_turn,), images = labelled([turn])
        return self._request(f"verdict_{i}", KNOWLEDGE_VERDICT, images, message=message(labelled_turn),
                         knowledge=json.dumps(list(known), ensure_ascii=False))

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extractions, and a verdict for every assistant turn after a user turn (the user's
        messages standing in for the facts)."""
        turns = conversation(example, prediction)
        verdicts = [self._verdict(i, t, [{"name": "said", "value": u["content"]} for u in turns[:i]
                                         if u["role"] == "user"])
                    for i, t in enumerate(turns) if t["role"] == "assistant" and any(
                        u["role"] == "user" for u in turns[:i])]
        return [*self._checked_requests(example, prediction), *verdicts]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        turns = conversation(example, prediction)
        facts = {i: [{"name": f.name, "value": f.value} for f in a.facts]  # type: ignore[attr-defined]
                 for i, a in ((_rank(r), a) for r, a in answers.items() if r.startswith("knowledge_"))}
        if not any(r.startswith("verdict_") for r in answers):
            asked = []
            for i, turn in enumerate(turns):
                known = [fact for j in sorted(facts) if j < i for fact in facts[j]]
                if turn["role"] == "assistant" and known:
                    asked.append(self._verdict(i, turn, known))
            if asked:
                return asked
        rows = [{"turn": i, "verdict": a.verdict, "reason": a.reason} for i, a in _verdict_rows(answers, "verdict_")]
        forgot = [f"- turn {r['turn']}: {r['reason']}" for r in rows if r["verdict"] == "yes"]
        feedback = ("Forgot or contradicted what the user said:\n" + "\n".join(forgot)) if forgot else \
            "No assistant turn forgot or contradicted what the user said."
        return Verdict(yes_fraction([r["verdict"] for r in rows], passing="no"), feedback,
                       {"facts": {str(i): f for i, f in sorted(facts.items())}, "verdicts": rows,
                        "retained": len(rows) - len(forgot), "total": len(rows)})


class RoleAdherence(ConversationJudgeMetric):
    """DeepEval's RoleAdherenceMetric: the share of assistant turns that keep to ``example.chatbot_role``."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        role = example.get("chatbot_role")
        if not isinstance(role, str) or not role.strip():
            raise SkipSample("example.chatbot_role is missing")
        turns = conversation(example, prediction)
        if not any(t["role"] == "assistant" for t in turns):
            return []  # DeepEval scores a conversation without assistant turns 1
        return [self._turns_request("out_of_character", ROLE_ADHERENCE, turns, indexed=True, role=role)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        turns = conversation(example, prediction)
        assistant = sum(1 for t in turns if t["role"] == "assistant")
        found = answers["out_of_character"].verdicts if answers else []  # type: ignore[attr-defined]
        rows = [{"index": v.index, "reason": v.reason,
                 "message": turns[v.index]["content"] if 0 <= v.index < len(turns) else None} for v in found]
        value = (assistant - min(len(rows), assistant)) / assistant if assistant else 1.0
        feedback = ("Out of character:\n" + "\n".join(f"- turn {r['index']}: {r['reason']}" for r in rows)) if rows \
            else "Every assistant turn keeps to the role."
        return Verdict(value, feedback, {"out_of_character": rows, "assistant_turns": assistant})


class ConversationCompleteness(ConversationJudgeMetric):
    """DeepEval's ConversationCompletenessMetric: the share of the user's intentions satisfied."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        return [self._turns_request("intentions", INTENTIONS, conversation(example, prediction))]

    def _verdicts(self, example: Record, prediction: Record, intentions: Sequence[str]) -> list[Request]:
        turns = conversation(example, prediction)
        return [self._turns_request(f"intention_{j}", INTENTION_VERDICT, turns, intention=text)
                for j, text in enumerate(intentions)]

    def _estimated_requests(self, example: Record, prediction: Record) -> list[Request]:
        """The extraction, and a verdict per user turn (each standing in for an intention)."""
        users = [t["content"] for t in conversation(example, prediction) if t["role"] == "user"]
        return [*self._checked_requests(example, prediction), *self._verdicts(example, prediction, users)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        intentions = list(answers["intentions"].intentions)  # type: ignore[attr-defined]
        if intentions and len(answers) == 1:
            return self._verdicts(example, prediction, intentions)
        rows = [{"intention": intentions[j], "verdict": a.verdict, "reason": a.reason}
                for j, a in _verdict_rows(answers, "intention_")]
        unmet = [f"- {r['intention']}: {r['reason']}" for r in rows if r["verdict"] != "yes"]
        feedback = ("Not satisfied:\n" + "\n".join(unmet)) if unmet else "Every intention of the user was satisfied."
        return Verdict(yes_fraction([r["verdict"] for r in rows]), feedback,
                       {"intentions": rows, "satisfied": len(rows) - len(unmet), "total": len(rows)})


class ConversationRelevancy(ConversationJudgeMetric):
    """DeepEval's TurnRelevancyMetric: the share of exchanges whose assistant reply is relevant in its window."""

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        windows = sliding_windows(unit_interactions(conversation(example, prediction)), self.params["window_size"])
        return [self._turns_request(f"window_{i}", TURN_RELEVANCE, window) for i, window in enumerate(windows)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        rows = [{"exchange": i, "verdict": a.verdict, "reason": a.reason} for i, a in _verdict_rows(answers, "window_")]
        irrelevant = [f"- exchange {r['exchange']}: {r['reason']}" for r in rows if r["verdict"] != "yes"]
        feedback = ("Irrelevant replies:\n" + "\n".join(irrelevant)) if irrelevant else \
            "Every assistant reply is relevant." if rows else "No complete user-assistant exchange (DeepEval scores 1)."
        return Verdict(yes_fraction([r["verdict"] for r in rows]), feedback,
                       {"exchanges": rows, "relevant": len(rows) - len(irrelevant), "total": len(rows),
                        "window_size": self.params["window_size"]})

