"""Building Adjutant session records and scoring them with a corpus metric, for the tests."""

import evalcore

SUCCESS = {"type": "Success", "summary": "done", "modified_files": [], "verification_passed": True}
FAILED = {"type": "Failed", "reason": "too hard", "error": None}


def decision(kind, output, ts="2025-01-01T00:00:00Z", **extra):
    return {"decision_type": kind, "input_summary": "task", "output": output, "predicted_confidence": 0.9,
            "timestamp": ts, "was_correct": None, **extra}


def session(sid, outcome, iterations, decisions, started="2025-01-01T00:00:00Z"):
    return {"id": sid, "task_id": "t", "task_title": "T", "task_description": "D", "started_at": started,
            "ended_at": None, "decisions": decisions, "outcome": outcome, "iterations_used": iterations,
            "verification_history": []}


def run(metric_id, sessions, **params):
    m = evalcore.get_metric(metric_id, **params)
    states = m.states([{"id": s.get("id", str(i)) if isinstance(s, dict) else str(i)} for i, s in enumerate(sessions)],
                      [{"session": s} for s in sessions])
    return m.corpus_score([st for _, st in states]), states
