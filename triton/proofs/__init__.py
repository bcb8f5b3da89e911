"""Triton's linear layouts proved with Z3 on bit-vectors, answers replayed
on ints: each operation's law (:mod:`.laws`), the linear layout of an
XLA layout equal to the spec's offsets (:mod:`.xla_equality`), and
Triton's shared swizzle equal to CuTe's ``Swizzle<B, M, S>``
(:mod:`.swizzle`)."""
# What other packages ask of this one (`x as x`: re-exported for mypy).
from .swizzle import (
    from_cute as from_cute,
    prove_translation as prove_translation,
    refute_uncut as refute_uncut,
    to_cute as to_cute,
)
