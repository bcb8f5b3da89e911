"""Triton's linear layouts proved by Z3: swizzles across systems
(:mod:`.swizzle`)."""
# What other packages ask of this one (`x as x`: re-exported for mypy).
from .swizzle import (
    from_cute as from_cute,
    prove_translation as prove_translation,
    refute_uncut as refute_uncut,
    to_cute as to_cute,
)
