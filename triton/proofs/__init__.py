"""Triton's linear layouts proved with Z3 on bit-vectors, answers replayed
on ints: each operation's law (:mod:`.laws`), the linear layout of an XLA
layout equal to the spec's offsets on every element (:mod:`.xla_equality`),
and the three-way conversion XLA <-> CuTe <-> Triton, proved at each step
(:mod:`.three_way`).  The claims and their replay are :mod:`.claims`.

:mod:`tilespec.triton` itself never imports the solver; this package does.
"""

from __future__ import annotations

from .laws import OPERATIONS, prove_law
from .three_way import Step, three_way
from .xla_equality import prove_from_xla

__all__ = ["OPERATIONS", "Step", "prove_from_xla", "prove_law", "three_way"]
