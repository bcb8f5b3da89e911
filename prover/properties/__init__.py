"""Properties of one layout (in_bounds, injective, bijective, inverse,
formula_equals_prt, combine_equals_reshape, packing), proved for one shape or
for all shapes: :func:`tilespec.prover.properties.proof.prove`."""

# What other packages ask of this one.
from .beyond_facts import QUICK_SECONDS  # noqa: F401
from .catalogue import CATALOGUE  # noqa: F401
from .exhaustive import EXHAUSTIVE_LIMIT  # noqa: F401
from .proof import prove  # noqa: F401
