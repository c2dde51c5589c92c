"""Adjutant agent metrics for evalcore (namespace ``adjutant``).

Importing this package loads nothing: metrics are imported on use through the registry;
:mod:`evalcore_adjutant.sessions` reads session records and lists session files.
"""
