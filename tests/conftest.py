"""Hypothesis settings shared by the tests.

No deadline: the first example of a test pays for imports (sympy, numpy) and
a loaded CI machine is slow; the tests bound their work with max_examples.
"""

from hypothesis import settings

settings.register_profile("tilespec", deadline=None, print_blob=True)
settings.load_profile("tilespec")
