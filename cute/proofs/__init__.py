"""CuTe proved by Z3, for all coordinates of given layouts: the bridge to
XLA, where a CuTe layout and an XLA layout are equal on every element
(:mod:`.xla_equality`: the export proved, any CuTe layout compared, the
import found and proved); each operation of the algebra keeps its defining
law (:mod:`.laws`); the swizzle is a bijection (:mod:`.swizzle`); and what
dividing an XLA tiled layout by a tile gives (:mod:`.tile_division`).  The
claims and their replay on ints are :mod:`.claims`.

:mod:`tilespec.cute` itself never imports the solver; this package does.
"""

from __future__ import annotations

from .laws import OPERATIONS, prove_law
from .swizzle import prove_swizzle
from .tile_division import TileDivision, tile_division
from .xla_equality import compare_cute, from_cute, prove_cute

__all__ = ["OPERATIONS", "TileDivision", "compare_cute", "from_cute", "prove_cute",
           "prove_law", "prove_swizzle", "tile_division"]

# What other packages ask of this one (`x as x`: re-exported for mypy).
from .claims import (
    BitVectorArithmetic as BitVectorArithmetic,
)
