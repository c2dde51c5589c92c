"""The package's C extension: sacrebleu's translation edit rate (``_ter``, no dependency beyond
Python's headers). It is optional: where it does not compile, sacrebleu's own Python computes the
same TER edits (the same results, slower). Everything else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("evalcore_overlap._ter", ["src/evalcore_overlap/_ter.c"], optional=True)])
