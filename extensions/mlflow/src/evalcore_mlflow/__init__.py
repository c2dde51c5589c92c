"""evalcore-mlflow: the ``mlflow`` tracker, which logs evaluations and comparisons to MLflow."""

__version__ = "0.1.0"
