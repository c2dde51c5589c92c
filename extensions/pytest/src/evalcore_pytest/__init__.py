"""evalcore's pytest plugin (:mod:`evalcore_pytest.plugin`) and test kit, published as
:mod:`evalcore.testkit` (the conformance checks) and :mod:`evalcore.testing` (test helpers)."""
