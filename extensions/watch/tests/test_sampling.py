"""Sampling rules, the hourly and daily budget, and estimates weighted by the sampling probabilities."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from evalcore_watch import Budget, Rule, weighted_mean
from evalcore_watch.assembly import Assembler, Trace
from evalcore_watch.scoring import Scorer
from evalcore_watch.store import Store

T0 = datetime(2026, 3, 1, 9, 10, tzinfo=UTC)


def _traces(n: int, errors: int = 0, service: str = "shop") -> list[Trace]:
    """``n`` one-span traces; the first ``errors`` have an error status and an empty answer."""
    done: list[Trace] = []
    assembler = Assembler(done.append)
    for i in range(n):
        failed = i < errors
        assembler.add({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
            "scopeSpans": [{"scope": {"name": "t"}, "spans": [{
                "traceId": f"{i + 1:032x}", "spanId": f"{i + 1:016x}", "name": "agent",
                "startTimeUnixNano": "1000", "endTimeUnixNano": "2000",
                "status": {"code": 2} if failed else {},
                "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "AGENT"}},
                               {"key": "input.value", "value": {"stringValue": f"q{i}"}},
                               {"key": "output.value", "value": {"stringValue": "" if failed else "yes"}},
                               {"key": "user.feedback", "value": {"stringValue": "down" if i == n - 1 else "up"}}],
            }]}]}]})
    return done


def test_a_rule_samples_at_its_rate_the_same_way_every_time_and_takes_errors_and_thumbs_down() -> None:
    traces = _traces(4000, errors=10)
    rule = Rule("judged", ["checks/format"], rate=0.2, on_error=True, always={"user.feedback": "down"})
    chances = [rule.probability(t) for t in traces]
    assert chances == [rule.probability(t) for t in traces]  # fixed by the trace id: a restart decides alike
    assert all(p == 1.0 for p in chances[:10]) and chances[-1] == 1.0
    taken = sum(p > 0 for p in chances[10:-1])
    # Binomial(3989, 0.2): mean 797.8, sd 25.3; five sd either side
    assert abs(taken - 0.2 * 3989) < 5 * 25.3
    assert {p for p in chances[10:-1]} == {0.0, 0.2}
    other = Rule("shop-only", ["checks/format"], where={"service.name": "billing"})
    assert all(other.probability(t) == 0.0 for t in traces[:50])


def test_the_budget_per_hour_and_per_day_is_never_exceeded_and_survives_a_restart(tmp_path: Path) -> None:
    rule = Rule("judged", ["checks/format"], cost_msats=100)
    budget = Budget(per_hour_msats=1000, per_day_msats=1500)
    scorer = Scorer(Store(tmp_path), [rule], budget)
    traces = _traces(90)
    first = scorer.claim(traces[:30], now=T0)
    assert len(first["scorers"]["judged"]["ids"]) == 10 and first["scorers"]["judged"]["over_budget"] == 20
    assert scorer.claim(traces[30:40], now=T0 + timedelta(minutes=20))["scorers"] == {}  # the hour is spent
    restarted = Scorer(Store(tmp_path), [rule], Budget(per_hour_msats=1000, per_day_msats=1500))
    assert restarted.claim(traces[40:50], now=T0 + timedelta(minutes=30))["scorers"] == {}
    later = restarted.claim(traces[50:70], now=T0 + timedelta(hours=1))
    assert len(later["scorers"]["judged"]["ids"]) == 5  # what is left of the day: 1500 - 1000
    next_day = restarted.claim(traces[70:90], now=T0 + timedelta(days=1))
    assert len(next_day["scorers"]["judged"]["ids"]) == 10
    spent = sum(m["scorers"].get("judged", {}).get("cost_msats", 0) for m in Store(tmp_path).manifests()
                if m["when"].startswith("2026-03-01"))
    assert spent == 1500


def test_estimates_weighted_by_the_sampling_probability_undo_the_oversampled_errors(tmp_path: Path) -> None:
    traces = _traces(400, errors=80)  # checks/format: 0 for the 80 empty answers, 1 for the others
    rule = Rule("judged", ["checks/format"], rate=0.25, on_error=True)
    store = Store(tmp_path)
    scorer = Scorer(store, [rule], Budget())
    scorer.score(scorer.claim(traces, now=T0))
    found = weighted_mean(store, "judged", "checks/format")
    sampled_ok = sum(rule.probability(t) > 0 for t in traces[80:])
    assert found["n"] == 80 + sampled_ok
    # by hand: each sampled good answer stands for 4 traces, each error for itself
    assert abs(found["weighted_mean"] - sampled_ok * 4 / (80 + sampled_ok * 4)) < 1e-12
    assert abs(found["weighted_mean"] - 320 / 400) < 0.05  # the mean over all 400
    assert abs(found["sample_mean"] - sampled_ok / (80 + sampled_ok)) < 1e-12  # biased towards the errors
