"""Outcome-coupled agent-step metrics for evalcore (namespace ``outcome``).

Importing this package loads nothing: metrics are imported on use through the registry
(``evalcore.get_metric("outcome/was_repeated")``), and the labelled-record models and
their JSONL loader live in :mod:`evalcore_outcome.records`.
"""
