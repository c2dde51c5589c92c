"""Simulated users: conversations made by an LLM playing a user against the system under test.

A scenario (one JSONL line, the shape of DeepEval's ``ConversationalGolden`` and openevals'
``run_multiturn_simulation``) gives the user's ``goal``, a ``persona`` and the ``expected_outcome``;
``max_turns`` caps the user's messages. The simulator (a judge backend: the same client, settings,
cache and price table as the judged metrics) writes each user message and says when the goal is met;
the system under test answers it: a Python callable taking the conversation so far, or an
OpenAI-compatible chat endpoint. Each finished conversation is one record,
``{"id", "example": {scenario fields}, "prediction": {"turns": [...], "stopped": ...}}``, appended to
the output file at once, so a killed simulation continues where it stopped: finished conversations
are kept, and the calls of an unfinished one are answered from the cache. The records are then
scored like any dataset (:func:`evalcore.evaluate`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from evalcore.plugin import EvalcoreError, InputError, RunContext
from evalcore_http.cache import content_hash

from .config import build_critic
from .critic import InvalidAnswer, LLMCritic
from .schemas import JudgeAnswer, text_field

__all__ = ["Scenario", "Simulation", "read_scenarios", "simulate"]

GOAL_MET = "goal_met"
"""Why a conversation stopped: the simulator said the user's goal is met."""
TURN_LIMIT = "turn_limit"
"""Why a conversation stopped: the user sent ``max_turns`` messages."""
SIMULATOR_ERROR = "simulator_error"
"""Why a conversation stopped: the simulator's answer failed validation twice (kept in the record)."""

_SCENARIO_FIELDS = ("goal", "persona", "expected_outcome", "max_turns")

SIMULATOR_PROMPT = (
    "You play a user talking to an AI assistant, to test it. Stay in your persona and pursue your goal; "
    "write only what this user would type, one message at a time, without mentioning that you are "
    "simulated.\n\nPersona: {persona}\nGoal: {goal}\nExpected outcome: {expected_outcome}\n\n"
    "Set goal_met to true, with an empty message, once the assistant's replies have met your goal (or "
    "clearly cannot); otherwise set it to false and write your next message."
)
"""The simulator's instructions; the conversation so far follows as JSON."""


class UserTurn(JudgeAnswer):
    """The simulator's answer: whether the goal is met, else the user's next message."""

    schema_name = "simulated_user_turn"
    rationale_field = "message"

    goal_met: bool
    message: str = text_field("the user's next message (empty when the goal is met)")


TEMPLATE_HASH = content_hash({"prompt": SIMULATOR_PROMPT, "schema": UserTurn.model_json_schema()})
"""The hash of the simulator's prompt and answer schema, part of every cache key of its calls."""


@attrs.frozen
class Scenario:
    """One simulated user: ``goal``, ``persona``, ``expected_outcome``, at most ``max_turns``
    messages (``None``: the simulation's limit); ``fields`` are the scenario's other fields
    (``chatbot_role`` ...), written into the record's ``example`` with it."""

    id: str
    goal: str
    persona: str = ""
    expected_outcome: str = ""
    max_turns: int | None = None
    fields: Mapping[str, Any] = attrs.field(factory=dict)

    def example(self) -> dict[str, Any]:
        """The record's ``example``: the scenario's fields."""
        own = {"goal": self.goal, "persona": self.persona, "expected_outcome": self.expected_outcome}
        return {**self.fields, **own, **({"max_turns": self.max_turns} if self.max_turns else {})}


@attrs.frozen
class Simulation:
    """What :func:`simulate` did: the records file, the conversations it made now and those a
    previous, interrupted simulation had finished, and the scoring run (``None`` without metrics)."""

    records: Path
    made: int
    kept: int
    result: Any = None


def read_scenarios(path: str | os.PathLike[str]) -> list[Scenario]:
    """The scenarios of a JSONL file, one ``{"id", "goal", "persona", "expected_outcome", "max_turns"?, ...}``
    per line; a bad line is an :class:`~evalcore.plugin.InputError` naming the file, line and field."""
    scenarios, seen = [], set()
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            place = f"{path}:{number}"
            try:
                raw = json.loads(line)
            except ValueError as exc:
                raise InputError(f"{place}: not JSON: {exc}") from None
            if not isinstance(raw, dict):
                raise InputError(f"{place}: a scenario is a JSON object")
            scenario = _scenario(raw, place, number)
            if scenario.id in seen:
                raise InputError(f"{place}: scenario id {scenario.id!r} appears twice", field="id")
            seen.add(scenario.id)
            scenarios.append(scenario)
    return scenarios


