"""Several judgements of one record: ``n`` samples from each judge of a panel, aggregated.

Every judge metric takes ``n`` (samples per judge, default 1), ``judges`` (a panel: a list of
judge settings, each over the metric's own) and ``aggregate_by`` (``mean``, or ``majority`` for
verdicts that are categories, such as pass/fail or a 1-5 grade). A record is judged ``n`` times
by each member; every judgement is a separate call with its own cache entry (sample ``i`` is
asked with ``seed + i`` where a seed is set, and ``i`` is part of its cache key). At the default
temperature 0 a deterministic server answers every sample alike: set ``temperature`` above 0 to
see the judge's noise.

The value is the aggregate of each member's verdict (itself the aggregate of its samples).
``majority`` takes the most frequent value; a tie goes to the lowest of the tied values (the
stricter verdict: a tie between pass and fail fails), and the row says ``tie``. A record any
judgement fails on is an error (the others' verdicts kept in its details); one any judgement
skips is skipped.

The row's details keep every judgement (``judgements``: judge, sample, value, explanation, model,
answers), the spread of the values (``std``, population standard deviation) and, for a panel,
each member's verdict and spread (``judges``). The metric's aggregate reports, for a panel, the
agreement between members over the records scored (``agreement``: Cohen's kappa for two judges,
Fleiss' kappa, Krippendorff's alpha nominal and interval), and for ``n > 1`` the mean spread of a
judge's samples (``sample_spread``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np
from evalcore.plugin import RunContext, Score, Status

from ._register import COMMON
from .agreement import agreement
from .config import JudgeConfigError, build_critic
from .critic import LLMCritic

MEMBER_SETTINGS = frozenset({p.name for p in COMMON} - {"max_input_chars", "n", "judges", "aggregate_by"} | {"name"})
"""What a panel member may set: the judge settings (``model``, ``base_url``, ``judge``, ``temperature``
...) and ``name``."""


@attrs.frozen
class Judge:
    """One judgement a record gets: the panel member's name, the sample's number, and its critic."""

    name: str
    sample: int
    critic: LLMCritic


def panel_members(params: Mapping[str, Any], metric_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The panel as ``(name, settings)``: one unnamed member with no settings of its own without ``judges``.
    A member is named by its ``name``, else its ``model``, else its ``judge`` callable's name."""
    judges = params.get("judges")
    if judges is None:
        return [("judge", {})]
    if not isinstance(judges, Sequence) or isinstance(judges, str) or not judges:
        raise JudgeConfigError(metric_id, "judges", "must be a non-empty list of judge settings, "
                               "e.g. [{'model': 'a'}, {'model': 'b'}]")
    members = []
    for i, settings in enumerate(judges):
        if not isinstance(settings, Mapping):
            raise JudgeConfigError(metric_id, f"judges[{i}]", f"must be a mapping of judge settings; got {settings!r}")
        unknown = sorted(set(settings) - MEMBER_SETTINGS)
        if unknown:
            raise JudgeConfigError(metric_id, f"judges[{i}]", f"unknown settings {unknown}; a member may set "
                                   f"{', '.join(sorted(MEMBER_SETTINGS))}")
        judge = settings.get("judge")
        name = settings.get("name") or settings.get("model") or getattr(judge, "__name__", None) or f"judges[{i}]"
        members.append((str(name), {k: v for k, v in settings.items() if k != "name"}))
    names = [name for name, _ in members]
    if len(set(names)) < len(names):
        raise JudgeConfigError(metric_id, "judges", f"members need distinct names (give each a 'name'); got {names}")
    return members


def build_judges(members: Sequence[tuple[str, Mapping[str, Any]]], params: Mapping[str, Any], context: RunContext,
                 metric_id: str, critic: LLMCritic) -> list[Judge]:
    """The judgements of one record: ``n`` samples of each member. ``critic`` is the metric's own, the
    first member's; another member's critic is built from its settings over the metric's parameters
    and keeps the metric's decoding extras (G-Eval's ``top_logprobs``) and, unless it sets its own,
    the metric's cache."""
    judges = []
    for index, (name, settings) in enumerate(members):
        own = critic
        if index:
            own = build_critic({**params, **settings}, context, f"{metric_id} judges[{index}]")
            own.decoding = attrs.evolve(own.decoding, top_logprobs=critic.decoding.top_logprobs)
            if not {"cache_mode", "cache_dir"} & set(settings):  # one cache, and one count of its hits
                own.cache = critic.cache
        judges.extend(Judge(name, i, sampled(own, i)) for i in range(params["n"]))
    return judges


def sampled(critic: LLMCritic, sample: int) -> LLMCritic:
    """The critic asking sample ``sample`` of a judgement: seed + sample, its own cache entries, the same backend."""
    if sample == 0:
        return critic
    seed = critic.decoding.seed
    decoding = attrs.evolve(critic.decoding, seed=None if seed is None else seed + sample, sample=sample)
    return LLMCritic(critic.backend, decoding=decoding, cache=critic.cache, prices=critic.prices,
                     budget=critic.budget)


def aggregate(values: Sequence[float], how: str) -> tuple[float, bool]:
    """``(value, tie)``: the mean, or the most frequent value (a tie: the lowest of the tied values)."""
    if how == "mean":
        return float(np.mean(values)), False
    counts = Counter(values)
    top = max(counts.values())
    tied = [v for v, c in counts.items() if c == top]
    return float(min(tied)), len(tied) > 1


