"""Robustness metrics for evalcore (namespace ``robustness``); nothing loads on import."""
