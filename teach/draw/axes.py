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

An array's axis runs over the dim rounded up to its tile: ``data`` of its
indices are the array's, the rest padding, and a gap says how many of each
it leaves out:

>>> axis = choose(384, 128, 16, data=300)
>>> [(g.count, axis.padding_in(g)) for g in axis.slots() if isinstance(g, Gap)]
[(118, 0), (254, 84)]
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Gap:
    """``count`` consecutive indices not drawn, from index ``start``."""

    count: int
    start: int = field(default=0, repr=False)


@dataclass(frozen=True)
class Axis:
    """``size`` indices (padding included), of which ``shown`` are drawn;
    the indices from ``data`` on are padding (None: no index is)."""

    size: int
    shown: tuple[int, ...]
    data: int | None = None

    def slots(self) -> tuple:
        """Shown indices in order, with a :class:`Gap` for each run left out."""
        out: list[int | Gap] = []
        last = -1
        for i in self.shown:
            if i > last + 1:
                out.append(Gap(i - last - 1, last + 1))
            out.append(i)
            last = i
        if last < self.size - 1:
            out.append(Gap(self.size - 1 - last, last + 1))
        return tuple(out)

    def padding_in(self, gap: Gap) -> int:
        """How many of the indices ``gap`` leaves out are padding."""
        if self.data is None:
            return 0
        return max(0, gap.start + gap.count - max(self.data, gap.start))

    @property
    def elided(self) -> bool:
        return len(self.shown) < self.size


def choose(size: int, tile: int, budget: int, data: int | None = None) -> Axis:
    """The indices of an axis of ``size`` (tiles of ``tile``; padding from
    index ``data`` on) to draw in about ``budget`` slots."""
    tile = max(1, min(tile, size))
    if size <= budget:
        return Axis(size, tuple(range(size)), data)
    if tile <= budget // 2:
        return Axis(size, tuple(range((budget // tile) * tile)), data)
    head, tail, after = budget * 3 // 8, budget // 4, budget // 8
    shown = (list(range(head)) + list(range(tile - tail, tile))
             + list(range(tile, min(size, tile + after))))
    return Axis(size, tuple(sorted(set(shown))), data)
