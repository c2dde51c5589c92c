"""The public ``evaluate`` and ``compare`` that log to a plugin's tracker with ``log_to``
(``mlflow`` from evalcore-mlflow, ``wandb`` from evalcore-wandb); the trackers themselves are
plugins, which use the public report (:func:`evalcore.write_report`) for the page they log.

Nothing is imported here: ``evalcore.evaluate`` without ``log_to`` or ``labels`` loads neither a
tracker nor the comparison's modules."""