def _scenario(raw: Mapping[str, Any], place: str, number: int) -> Scenario:
    goal = raw.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise InputError(f"{place}: a scenario needs a goal (text)", field="goal")
    for name in ("persona", "expected_outcome"):
        if not isinstance(raw.get(name, ""), str):
            raise InputError(f"{place}: {name} must be text", field=name)
    turns = raw.get("max_turns")
    if turns is not None and (isinstance(turns, bool) or not isinstance(turns, int) or turns < 1):
        raise InputError(f"{place}: max_turns must be a whole number >= 1; got {turns!r}", field="max_turns")
    others = {k: v for k, v in raw.items() if k not in ("id", *_SCENARIO_FIELDS)}
    return Scenario(id=str(raw.get("id", number)), goal=goal, persona=raw.get("persona", ""),
                    expected_outcome=raw.get("expected_outcome", ""), max_turns=turns, fields=others)


System = Callable[[list[dict[str, Any]]], Any]
"""The system under test: the conversation so far (a list of ``{role, content}``) -> the reply."""


def endpoint_system(critic: LLMCritic, system_prompt: str | None = None) -> System:
    """The system under test at an OpenAI-compatible chat endpoint (its calls cached as the judge's are)."""
    head = [{"role": "system", "content": system_prompt}] if system_prompt else []

    async def reply(turns: list[dict[str, Any]]) -> str:
        messages = head + [{"role": t["role"], "content": t["content"]} for t in turns]
        call = await critic.acall(messages, metric="simulate/system", version="1",
                                  template_hash=content_hash(system_prompt or ""))
        return call.text

    return reply


async def _reply(system: System, turns: list[dict[str, Any]], scenario: Scenario) -> str:
    try:
        raw = system([dict(t) for t in turns])
        if inspect.isawaitable(raw):
            raw = await raw
    except EvalcoreError:
        raise
    except Exception as exc:
        raise EvalcoreError(f"scenario {scenario.id!r}: the system under test failed: "
                            f"{type(exc).__name__}: {exc}") from exc
    if isinstance(raw, Mapping):
        raw = raw.get("content", raw.get("response"))
    if not isinstance(raw, str):
        raise InputError(f"scenario {scenario.id!r}: the system under test returned {type(raw).__name__}; "
                         "return the reply's text (or a mapping with 'content')")
    return raw


async def converse(scenario: Scenario, simulator: LLMCritic, system: System, max_turns: int) -> dict[str, Any]:
    """One conversation of ``scenario``, as a record; the simulator speaks first."""
    limit = scenario.max_turns or max_turns
    instructions = SIMULATOR_PROMPT.format(persona=scenario.persona or "an ordinary user", goal=scenario.goal,
                                           expected_outcome=scenario.expected_outcome or "not given")
    turns: list[dict[str, Any]] = []
    stopped, calls, cost, error = TURN_LIMIT, 0, 0, None
    while sum(t["role"] == "user" for t in turns) < limit:
        messages = [{"role": "system", "content": instructions},
                    {"role": "user", "content": "Conversation so far:\n" + json.dumps(turns, ensure_ascii=False)}]
        try:
            call = await simulator.acall(messages, metric="simulate/user", version="1",
                                         template_hash=TEMPLATE_HASH, schema=UserTurn)
        except InvalidAnswer as exc:
            calls, cost = calls + exc.call.calls, cost + exc.call.cost_msats
            stopped, error = SIMULATOR_ERROR, {"reason": exc.reason, "raw_answers": list(exc.raw_answers)}
            break
        calls, cost = calls + call.calls, cost + call.cost_msats
        answer: UserTurn = call.answer  # type: ignore[assignment]
        if answer.goal_met and turns:
            stopped = GOAL_MET
            break
        turns.append({"role": "user", "content": answer.message})
        turns.append({"role": "assistant", "content": await _reply(system, turns, scenario)})
    used = {"model": simulator.model, "calls": calls, "cost_msats": cost, **({"error": error} if error else {})}
    return {"id": scenario.id, "example": scenario.example(),
            "prediction": {"turns": turns, "stopped": stopped, "simulator": used}}


