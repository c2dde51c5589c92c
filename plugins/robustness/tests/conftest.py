"""A function-style token-F1 metric, so the tests need no other plugin."""

import os
import sys

import evalcore
import pytest
from evalcore_text import normalize_text, overlap_count

sys.path.insert(0, os.path.dirname(__file__))  # robustness_helpers


def local_f1(gold, pred, trace=None):
    """SQuAD-style token F1 of pred.answer against gold.answer."""
    ref, hyp = normalize_text(gold.answer).split(), normalize_text(pred.answer).split()
    common = overlap_count(ref, hyp)
    if not common:
        return 0.0
    precision, recall = common / len(hyp), common / len(ref)
    return 2 * precision * recall / (precision + recall)


@pytest.fixture(scope="session", autouse=True)
def local_metric():
    evalcore.register_metric("local_f1", local_f1, value_range=(0.0, 1.0))
