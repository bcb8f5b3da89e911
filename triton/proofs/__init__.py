"""Triton's linear layouts proved with Z3 on bit-vectors, answers replayed
on ints: each operation's law (:mod:`.laws`), the linear layout of an XLA
layout equal to the spec's offsets on every element (:mod:`.xla_equality`),
the three-way conversion XLA <-> CuTe <-> Triton, proved at each step
(:mod:`.three_way`), and Triton's shared swizzle equal to CuTe's
``Swizzle<B, M, S>`` for all parameters (:mod:`.swizzle`).  The claims and
their replay are :mod:`.claims`.

:mod:`tilespec.triton` itself never imports the solver; this package does.
"""

from __future__ import annotations

from .laws import OPERATIONS, prove_law
from .swizzle import from_cute, prove_translation, refute_uncut, to_cute
from .three_way import Step, three_way
from .xla_equality import prove_from_xla

__all__ = ["OPERATIONS", "Step", "from_cute", "prove_from_xla", "prove_law",
           "prove_translation", "refute_uncut", "three_way", "to_cute"]
