"""``evalcore new-plugin NAME``: a plugin package that builds, installs, is listed and passes its tests."""

from __future__ import annotations

import pathlib
import re

from evalcore._contract.errors import EvalcoreError
from evalcore._contract.hooks import PLUGIN_API_VERSION
from evalcore._version import __version__

NAME = re.compile(r"^[a-z][a-z0-9_]*$")

PYPROJECT = '''[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "evalcore-{dash}"
version = "0.1.0"
description = "{title} metrics for evalcore."
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["evalcore-core>={core_minor},<{core_next}"]

[project.optional-dependencies]
test = ["pytest>=8"]

[project.entry-points."evalcore.plugins"]
{name} = "evalcore_{name}._register"

[tool.hatch.build.targets.wheel]
packages = ["src/evalcore_{name}"]
'''

README = '''# evalcore-{dash}

{title} metrics for evalcore (namespace `{name}`).

| id | what it measures | kind |
|---|---|---|
| `{name}/word_overlap` | share of the response's first k words found in the reference answer | sample |
| `{name}/mean_words` | mean number of words per response | corpus |

Install it and see it listed, then run its tests (the evalcore conformance kit):

```bash
pip install -e ".[test]"
evalcore list --family {name}
pytest tests
```
'''

REGISTER = '''"""Metric specs of the ``{name}`` namespace (imports nothing but ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import Granularity, MetricSpec, ParamSpec, TargetCategory, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = {api}  # the evalcore plugin API these specs are written for


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    return [
        MetricSpec(
            name="word_overlap", implementation="evalcore_{name}.metrics:WordOverlap",
            summary="Share of the response's first k words found in the reference answer.",
            description="Words are split on whitespace and compared lower-cased. A record without "
                        "`example.reference_answer` is skipped; an empty response scores 0.",
            family="{name}", target=TargetCategory.GENERATION_CORRECTNESS, value_range=(0.0, 1.0),
            inputs=("example.reference_answer", "prediction.response"),
            params=(ParamSpec(name="k", type="int", default=10, minimum=1, identity=True,
                              description="how many leading words of the response count"),),
        ),
        MetricSpec(
            name="mean_words", implementation="evalcore_{name}.metrics:MeanWords",
            summary="Mean number of words per response.",
            description="A corpus metric: each response adds its word count and 1 to the state "
                        "(words, responses), so shards merge exactly. A record without a response is skipped.",
            family="{name}", direction="lower", value_range=(0.0, None), unit="words",
            granularity=Granularity.CORPUS, inputs=("prediction.response",),
        ),
    ]
'''

METRICS = '''"""Implementations of the ``{name}`` metrics (imported only when a metric is used)."""

from __future__ import annotations

from collections.abc import Sequence

from evalcore.plugin import CorpusMetric, InputError, Record, SampleMetric, SkipSample


def _response(prediction: Record) -> str:
    response = prediction.get("response")
    if response is None:
        raise SkipSample("no prediction.response")
    if not isinstance(response, str):
        raise InputError(f"must be a string, got {{type(response).__name__}}", field="prediction.response")
    return response


class WordOverlap(SampleMetric):
    """Share of the response's first ``k`` words that occur in the reference answer."""

    def score(self, example: Record, prediction: Record) -> float:
        reference = example.get("reference_answer")
        if reference is None:
            raise SkipSample("no example.reference_answer")
        words = _response(prediction).lower().split()[: self.params["k"]]
        if not words:
            return 0.0
        known = set(str(reference).lower().split())
        return sum(word in known for word in words) / len(words)


class MeanWords(CorpusMetric[tuple[int, int]]):
    """Mean words per response; the state is ``(words, responses)``."""

    def sample_state(self, example: Record, prediction: Record) -> tuple[int, int]:
        return len(_response(prediction).split()), 1

    def merge(self, states: Sequence[tuple[int, int]]) -> tuple[int, int]:
        return sum(s[0] for s in states), sum(s[1] for s in states)

    def compute(self, state: tuple[int, int]) -> float:
        words, responses = state
        if not responses:
            raise SkipSample("no responses")
        return words / responses

    def sample_value(self, state: tuple[int, int]) -> float:
        return float(state[0])
'''

TESTS = '''"""The evalcore conformance kit on every metric of this plugin, and values worked by hand."""

import evalcore
from evalcore.testkit import PluginConformance

EXAMPLES = [
    {{"example": {{"reference_answer": "Paris is the capital"}}, "prediction": {{"response": "Paris is big"}}}},
    {{"example": {{"reference_answer": "1889"}}, "prediction": {{"response": "It was 1889"}}}},
]


class TestConformance(PluginConformance):
    namespace = "{name}"
    package = "evalcore_{name}"
    examples = EXAMPLES
    bad_inputs = [{{"example": {{"reference_answer": "x"}}, "prediction": {{"response": 3}}}}]


def test_word_overlap_by_hand():
    metric = evalcore.get_metric("{name}/word_overlap@2")
    assert metric.score_one(EXAMPLES[0]["example"], EXAMPLES[0]["prediction"]).value == 1.0  # "paris", "is"


def test_mean_words_by_hand():
    result = evalcore.evaluate([dict(id=str(i), **pair) for i, pair in enumerate(EXAMPLES)], ["{name}/mean_words"])
    assert result.to_dict()["metrics"]["{name}/mean_words"]["value"] == 3.0  # (3 + 3) / 2
'''


def scaffold(given: str, parent: pathlib.Path) -> pathlib.Path:
    """Write the package ``evalcore-NAME`` under ``parent``; returns its folder.

    ``given`` is the namespace or the distribution's name: ``acme-bar`` (or ``evalcore-acme-bar``)
    makes the distribution ``evalcore-acme-bar`` with the namespace and package suffix ``acme_bar``.
    """
    name = given.removeprefix("evalcore-").replace("-", "_")
    if not NAME.match(name):
        raise EvalcoreError(f"new-plugin: {given!r} cannot be a namespace: use lower case letters, digits, "
                            "'-' or '_', starting with a letter (e.g. acme-bar)")
    root = parent / f"evalcore-{name.replace('_', '-')}"
    if root.exists():
        raise EvalcoreError(f"new-plugin: {root} already exists")
    major, minor = (int(part) for part in __version__.split(".")[:2])
    values = {"name": name, "dash": name.replace("_", "-"), "title": name.replace("_", " ").capitalize(),
              "api": PLUGIN_API_VERSION, "core_minor": f"{major}.{minor}", "core_next": f"{major}.{minor + 1}"}
    package = root / "src" / f"evalcore_{name}"
    files = {
        root / "pyproject.toml": PYPROJECT, root / "README.md": README,
        package / "__init__.py": '"""{title} metrics for evalcore."""\n',
        package / "_register.py": REGISTER, package / "metrics.py": METRICS,
        root / "tests" / "test_conformance.py": TESTS,
    }
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values))
    return root
