"""Arena win rates and Bradley–Terry ratings (``evalcore.arena``), with a scripted pairwise metric.

The metric is a plain function registered under a key: for a joined record it returns 1 when A's
response is longer, 0 when B's is, 0.5 when they are equally long — so every expected number is
counted by hand from the records below.
"""

from __future__ import annotations

import json
import math

import evalcore
import numpy as np
import pytest
from click.testing import CliRunner
from evalcore.plugin import InputError
from evalcore_stats.arena import arena, bradley_terry, ratings_of


def longer(example, prediction):
    a, b = len(prediction["response"]), len(prediction["response_b"])
    return 1.0 if a > b else 0.0 if a < b else 0.5


@pytest.fixture(autouse=True)
def _longer_metric():
    evalcore.register_metric("arena_test_longer", longer)


def systems(tmp_path, answers):
    """A records file per system: ``answers`` maps a name to its answer per record."""
    paths = {}
    for name, texts in answers.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": f"r{i}", "example": {"query": "q"}, "prediction": {"response": t}})
                                + "\n" for i, t in enumerate(texts)))
        paths[name] = str(path)
    return paths


def test_bradley_terry_hand_worked():
    # Strengths 4 : 2 : 1 with 6 games per pair: i beats j 6 * p_i / (p_i + p_j) times (fractions are
    # ties as halves); the maximum-likelihood strengths are then exactly 4 : 2 : 1.
    p = np.array([4.0, 2.0, 1.0])
    wins = np.array([[0 if i == j else 6 * p[i] / (p[i] + p[j]) for j in range(3)] for i in range(3)])
    theta = bradley_terry(wins, alpha=0.0)
    assert theta == pytest.approx(np.log(p) - np.log(p).mean(), abs=1e-6)
    # Elo scale: 1000 at the geometric mean, 400 points per factor 10
    assert ratings_of(theta) == pytest.approx(1000 + 400 * np.log10(p / np.exp(np.log(p).mean())), abs=1e-4)


def test_two_systems_win_rate_ties_as_half(tmp_path):
    paths = systems(tmp_path, {"a": ["xx", "x", "xxx", "x"], "b": ["x", "xx", "xxx", "x"]})
    result = arena(paths, "arena_test_longer", n_resamples=200)
    (pair,) = result.pairs
    assert (pair.system, pair.against, pair.n, pair.wins, pair.losses, pair.ties) == ("a", "b", 4, 1, 1, 2)
    assert pair.win_rate == 0.5  # (1 + 2 * 0.5) / 4
    assert pair.ci[0] <= 0.5 <= pair.ci[1] and 0 <= pair.ci[0] and pair.ci[1] <= 1
    assert result.ratings == []  # two systems: the win rate says it all


def test_three_systems_ratings_order_and_intervals(tmp_path):
    # c's answers are longest, then b's, then a's, on most records
    paths = systems(tmp_path, {"a": ["x", "x", "xxxx", "x", "x", "x"],
                               "b": ["xx", "xx", "xx", "xxx", "xx", "xx"],
                               "c": ["xxx", "xxx", "xxx", "xx", "xxx", "xxx"]})
    result = arena(paths, "arena_test_longer", n_resamples=200, seed=1)
    rates = {(p.system, p.against): p.win_rate for p in result.pairs}
    assert rates == {("a", "b"): 1 / 6, ("a", "c"): 1 / 6, ("b", "c"): 1 / 6}
    assert [r.system for r in result.ratings] == ["c", "b", "a"]
    # the fit itself: wins a>b 1, b>a 5, a>c 1, c>a 5, b>c 1, c>b 5
    wins = np.array([[0, 1, 1], [5, 0, 1], [5, 5, 0]], dtype=float)
    expected = ratings_of(bradley_terry(wins, alpha=0.01))
    assert [r.rating for r in sorted(result.ratings, key=lambda r: r.system)] == pytest.approx(list(expected))
    assert all(r.ci[0] <= r.rating <= r.ci[1] for r in result.ratings)
    again = arena(paths, "arena_test_longer", n_resamples=200, seed=1)
    assert again.to_dict() == result.to_dict()  # seeded


def test_records_not_shared_are_left_out_with_a_note(tmp_path):
    paths = systems(tmp_path, {"a": ["xx", "x", "x"], "b": ["x", "xx"]})
    result = arena(paths, "arena_test_longer", n_resamples=50)
    assert result.pairs[0].n == 2 and any("a: 1 records" in n for n in result.notes)


def test_one_system_is_an_error(tmp_path):
    with pytest.raises(InputError, match="two systems"):
        arena(systems(tmp_path, {"a": ["x"]}), "arena_test_longer")


def test_cli_arena_table_and_json(tmp_path):
    from evalcore._cli.main import main

    paths = systems(tmp_path, {"a": ["x", "x"], "b": ["xx", "xx"], "c": ["xxx", "xxx"]})
    runner = CliRunner()
    out = runner.invoke(main, ["arena", *paths.values(), "-m", "arena_test_longer", "--resamples", "50", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [r["system"] for r in data["ratings"]] == ["c", "b", "a"]
    assert data["pairs"][0]["win_rate"] == 0.0 and data["options"]["interval"] == "percentile bootstrap over records"
    table = runner.invoke(main, ["arena", *paths.values(), "-m", "arena_test_longer", "--resamples", "50"])
    assert table.exit_code == 0 and "Bradley–Terry ratings" in table.output and "win rate" in table.output
    bad = runner.invoke(main, ["arena", *paths.values(), "-m", "arena_test_longer", "--name", "x"])
    assert bad.exit_code != 0 and "--name" in bad.output and "Traceback" not in bad.output
    assert math.isfinite(data["ratings"][0]["rating"])
