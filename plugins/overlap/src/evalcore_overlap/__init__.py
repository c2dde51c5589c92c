"""Generation overlap metrics for evalcore."""
