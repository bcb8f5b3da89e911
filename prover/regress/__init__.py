"""Regression cases from the spec (:mod:`.cases`), written as JSON lines, pytest
or GoogleTest (:mod:`.formats`), or as a pytest module for a user's own
function (:mod:`.target`)."""

# What other packages ask of this one.
from .cases import Suite, from_counterexamples, generate  # noqa: F401
from .formats import write  # noqa: F401
from .golden import write_golden  # noqa: F401
