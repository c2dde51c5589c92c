"""Declared corpus states: the matrix forms of merging and resampling equal merging each resample
record by record, exactly, and the engine's interval is the one the per-resample merge gives."""

from __future__ import annotations

import numpy as np
import pytest
from evalcore._contract.array_state import ArrayStates, reduce_rows
from evalcore._contract.state_codec import StateCodecError
from evalcore._engine.stats import corpus_bootstrap, declared_bootstrap
from evalcore.plugin import CorpusMetric, MetricSpec
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FIELDS = {"hits": "sum", "fewest": "min", "most": "max", "total": "sum"}


@st.composite
def stacked(draw: st.DrawFn, magnitude: int = 1000) -> np.ndarray:
    n = draw(st.integers(1, 30))
    return draw(hnp.arrays(np.int64, (n, len(FIELDS)), elements=st.integers(-magnitude, magnitude)))


def merged_by_hand(rows: np.ndarray) -> list[int]:
    """Column by column with Python integers: the definition of merging."""
    out = []
    for j, how in enumerate(FIELDS.values()):
        column = [int(x) for x in rows[:, j]]
        out.append({"sum": sum, "min": min, "max": max}[how](column))
    return out


def constant_extremes(matrix: np.ndarray, value: int = 3) -> np.ndarray:
    """``matrix`` with its min and max columns one value throughout (as every sample with as many
    references), the case merged without looking at the rows."""
    matrix = matrix.copy()
    matrix[:, 1] = matrix[:, 2] = value
    return matrix


@settings(max_examples=80, deadline=None)
@given(matrix=stacked(), seed=st.integers(0, 2**32 - 1), resamples=st.integers(1, 12), constant=st.booleans())
def test_resampled_states_equal_merging_each_resample(matrix: np.ndarray, seed: int, resamples: int,
                                                      constant: bool) -> None:
    matrix = constant_extremes(matrix) if constant else matrix
    states = ArrayStates(FIELDS, matrix)
    idxs = np.random.default_rng(seed).integers(0, len(matrix), size=(resamples, len(matrix)))
    assert states.resampled(idxs).tolist() == [merged_by_hand(matrix[row]) for row in idxs]
    assert states.merged().tolist() == merged_by_hand(matrix)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), constant=st.booleans())
def test_swapped_states_equal_merging_each_trial(data: st.DataObject, seed: int, constant: bool) -> None:
    base = data.draw(stacked())
    system = data.draw(hnp.arrays(np.int64, base.shape, elements=st.integers(-1000, 1000)))
    if constant:
        base, system = constant_extremes(base), constant_extremes(system)
    mask = np.random.default_rng(seed).integers(2, size=(7, len(base)), dtype=bool)
    a, b = ArrayStates(FIELDS, base).swapped(ArrayStates(FIELDS, system), mask)
    assert a.tolist() == [merged_by_hand(np.where(row[:, None], base, system)) for row in mask]
    assert b.tolist() == [merged_by_hand(np.where(row[:, None], system, base)) for row in mask]


@pytest.mark.parametrize("magnitude", [2**51, 2**58])
def test_sums_beyond_float_precision_stay_exact(magnitude: int) -> None:
    # 2**51 x 5 draws: past float64's exact integers (the product runs on int64);
    # 2**58 x 5: past int64 in a product's partial sums (Python integers); the sums themselves fit
    rng = np.random.default_rng(0)
    matrix = rng.integers(-magnitude, magnitude, size=(5, len(FIELDS)), dtype=np.int64)
    states = ArrayStates(FIELDS, matrix)
    idxs = rng.integers(0, 5, size=(4, 5))
    if magnitude == 2**58:
        idxs[:] = [0, 1, 2, 3, 4]  # every resample is the whole set, whose sums fit in 64 bits
        matrix[:, [0, 3]] = np.array([[2**58, -(2**58)], [2**58, -(2**58)], [-(2**58), 2**58], [1, 2], [3, 4]])
    assert states.resampled(idxs).tolist() == [merged_by_hand(matrix[row]) for row in idxs]


def test_an_empty_merge_is_the_identity_of_each_reduction() -> None:
    empty = reduce_rows(np.zeros((0, len(FIELDS)), dtype=np.int64), list(FIELDS.values()))
    rows = np.array([[1, 5, 5, 2], [3, 2, 9, 4]])
    assert reduce_rows(np.vstack([empty, rows]), list(FIELDS.values())).tolist() == merged_by_hand(rows)


class Hits(CorpusMetric):
    """A toy declared corpus metric: the share of hits, with its state as integer columns."""

    state_fields = {"hits": "sum", "total": "sum", "longest": "max"}

    def sample_state(self, example, prediction):
        return np.array([int(prediction["hit"]), 1, len(prediction.get("response", ""))], dtype=np.int64)

    def compute(self, state):
        return state[0] / state[1]


SPEC = MetricSpec(name="hits", namespace="toy", implementation=f"{__name__}:Hits", granularity="corpus",
                  summary="share of hits")


def test_the_declared_interval_is_the_interval_of_merging_each_replicate() -> None:
    metric = Hits.from_spec(SPEC)
    rng = np.random.default_rng(3)
    states = [metric.sample_state({}, {"hit": bool(h), "response": "x" * int(k)})
              for h, k in zip(rng.integers(0, 2, 501), rng.integers(0, 9, 501))]

    def value_of(sample):
        return float(metric.compute(metric.merge(sample)))

    slow = corpus_bootstrap(states, value_of, seed=11, n_boot=200)
    fast = declared_bootstrap(metric.stack(states), metric.values, seed=11, n_boot=200)
    assert fast == slow


def test_journalled_declared_states_are_checked() -> None:
    metric = Hits.from_spec(SPEC)
    state = metric.sample_state({}, {"hit": True, "response": "abc"})
    assert metric.decode_state(metric.encode_state(state)).tolist() == [1, 1, 3]
    for bad in ([1, 1], [1, 1, 2.5], "1,1,3", [1, True, 3]):
        with pytest.raises(StateCodecError, match="toy/hits: a journalled state must be a list of 3 integers"):
            metric.decode_state(bad)
