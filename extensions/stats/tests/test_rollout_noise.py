"""Rollout noise: between- and within-record variance, pass^k and pass@k, by hand, by enumeration
and through evaluate and the CLI."""

import itertools
import json
import random
import threading
from collections import Counter

import evalcore
import pytest
from evalcore.testing import run_evalcore
from evalcore_stats.noise import pass_rates, rollout_noise, variance_components

# Three records, three rollouts each, pass (1) / fail (0):
GROUPS = [[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
# By hand. Record means 1, 1/3, 0; grand mean 4/9.
# SSW = 0 + ((2/3)^2 + 2 (1/3)^2) + 0 = 2/3 over 9 - 3 = 6 degrees of freedom: MSW = 1/9.
# SSB = 3 ((5/9)^2 + (1/9)^2 + (4/9)^2) = 14/9 over 2: MSB = 7/9; n0 = 3.
# between = (7/9 - 1/9) / 3 = 2/9, within = 1/9, within share = (1/9) / (3/9) = 1/3.
# pass^k = mean C(c,k)/C(3,k) with c = 3, 1, 0: k=1 (1 + 1/3 + 0)/3 = 4/9; k=2 (1 + 0 + 0)/3; k=3 1/3.
# pass@k = mean 1 - C(3-c,k)/C(3,k): k=1 4/9; k=2 (1 + (1 - 1/3) + 0)/3 = 5/9; k=3 (1 + 1 + 0)/3 = 2/3.
EXPECTED = {"records": 3, "values": 9, "between": 2 / 9, "within": 1 / 9, "within_share": 1 / 3,
            "pass^k": {"1": 4 / 9, "2": 1 / 3, "3": 1 / 3}, "pass@k": {"1": 4 / 9, "2": 5 / 9, "3": 2 / 3}}


def flat(noise):
    """The noise details as one flat mapping (``pytest.approx`` compares no nested ones)."""
    return {f"{key} {k}" if isinstance(value, dict) else key: v
            for key, value in noise.items() for k, v in (value.items() if isinstance(value, dict) else [(0, value)])}


def test_hand_worked_numbers():
    assert flat(rollout_noise(GROUPS)) == pytest.approx(flat(EXPECTED))


def test_unequal_rollouts_use_n0_and_the_records_with_enough_rollouts():
    # records [1, 0] and [1, 1, 1, 0]: N = 6, a = 2, n0 = (6 - (4 + 16)/6) / 1 = 8/3.
    # means 1/2 and 3/4, grand 4/6 = 2/3; MSB = 2 (1/6)^2 + 4 (1/12)^2 = 1/12;
    # MSW = (2 (1/2)^2 + 3 (1/4)^2 + (3/4)^2) / 4 = (1/2 + 3/16 + 9/16) / 4 = 5/16;
    # between = max(0, (1/12 - 5/16) / (8/3)) = 0.
    noise = variance_components([[1.0, 0.0], [1.0, 1.0, 1.0, 0.0]])
    assert noise == pytest.approx({"records": 2, "values": 6, "between": 0.0, "within": 5 / 16,
                                   "within_share": 1.0})
    # pass^3 only over the record with 4 rollouts: C(3,3)/C(4,3) = 1/4
    assert pass_rates([[1.0, 0.0], [1.0, 1.0, 1.0, 0.0]])["pass^k"]["3"] == pytest.approx(1 / 4)


def brute_force(groups, k):
    """pass^k and pass@k by enumerating every k-subset of each record's rollouts."""
    hat, at, counted = 0.0, 0.0, 0
    for values in groups:
        if len(values) < k:
            continue
        subsets = list(itertools.combinations(values, k))
        hat += sum(all(s) for s in subsets) / len(subsets)
        at += sum(any(s) for s in subsets) / len(subsets)
        counted += 1
    return hat / counted, at / counted


@pytest.mark.parametrize("seed", range(20))
def test_pass_rates_equal_enumeration(seed):
    rng = random.Random(seed)
    groups = [[float(rng.random() < 0.6) for _ in range(rng.randint(1, 6))] for _ in range(rng.randint(1, 8))]
    rates = pass_rates(groups)
    for k in range(1, max(map(len, groups)) + 1):
        assert (rates["pass^k"][str(k)], rates["pass@k"][str(k)]) == pytest.approx(brute_force(groups, k))


def test_variance_components_split_the_sums_of_squares():
    rng = random.Random(3)
    groups = [[rng.gauss(mu, 0.5) for _ in range(4)] for mu in (0.0, 1.0, 2.0, 3.0, 5.0)]
    noise = variance_components(groups)
    values = [v for g in groups for v in g]
    grand = sum(values) / len(values)
    total = sum((v - grand) ** 2 for v in values)
    msb = noise["between"] * 4 + noise["within"]  # balanced: MSB = n0 * between + MSW
    assert msb * (5 - 1) + noise["within"] * (20 - 5) == pytest.approx(total)
    assert pass_rates(groups) is None and variance_components([[1.0, 2.0]]) is None


PATTERNS = {"r1": ["yes", "yes", "yes"], "r2": ["yes", "no", "no"], "r3": ["no", "no", "no"]}
RECORDS = [{"id": rid, "example": {"reference_answer": "yes", "query": rid}, "prediction": {}} for rid in PATTERNS]


def test_evaluate_reports_the_noise_of_rollouts():
    seen, lock = Counter(), threading.Lock()

    def program(example):  # the rollouts of a record answer its pattern, in whatever order they run
        with lock:
            answer = PATTERNS[example["query"]][seen[example["query"]]]
            seen[example["query"]] += 1
        return {"response": answer}

    result = evalcore.evaluate(RECORDS, ["overlap/exact_match"], program=program, rollouts=3, seed=0)
    assert flat(result.metrics["overlap/exact_match"].details["rollout_noise"]) == pytest.approx(flat(EXPECTED))


def test_cli_prints_and_saves_the_noise(tmp_path):
    (tmp_path / "noisy_program.py").write_text(
        "import threading\nfrom collections import Counter\n"
        f"PATTERNS = {PATTERNS!r}\nseen, lock = Counter(), threading.Lock()\n"
        "def program(example):\n    with lock:\n        q = example['query']\n"
        "        answer = PATTERNS[q][seen[q]]\n        seen[q] += 1\n    return {'response': answer}\n")
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = run_evalcore("evaluate", str(data), "-m", "overlap/exact_match", "--program", "noisy_program:program",
                       "--rollouts", "3", "-o", str(tmp_path / "r.json"), env={"PYTHONPATH": str(tmp_path)})
    assert ("overlap/exact_match over rollouts: variance between records 0.2222, within a record 0.1111 "
            "(33 % of it rollout noise); pass^k 1:0.444 2:0.333 3:0.333; pass@k 1:0.444 2:0.556 3:0.667") in out.stdout
    saved = json.loads((tmp_path / "r.json").read_text())["metrics"]["overlap/exact_match"]["details"]
    assert flat(saved["rollout_noise"]) == pytest.approx(flat(EXPECTED))
    run_evalcore("report", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text()  # the report says it under its aggregates too
    assert ("<ul id=\"aggregate-notes\"><li>overlap/exact_match over rollouts: variance between records 0.2222, "
            "within a record 0.1111 (33 % of it rollout noise)") in page
