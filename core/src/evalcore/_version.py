"""The version of the evalcore-core distribution."""

__version__ = "0.1.0"
