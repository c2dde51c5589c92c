"""Makes the shared session builders (adjutant_sessions.py) importable by the tests."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
