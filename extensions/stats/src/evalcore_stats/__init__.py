"""evalcore-stats: statistics over finished runs — paired tests and corrections, comparisons, gates,
prediction-powered estimates from labels, sample-size planning, run history and judge calibration.

Its names are public through ``evalcore`` (``evalcore.compare``, ``evalcore.ppi``, ``evalcore.gate`` ...)
and ``evalcore.judge``; its commands (``evalcore compare``, ``gate``, ``plan``, ``ppi``, ``runs``,
``calibrate``) are added through the ``evalcore_commands`` hook. Importing this package loads nothing.
"""
