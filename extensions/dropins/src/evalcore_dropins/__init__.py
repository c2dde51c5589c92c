"""Drop-ins over evalcore for the systems users switch from by changing an import: DSPy's
``Evaluate`` (``evalcore.dspy``), the benchmark engine's registry (``evalcore.engine``) and the dsrs
``Scorer`` (``evalcore.Scorer``). Their public names are evalcore's; this package holds them."""
