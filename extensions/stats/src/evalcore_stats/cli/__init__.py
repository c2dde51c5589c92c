"""The commands of evalcore-stats, each loaded when it runs."""