def finished_ids(path: Path) -> set[str]:
    """The ids of the conversations ``path`` holds; a line cut off by a killed simulation is removed."""
    if not path.exists():
        return set()
    data = path.read_bytes()
    keep = data if data.endswith(b"\n") or not data else data[: data.rfind(b"\n") + 1]
    if keep != data:
        path.write_bytes(keep)
    ids = set()
    for number, line in enumerate(keep.decode("utf-8").splitlines(), 1):
        try:
            ids.add(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{path}:{number}: not a conversation record; give a new --records file") from None
    return ids


def simulate(
    scenarios: str | os.PathLike[str] | Sequence[Scenario | Mapping[str, Any]],
    *,
    records: str | os.PathLike[str],
    program: System | None = None,
    endpoint: str | None = None,
    endpoint_model: str | None = None,
    system_prompt: str | None = None,
    metrics: Sequence[Any] = (),
    max_turns: int = 5,
    temperature: float = 0.7,
    seed: int = 0,
    max_tokens: int = 256,
    concurrency: int = 4,
    cache_mode: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    output: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Simulation:
    """Simulate a user for each scenario against ``program`` (or the chat ``endpoint`` with
    ``endpoint_model``), append each conversation to ``records`` (conversations already there are
    kept and not run again), then score the records with ``metrics`` (conversation metrics such as
    ``judge/conversation_completeness``) through :func:`evalcore.evaluate`, writing its report to
    ``output``. The simulator is the judge of ``settings["judge"]`` (``base_url``, ``model`` ...,
    as ``--judge-*`` gives it) over the environment, asked with ``temperature``, ``seed`` and
    ``max_tokens``. A conversation whose simulator answer fails validation twice stops there
    (``prediction.stopped``: ``simulator_error``, the raw answers in ``prediction.simulator.error``)."""
    if (program is None) == (endpoint is None):
        raise EvalcoreError("give the system under test: a program or an endpoint (one of them)")
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise EvalcoreError(f"max_turns must be a whole number >= 1; got {max_turns!r}")
    chosen = _scenarios(scenarios)
    path = Path(records)
    done = finished_ids(path)
    todo = [s for s in chosen if s.id not in done]
    context = _context(settings, cache_mode, cache_dir, seed, environ)
    if todo:
        path.parent.mkdir(parents=True, exist_ok=True)
        decoding = {"temperature": temperature, "seed": seed, "max_tokens": max_tokens}
        asyncio.run(_run(todo, path, context, program, endpoint, endpoint_model, system_prompt, max_turns,
                         decoding, concurrency))
    result = None
    if metrics:
        import evalcore

        result = evalcore.evaluate(str(path), list(metrics), settings=dict(settings or {}), cache_mode=cache_mode,
                                   cache_dir=cache_dir, seed=seed, output=output)
    return Simulation(records=path, made=len(todo), kept=len(done & {s.id for s in chosen}), result=result)


def _scenarios(given: str | os.PathLike[str] | Sequence[Scenario | Mapping[str, Any]]) -> list[Scenario]:
    if isinstance(given, (str, os.PathLike)):
        return read_scenarios(given)
    found = []
    for i, item in enumerate(given):
        found.append(item if isinstance(item, Scenario) else _scenario(item, f"scenario {i}", i + 1))
    return found


def _context(settings: Mapping[str, Mapping[str, Any]] | None, cache_mode: str | None,
             cache_dir: str | os.PathLike[str] | None, seed: int, environ: Mapping[str, str] | None) -> RunContext:
    from ._register import _SETTINGS

    return RunContext.from_environment(environ, groups=[_SETTINGS], settings=dict(settings or {}),
                                       cache_mode=cache_mode, cache_dir=str(cache_dir) if cache_dir else None,
                                       seed=seed)


def _params(**given: Any) -> dict[str, Any]:
    from ._register import COMMON

    return {**{p.name: p.default for p in COMMON}, **given}


async def _run(todo: Sequence[Scenario], path: Path, context: RunContext, program: System | None,
               endpoint: str | None, endpoint_model: str | None, system_prompt: str | None, max_turns: int,
               decoding: Mapping[str, Any], concurrency: int) -> None:
    simulator = build_critic(_params(**decoding), context, "simulate")
    if program is not None:
        system = program
    else:
        if not endpoint_model:
            raise EvalcoreError("--endpoint needs --endpoint-model (the model name the endpoint serves)")
        critic = build_critic(_params(backend="http", judge=None, base_url=endpoint, model=endpoint_model,
                                      seed=decoding["seed"], max_tokens=1024), context, "simulate: --endpoint")
        system = endpoint_system(critic, system_prompt)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(scenario: Scenario) -> None:
        async with gate:
            record = await converse(scenario, simulator, system, max_turns)
        with path.open("a", encoding="utf-8") as out:  # one whole line per finished conversation
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

    await asyncio.gather(*(one(s) for s in todo))
