"""Hypothesis settings shared by the tests.

No deadline: the first example of a test pays for imports (sympy, numpy) and
a loaded CI machine is slow; the tests bound their work with max_examples.
Under CI (CI=true) the examples are derandomized, so a red run means a
change, not luck; developers' runs stay random and keep finding new cases.
"""

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))  # tests/mutants.py

settings.register_profile("tilespec", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "tilespec")
