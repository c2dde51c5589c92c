"""Active statistical inference (Zrnic & Candès 2024): hand-worked values, and in simulation an estimate
that is unbiased, intervals that cover at the nominal level, and narrower ones than uniform draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from evalcore.plugin import InputError
from evalcore_stats.active import active_mean, active_probabilities, labels_needed


def test_probabilities_mix_the_uncertainty_share_with_uniform():
    # u = [1, 3, 0, None]: None counts the mean 4/3; shares 3/16, 9/16, 0, 4/16; 0.8 * share + 0.2 / 4
    assert active_probabilities([1, 3, 0, None], eps=0.2) == pytest.approx([0.2, 0.5, 0.05, 0.25])
    assert active_probabilities([0, 0, 0, 0]) == pytest.approx([0.25] * 4)
    with pytest.raises(InputError, match="eps"):
        active_probabilities([1, 2], eps=0)


def test_hand_worked_estimate_and_labels_needed():
    # f = [.2, .8, .5, .5], mean .5; draws 1, 3, 1 with p = .2, .4, .2:
    # z = .5 + (1 - .8) / (4 * .2) = .75, .5 + (0 - .5) / (4 * .4) = .1875, .75; mean .5625
    # (the paper's form: .5 + (.2 * 2 / .6 - .5 * 1 / 1.2) / 4 = .5625); sd^2 = .2109375 / 2, se = .1875
    estimate = active_mean([0.2, 0.8, 0.5, 0.5], [1, 3, 1], {1: 1.0, 3: 0.0}, [0.1, 0.2, 0.3, 0.4])
    assert estimate.value == pytest.approx(0.5625)
    assert estimate.se == pytest.approx(0.1875)
    assert estimate.ci == pytest.approx((0.5625 - 1.959964 * 0.1875, 0.5625 + 1.959964 * 0.1875))
    assert (estimate.draws, estimate.labelled) == (3, 2)
    # T = (2 * 1.959964)^2 * .10546875 / .2^2 = 40.52 -> 41 draws, 38 more
    assert labels_needed(estimate, 0.2) == 38
    assert labels_needed(estimate, 10.0) == 0


def test_a_drawn_record_without_a_label_is_refused():
    with pytest.raises(InputError, match="labels"):
        active_mean([0.2, 0.8], [0, 1], {0: 1.0}, [0.5, 0.5])


def _simulate(probabilities, f, y, rng, repetitions=1500, draws=40):
    values, covered, widths = [], 0, []
    for _ in range(repetitions):
        drawn = rng.choice(len(f), size=draws, p=probabilities)
        estimate = active_mean(f, drawn.tolist(), {int(i): float(y[i]) for i in drawn}, probabilities)
        values.append(estimate.value)
        covered += estimate.ci[0] <= y.mean() <= estimate.ci[1]
        widths.append(estimate.width)
    return np.array(values), covered / repetitions, float(np.mean(widths))


def test_unbiased_with_nominal_coverage_and_narrower_than_uniform_in_simulation():
    rng = np.random.default_rng(7)
    n = 300
    f = rng.beta(0.3, 0.3, size=n)  # a judge's probability of "pass", often near 0 or 1
    y = (rng.random(n) < f).astype(float)  # people agree with it at that rate
    active = active_probabilities(np.sqrt(f * (1 - f)), eps=0.1)
    values, coverage, width = _simulate(active, f, y, rng)
    assert abs(values.mean() - y.mean()) < 4 * values.std() / math.sqrt(len(values))
    assert 0.925 <= coverage <= 0.975
    _, uniform_coverage, uniform_width = _simulate(np.full(n, 1 / n), f, y, rng)
    assert 0.92 <= uniform_coverage <= 0.98
    assert width < 0.9 * uniform_width
