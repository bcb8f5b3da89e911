"""Properties of one layout (in_bounds, injective, bijective, inverse,
formula_equals_prt, combine_equals_reshape, packing), proved for one shape or
for all shapes: :func:`tilespec.prover.properties.proof.prove`."""

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .beyond_facts import (
    QUICK_SECONDS as QUICK_SECONDS,
)
from .catalogue import (
    CATALOGUE as CATALOGUE,
)
from .exhaustive import (
    EXHAUSTIVE_LIMIT as EXHAUSTIVE_LIMIT,
)
from .proof import (
    prove as prove,
)
