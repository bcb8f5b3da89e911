"""CuTe's layout algebra and swizzle (:mod:`tilespec.cute`) proved by Z3
for all coordinates of given layouts: each operation's defining law
(:mod:`.laws`), the swizzle a bijection (:mod:`.swizzle`), and the
question of what dividing an XLA tiled layout by a tile gives
(:mod:`.tiling`).  The claims and their replay are :mod:`.claims`."""

from __future__ import annotations

from .laws import OPERATIONS, prove_law
from .swizzle import prove_swizzle
from .tiling import TileDivision, tile_division

__all__ = ["OPERATIONS", "TileDivision", "prove_law", "prove_swizzle", "tile_division"]
