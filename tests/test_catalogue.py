"""The checked-in metric catalogue (docs/metrics.md) is what the installed specs give."""

from __future__ import annotations

import importlib.util
import pathlib

import evalcore
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FAMILIES = sorted(p.parent.name for p in ROOT.glob("plugins/*/pyproject.toml"))


def _generator():
    spec = importlib.util.spec_from_file_location("generate_catalogue", ROOT / "docs" / "generate_catalogue.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalogue_is_up_to_date():
    namespaces = {info.spec.namespace for info in evalcore.list_metrics()}
    if namespaces != set(FAMILIES):
        pytest.skip(f"the catalogue covers exactly the bundled families; installed: {sorted(namespaces)}")
    generated = _generator().render()
    assert (ROOT / "docs" / "metrics.md").read_text() == generated, \
        "docs/metrics.md is stale: run python docs/generate_catalogue.py"


def test_the_catalogue_lists_every_metric_with_its_scale():
    text = (ROOT / "docs" / "metrics.md").read_text()
    assert text.count("\n### `") == len({i.key for i in evalcore.list_metrics() if i.spec.namespace in FAMILIES})
    assert "### `overlap/bleu`" in text and "- scale: 0–100, higher is better" in text
