"""Makes the shared Hypothesis strategies (overlap_strategies.py) importable by the tests."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
