"""evalcore-tables through the conformance kit: it loads, lists without importing pandas or pyarrow, and its
readers' implementations load."""

from evalcore.testkit import ComponentConformance


class TestTablesConformance(ComponentConformance):
    namespace = "tables"
    heavy = (*ComponentConformance.heavy, "pandas", "pyarrow", "polars")
