"""The journal lines of a chunk scored by one metric, encoded with each distinct score's part
once, are byte for byte the lines of the general row encoding."""

from __future__ import annotations

from evalcore._contract.scores import Score
from evalcore._engine.journal import encode_one_metric_rows, encode_row
from hypothesis import given, settings
from hypothesis import strategies as st

details = st.integers(-(2**63), 2**63 - 1) | st.text(max_size=5)  # what JSON rows hold (64-bit integers)
scores = st.one_of(
    st.builds(Score, st.floats(allow_nan=False, allow_infinity=False),
              details=st.dictionaries(st.text(max_size=5), details, max_size=2)),
    st.builds(Score.skipped, st.text(max_size=10)),
    st.builds(Score.error, st.sampled_from(["InputError", "ValueError"]), st.text(max_size=10)),
)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.text(max_size=8) | st.sampled_from(["\ud800x", "a\udfff"]), st.integers(0, 10**12)),
                     max_size=20),
       shared=st.lists(scores, min_size=1, max_size=3), picks=st.lists(st.integers(0, 2), min_size=20, max_size=20),
       metric_id=st.sampled_from(["overlap/exact_match", "t/ünï", 'q"uote']))
def test_one_metric_rows_equal_the_general_encoding(rows: list[tuple[str, int]], shared: list[Score],
                                                   picks: list[int], metric_id: str) -> None:
    # the same Score object for several records, as a metric's batch hands them out; ids may hold
    # lone surrogates (orjson refuses them; the general encoding writes their escapes)
    chosen = [shared[pick % len(shared)] for pick in picks[:len(rows)]]
    ids, positions = [i for i, _ in rows], [p for _, p in rows]
    expected = b"".join(encode_row({"id": i, "i": p, "scores": {metric_id: s.to_dict()}})
                        for i, p, s in zip(ids, positions, chosen))
    assert bytes(encode_one_metric_rows(ids, positions, metric_id, chosen)) == expected
