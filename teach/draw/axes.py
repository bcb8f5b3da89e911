"""Which rows and columns a figure shows: whole small tiles, folded large ones.

An axis of a picture (rows or columns of the array, or of memory) is drawn
as *slots*: the indices shown, in order, and :class:`Gap` slots that stand
for a run of indices left out, with their count.  When an axis is too long
to draw, the first tiles are shown in full if they are small; a tile too
wide for the picture is *folded*: its first indices, its last ones (so the
tile's end is seen) and the start of the next tile (so the jump in offsets
across the tile boundary is seen).

>>> choose(5, 2, 16).slots()
(0, 1, 2, 3, 4)
>>> choose(1024, 8, 16).slots()
(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, Gap(count=1008))
>>> choose(256, 128, 16).slots()
(0, 1, 2, 3, 4, 5, Gap(count=118), 124, 125, 126, 127, 128, 129, Gap(count=126))
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gap:
    """``count`` consecutive indices not drawn."""

    count: int


@dataclass(frozen=True)
class Axis:
    """``size`` indices (padding included), of which ``shown`` are drawn."""

    size: int
    shown: tuple[int, ...]

    def slots(self) -> tuple:
        """Shown indices in order, with a :class:`Gap` for each run left out."""
        out: list[int | Gap] = []
        last = -1
        for i in self.shown:
            if i > last + 1:
                out.append(Gap(i - last - 1))
            out.append(i)
            last = i
        if last < self.size - 1:
            out.append(Gap(self.size - 1 - last))
        return tuple(out)

    @property
    def elided(self) -> bool:
        return len(self.shown) < self.size


def choose(size: int, tile: int, budget: int) -> Axis:
    """The indices of an axis of ``size`` (tiles of ``tile``) to draw in about
    ``budget`` slots."""
    tile = max(1, min(tile, size))
    if size <= budget:
        return Axis(size, tuple(range(size)))
    if tile <= budget // 2:
        return Axis(size, tuple(range((budget // tile) * tile)))
    head, tail, after = budget * 3 // 8, budget // 4, budget // 8
    shown = (list(range(head)) + list(range(tile - tail, tile))
             + list(range(tile, min(size, tile + after))))
    return Axis(size, tuple(sorted(set(shown))))
