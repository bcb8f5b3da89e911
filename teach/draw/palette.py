"""Colours of a picture: Okabe and Ito's colour-blind-safe palette.

Tiles are filled with light tints of the palette's seven colours (black
text stays readable on each) and every cell has a dark outline, so no fill
depends on its colour alone to be seen; tile boundaries are black, later
levels' boundaries use the palette's strong colours, and padding is hatched.

>>> len(TILE_FILLS), TILE_FILLS[0]
(7, '#f5d999')
>>> colour_tiles([[0, 0, 1], [2, 2, 3]])[1] != colour_tiles([[0, 0, 1], [2, 2, 3]])[0]
True
"""

from __future__ import annotations

import numpy as np

#: Okabe & Ito (2008), "Color Universal Design": the seven colours besides black.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")


def _tint(colour: str, amount: float) -> str:
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


#: Tile fills: the palette lightened, in an order where neighbours contrast.
TILE_FILLS = tuple(_tint(OKABE_ITO[i], 0.6) for i in (0, 1, 2, 6, 3, 4, 5))
#: Boundary colours of tiling levels 1, 2, 3, ...
LEVEL_COLOURS = ("#000000", "#D55E00", "#0072B2", "#009E73", "#CC79A7")
LEVEL_NAMES = ("black", "vermillion", "blue", "green", "purple")
#: Cell outlines, padding and the word/byte marks.
CELL_EDGE = "#4d4d4d"
PADDING_FILL = "#ffffff"
PADDING_HATCH = "#8c8c8c"
GAP_FILL = "#eeeeee"
WORD_MARK = "#0072B2"
MUTED_TEXT = "#595959"


def level_colour(level: int) -> str:
    """Boundary colour of tiling level ``level`` (1-based)."""
    return LEVEL_COLOURS[(level - 1) % len(LEVEL_COLOURS)]


def level_name(level: int) -> str:
    return LEVEL_NAMES[(level - 1) % len(LEVEL_NAMES)]


def colour_tiles(*grids) -> dict[int, str]:
    """A fill for each tile id in ``grids`` (2-D id arrays; negative = no
    cell): greedy, so tiles that touch in any grid differ."""
    neighbours: dict[int, set] = {}
    for grid in grids:
        g = np.asarray(grid)
        for t in np.unique(g[g >= 0]).tolist():
            neighbours.setdefault(t, set())
        for a, b in ((g[:, :-1], g[:, 1:]), (g[:-1, :], g[1:, :])):
            for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
                if x != y and x >= 0 and y >= 0:
                    neighbours[x].add(y)
                    neighbours[y].add(x)
    colour: dict[int, int] = {}
    for t in sorted(neighbours):
        taken = {colour[n] for n in neighbours[t] if n in colour}
        c = t % len(TILE_FILLS)
        while c in taken and len(taken) < len(TILE_FILLS):
            c = (c + 1) % len(TILE_FILLS)
        colour[t] = c
    return {t: TILE_FILLS[c] for t, c in colour.items()}