def combine(outcomes: Sequence[tuple[Judge, Score]], how: str) -> tuple[Score, list[float] | None]:
    """One row from every judgement of a record, and each member's verdict (``None`` unless all scored)."""
    rows = [_kept(judge, score) for judge, score in outcomes]
    cost = sum(score.cost_msats for _, score in outcomes)
    details: dict[str, Any] = {"judgements": rows, "aggregate_by": how, **_spent(outcomes)}
    failed = next(((j, s) for j, s in outcomes if s.status is Status.ERROR), None)
    if failed is not None:
        judge, score = failed
        error = Score.error(score.error_type or "JudgeError", f"{judge.name} sample {judge.sample}: "
                            f"{score.error_message}", **details)
        return attrs.evolve(error, cost_msats=cost), None
    skipped = next(((j, s) for j, s in outcomes if s.status is Status.SKIPPED), None)
    if skipped is not None:
        return attrs.evolve(Score.skipped(skipped[1].reason or "skipped", **details), cost_msats=cost), None
    names = list(dict.fromkeys(judge.name for judge, _ in outcomes))
    verdicts, per_judge = [], {}
    for name in names:
        values = [float(s.value) for j, s in outcomes if j.name == name]  # type: ignore[arg-type]
        verdict, tie = aggregate(values, how)
        verdicts.append(verdict)
        per_judge[name] = {"value": verdict, "std": float(np.std(values))}
        if how == "majority":
            per_judge[name]["tie"] = tie
    value, tie = aggregate(verdicts, how) if len(names) > 1 else (verdicts[0], per_judge[names[0]].get("tie", False))
    closest = min(outcomes, key=lambda o: abs(float(o[1].value) - value))[1]  # type: ignore[arg-type]
    details.update(std=float(np.std([s.value for _, s in outcomes])),
                   explanation=closest.details.get("explanation", closest.feedback))
    if how == "majority":
        details["tie"] = tie
    if len(names) > 1:
        details["judges"] = per_judge
    return Score(value, feedback=closest.feedback, details=details, cost_msats=cost), verdicts


def _kept(judge: Judge, score: Score) -> dict[str, Any]:
    """What a row keeps of one judgement."""
    error = {"type": score.error_type, "message": score.error_message} if score.error_type else None
    row = {"judge": judge.name, "sample": judge.sample, "value": score.value, "status": score.status.value,
           "explanation": score.details.get("explanation", score.feedback), "model": score.details.get("model"),
           "answers": score.details.get("answers"), "reason": score.reason, "error": error}
    return {k: v for k, v in row.items() if v is not None}


def _spent(outcomes: Sequence[tuple[Judge, Score]]) -> dict[str, Any]:
    """The models asked and the tokens, cost and cache hits of every judgement together."""
    details = [score.details for _, score in outcomes]
    models = list(dict.fromkeys(d["model"] for d in details if d.get("model") is not None))
    usage = {k: sum(d.get("usage", {}).get(k, 0) for d in details) for k in ("prompt_tokens", "completion_tokens")}
    cache = {k: sum(d.get("cache", {}).get(k, 0) for d in details) for k in ("hits", "misses")}
    return {"model": models[0] if len(models) == 1 else models, "usage": usage, "cache": cache,
            "cost_msats": sum(d.get("cost_msats", 0) for d in details)}


class Tally:
    """What the metric's aggregate reports of its judgements: each member's verdicts per record (for
    agreement) and the spread of each judge's samples (for ``n > 1``), over the records scored."""

    def __init__(self, names: Sequence[str], n: int) -> None:
        self.names = list(names)
        self.n = n
        self._verdicts: list[list[float]] = []
        self._spreads: list[float] = []
        self._lock = threading.Lock()

    def add(self, score: Score, verdicts: Sequence[float] | None) -> None:
        if verdicts is None:
            return
        with self._lock:
            self._verdicts.append(list(verdicts))
            if self.n > 1:
                judges = score.details.get("judges") or {"judge": {"std": score.details["std"]}}
                self._spreads.extend(j["std"] for j in judges.values())

    def state(self) -> tuple[list[list[float]], list[float]] | None:
        """The verdicts and spreads counted so far (``None`` before any), for another tally to :meth:`absorb`."""
        with self._lock:
            return (list(self._verdicts), list(self._spreads)) if self._verdicts else None

    def absorb(self, state: tuple[list[list[float]], list[float]]) -> None:
        """Count the records of another tally's :meth:`state` (a worker process's copy of the metric)."""
        verdicts, spreads = state
        with self._lock:
            self._verdicts.extend(verdicts)
            self._spreads.extend(spreads)

    def summary(self) -> dict[str, Any]:
        with self._lock:
            verdicts, spreads = list(self._verdicts), list(self._spreads)
        out: dict[str, Any] = {}
        if len(self.names) > 1:
            out["agreement"] = agreement(verdicts, self.names)
        if self.n > 1:
            out["sample_spread"] = {"n": self.n, "records": len(verdicts),
                                    "mean_std": float(np.mean(spreads)) if spreads else None}
        return out
