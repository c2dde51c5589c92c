"""The version of the evalcore distribution."""

__version__ = "0.1.0"
