"""The self-contained HTML report of evalcore runs (``evalcore report``, :func:`evalcore.write_report`)."""
