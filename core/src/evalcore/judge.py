"""Calibrating a judged metric against human labels: agreement, Cohen's kappa, confusion matrix."""

from evalcore._engine.calibrate import Calibration, calibrate, cohen_kappa, confusion_matrix

__all__ = ["Calibration", "calibrate", "cohen_kappa", "confusion_matrix"]
