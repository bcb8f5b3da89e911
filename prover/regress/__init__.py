"""Regression cases from the spec (:mod:`.cases`), written as JSON lines, pytest
or GoogleTest (:mod:`.formats`), or as a pytest module for a user's own
function (:mod:`.target`)."""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .cases import (
    Suite as Suite,
    from_counterexamples as from_counterexamples,
    generate as generate,
)
from .formats import (
    write as write,
)
from .golden import (
    write_golden as write_golden,
)
