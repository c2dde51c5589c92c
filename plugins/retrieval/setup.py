"""The package's C extensions: the TREC file scanner and the dict reader (no dependency beyond Python's
headers). Both are optional: where they do not compile, pyarrow and numpy do the same work (the same
results, slower). Everything else about the package is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension(f"evalcore_retrieval.{name}", [f"src/evalcore_retrieval/{name}.c"], optional=True)
    for name in ("_trec_scan", "_dict_values")
])
