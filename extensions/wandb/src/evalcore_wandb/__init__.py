"""evalcore-wandb: the ``wandb`` tracker, which logs evaluations to Weights & Biases (offline by default)."""

__version__ = "0.1.0"
