"""A layout drawn as a picture, like the source document's two figures.

On the left, the logical array as a grid: each element is coloured by its
first-level tile and labelled with its linear offset.  On the right, memory
order as a strip wrapped into rows: each cell is one offset, coloured like the
element stored there, and left white when it is padding.  Black lines bound
first-level tiles; the tiles of later levels (the 2x1 tiles of ``(2,4)(2,1)``)
are outlined in red, then blue, then green.

Every number in the picture comes from :mod:`spec.index`, and a
:class:`Picture` keeps those numbers so they can be checked without looking
at pixels.  Matplotlib is only imported to render (``Agg``, no window).

Figure 1 of the source document, f32[3,5] tiled 2x2:

>>> from tilespec.spec.text import parse_array_shape as shape
>>> p = picture(shape("f32[3,5]{1,0:T(2,2)}"))
>>> p.grid.tolist()
[[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]]
>>> p.strip_rows()[2], p.strip_elements()[2]
([8, None, 10, None], [(0, 4), None, (1, 4), None])
>>> p.tiles.tolist()
[[0, 0, 1, 1, 2], [0, 0, 1, 1, 2], [3, 3, 4, 4, 5]]
>>> picture(shape("f32[64,8]"))
Traceback (most recent call last):
...
tilespec.spec.draw.DrawingLimitError: draw shows at most 32 rows and 32 columns of elements; f32[64,8]{1,0} has 64 rows and 8 columns
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from .arith import INT
from .errors import TilespecError
from .index import (all_offsets, concrete_dims, delinearise, dims_through,
                    linear_index, locate_many, product, shape_pipeline)
from .layout import COMBINE, Shape

#: Most rows, and most columns, of elements a picture shows.
MAX_SIDE = 32
#: Most memory cells (padding included) a picture shows.
MAX_CELLS = 4096
#: Most memory cells in one row of the strip.
MAX_STRIP_WIDTH = 64

# Light colours (matplotlib's Set3 without its grey, which reads as padding),
# so black numbers stay readable; eleven, a prime, so that tile ids taken
# modulo the palette rarely repeat along a column of tiles.
PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
           "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f")
#: Outline colour for the tiles of level 2, 3, 4, ...
LEVEL_COLOURS = ("#d62728", "#1f3fbf", "#2ca02c", "#9467bd")


class DrawingLimitError(TilespecError):
    """The array is of a rank or size that a picture cannot show readably."""


@dataclass(frozen=True, eq=False)
class Picture:
    """The numbers a picture shows; :meth:`figure` renders them.

    ``grid`` and ``tiles`` are (rows, cols) arrays for the logical array (a
    rank-1 array is one row, a scalar one cell): offset and first-level tile
    id of each element.  ``subtiles`` holds, for each later level, the id of
    the tile of that level each element falls in.  ``is_element``,
    ``elements``, ``strip_tiles`` and ``strip_subtiles`` describe every memory
    offset ``0 .. cells-1``: whether it holds an element, which one, and the
    tile ids of the position (padding belongs to a tile too).
    """

    shape: Shape
    grid: np.ndarray
    tiles: np.ndarray
    subtiles: tuple
    width: int
    is_element: np.ndarray
    elements: np.ndarray
    strip_tiles: np.ndarray
    strip_subtiles: tuple

    @property
    def cells(self) -> int:
        return len(self.is_element)

    def strip_rows(self) -> list[list[int | None]]:
        """The label of each memory cell, row by row: its offset, or ``None``
        for padding (drawn blank)."""
        labels = [p if ok else None for p, ok in enumerate(self.is_element.tolist())]
        return [labels[i:i + self.width] for i in range(0, len(labels), self.width)]

    def strip_elements(self) -> list[list[tuple | None]]:
        """The logical index stored in each memory cell, row by row."""
        cells = [tuple(i) if ok else None
                 for i, ok in zip(self.elements.tolist(), self.is_element.tolist())]
        return [cells[i:i + self.width] for i in range(0, len(cells), self.width)]

    def tile_colours(self) -> dict[int, str]:
        """A colour for each first-level tile; tiles that touch differ."""
        return _colour_tiles(self.tiles)

    def figure(self):
        """The picture as a matplotlib figure (Agg canvas, never shown)."""
        return _render(self)

    def save(self, path) -> None:
        """Write the picture; the format (png, svg, pdf) follows the name."""
        fig = self.figure()
        fig.savefig(path, dpi=150, bbox_inches="tight", facecolor="white")

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure().savefig(buf, format="png", dpi=100, bbox_inches="tight",
                              facecolor="white")
        return buf.getvalue()


def picture(shape: Shape) -> Picture:
    """Work out everything a picture of ``shape`` shows, checking the limits."""
    if not isinstance(shape, Shape):
        raise DrawingLimitError(f"draw shows one array shape, not {shape}")
    if shape.rank > 2:
        raise DrawingLimitError(
            f"draw shows arrays of rank 0 to 2; {shape} has rank {shape.rank} "
            "(use 'tilespec explain' for its numbers)")
    dims = concrete_dims(shape)
    rows, cols = ((1, 1) + dims)[-2:]
    if rows > MAX_SIDE or cols > MAX_SIDE:
        raise DrawingLimitError(
            f"draw shows at most {MAX_SIDE} rows and {MAX_SIDE} columns of "
            f"elements; {shape} has {rows} rows and {cols} columns")
    if 0 in dims:
        raise DrawingLimitError(f"{shape} has no elements to draw")
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims)
    cells = product(through[-1])
    if cells > MAX_CELLS:
        raise DrawingLimitError(
            f"draw shows at most {MAX_CELLS} memory cells; {shape} takes "
            f"{cells} with padding")

    levels = len(shape.layout.tiles)
    grid = all_offsets(shape).reshape(rows, cols)
    index = np.indices(dims, dtype=np.int64) if dims else np.zeros((0,), np.int64)
    element_cols = tuple(index[i] for i in range(len(dims)))
    positions = np.arange(cells, dtype=np.int64)
    elements, is_element = locate_many(shape, positions)

    def element_ids(level):
        return _broadcast(_tile_of_element(stages, through, element_cols, level),
                          dims).reshape(rows, cols)

    def position_ids(level):
        return _broadcast(_tile_of_position(stages, through, positions, level),
                          (cells,))

    return Picture(
        shape=shape, grid=grid,
        tiles=element_ids(1) if levels else np.zeros((rows, cols), np.int64),
        subtiles=tuple(element_ids(lv) for lv in range(2, levels + 1)),
        width=strip_width(shape, cells),
        is_element=is_element, elements=elements,
        strip_tiles=position_ids(1) if levels else np.zeros(cells, np.int64),
        strip_subtiles=tuple(position_ids(lv) for lv in range(2, levels + 1)))


def draw(shape: Shape, path=None) -> Picture:
    """The picture of ``shape``, written to ``path`` (.png or .svg) if given.

    The returned :class:`Picture` holds the numbers drawn, and shows itself
    in a notebook.
    """
    p = picture(shape)
    if path is not None:
        p.save(path)
    return p


def strip_width(shape: Shape, cells: int) -> int:
    """Memory cells per strip row: a whole first-level tile when it is small,
    doubled while the strip would be much taller than wide.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> strip_width(shape("f32[3,5]{1,0:T(2,2)}"), 24)
    4
    >>> strip_width(shape("bf16[32,32]{1,0:T(8,128)(2,1)}"), 4096)
    64
    """
    if shape.layout.tiles:
        unit = product(t for t in shape.layout.tiles[0].sizes if t != COMBINE)
    else:
        unit = shape.physical_dims[-1] if shape.rank else 1
    width = max(1, min(unit, MAX_STRIP_WIDTH))
    while -(-cells // width) > max(16, width) and 2 * width <= MAX_STRIP_WIDTH:
        width *= 2
    return width


# --- tile ids from the pipeline ------------------------------------------------

def _level_end(stages, level: int) -> int:
    """How many stages it takes to finish tiling level ``level``."""
    return 1 + max(i for i, s in enumerate(stages) if s.level == level)


def _tile_count_entries(stages, through, level: int) -> int:
    """Entries of the vector after ``level`` that count tiles, not positions
    within a tile: all but the last ``k``, where the level splits ``k`` dims."""
    end = _level_end(stages, level)
    split = next(s for s in stages if s.level == level and s.name == "split")
    return len(through[end]) - len(split.sizes)


def _tile_of_element(stages, through, element, level: int):
    end = _level_end(stages, level)
    e, d = tuple(element), through[0]
    for s in stages[:end]:
        e, d = s.forward(e, d, INT), s.dims(d, INT)
    k = _tile_count_entries(stages, through, level)
    return linear_index(e[:k], d[:k])


def _tile_of_position(stages, through, positions, level: int):
    # Run memory positions backwards to the end of ``level``; padding runs
    # back just as well, so a padding cell gets the tile it pads.
    end = _level_end(stages, level)
    e = delinearise(positions, through[-1])
    for i in range(len(stages) - 1, end - 1, -1):
        e, _ = stages[i].backward(e, through[i], INT)
    k = _tile_count_entries(stages, through, level)
    return linear_index(e[:k], through[end][:k])


def _broadcast(values, shape) -> np.ndarray:
    return np.broadcast_to(np.asarray(values, dtype=np.int64), shape).copy()


def _colour_tiles(tiles: np.ndarray) -> dict[int, str]:
    """Greedy colouring: each tile starts at its id in the palette and moves
    on past colours its already-coloured neighbours took."""
    neighbours: dict[int, set] = {int(t): set() for t in np.unique(tiles)}
    for a, b in ((tiles[:, :-1], tiles[:, 1:]), (tiles[:-1, :], tiles[1:, :])):
        for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
            if x != y:
                neighbours[x].add(y)
                neighbours[y].add(x)
    colour: dict[int, int] = {}
    for t in sorted(neighbours):
        taken = {colour[n] for n in neighbours[t] if n in colour}
        c = t % len(PALETTE)
        while c in taken and len(taken) < len(PALETTE):
            c = (c + 1) % len(PALETTE)
        colour[t] = c
    return {t: PALETTE[c] for t, c in colour.items()}


# --- rendering -----------------------------------------------------------------

def _outline(groups: np.ndarray, x0: float, inset: float) -> list:
    """Line segments around each group of equal ids in a 2-D id array.

    A negative id is no cell.  With ``inset`` > 0 the lines run that far
    inside the group, so nested outlines of several levels stay apart.
    """
    rows, cols = groups.shape

    def same(r, c, g):
        return 0 <= r < rows and 0 <= c < cols and groups[r, c] == g

    segments = []
    for r in range(rows):
        for c in range(cols):
            g = groups[r, c]
            if g < 0:
                continue
            # Each side: the neighbour across it, and the two sides it meets.
            for (dr, dc) in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if same(r + dr, c + dc, g):
                    continue
                ends = []
                for (er, ec) in ((dc, dr), (-dc, -dr)):
                    # Along the side towards (er, ec): convex corner, straight
                    # run, or concave corner.
                    if not same(r + er, c + ec, g):
                        ends.append(0.5 - inset)
                    elif same(r + er + dr, c + ec + dc, g):
                        ends.append(0.5 + inset)
                    else:
                        ends.append(0.5)
                cy, cx = r + 0.5 + dr * (0.5 - inset), c + 0.5 + dc * (0.5 - inset)
                (er1, ec1), (er2, ec2) = (dc, dr), (-dc, -dr)
                segments.append([(x0 + cx + ec1 * ends[0], cy + er1 * ends[0]),
                                 (x0 + cx + ec2 * ends[1], cy + er2 * ends[1])])
    return segments


def _font(cell_points: float, chars: int, share: float = 0.8) -> float:
    # A digit is about 0.6 em wide; keep the label inside the cell.
    return max(3.0, min(0.42 * cell_points, share * cell_points / (0.62 * max(chars, 1))))


def _render(p: Picture):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from .text import format_shape

    rows, cols = p.grid.shape
    width = p.width
    strip_h = -(-p.cells // width)
    label_w = len(str(max(p.cells - 1, 0)))
    gap = 1.5 + 0.4 * label_w
    x_strip = cols + gap
    span_x, span_y = x_strip + width, max(rows, strip_h, 1)
    cell = min(0.55, max(0.2, 11 / span_x), max(0.2, 9 / span_y))
    fig = Figure(figsize=(span_x * cell + 0.6, (span_y + 3.2) * cell + 0.4))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-1.2, span_x + 0.2)
    ax.set_ylim(span_y + 1.0, -1.6)
    ax.set_aspect("equal")
    ax.axis("off")
    pts = cell * 72
    number_font = _font(pts, label_w)
    small_font = _font(pts, 2, 0.5)
    colours = p.tile_colours()
    edge = dict(edgecolor="#b0b0b0", linewidth=0.4)

    for r in range(rows):
        for c in range(cols):
            ax.add_patch(Rectangle((c, r), 1, 1, facecolor=colours[int(p.tiles[r, c])], **edge))
            ax.text(c + 0.5, r + 0.5, str(p.grid[r, c]), ha="center", va="center",
                    fontsize=number_font)
    if p.shape.rank >= 1:
        for c in range(cols):
            ax.text(c + 0.5, -0.35, str(c), ha="center", va="center",
                    fontsize=small_font, color="#707070")
    if p.shape.rank == 2:
        for r in range(rows):
            ax.text(-0.35, r + 0.5, str(r), ha="center", va="center",
                    fontsize=small_font, color="#707070")

    show_index = p.cells <= 64 and p.shape.rank >= 1
    for pos in range(p.cells):
        r, c = divmod(pos, width)
        if p.is_element[pos]:
            face = colours[int(p.strip_tiles[pos])]
            y = r + (0.38 if show_index else 0.5)
            ax.text(x_strip + c + 0.5, y, str(pos), ha="center", va="center",
                    fontsize=number_font)
            if show_index:
                ax.text(x_strip + c + 0.5, r + 0.76,
                        "(" + ",".join(map(str, p.elements[pos].tolist())) + ")",
                        ha="center", va="center", color="#505050",
                        fontsize=_font(pts, 2 + 2 * p.shape.rank, 0.85))
        else:
            face = "white"
        ax.add_patch(Rectangle((x_strip + c, r), 1, 1, facecolor=face, **edge))
    for r in range(strip_h):
        ax.text(x_strip - 0.2, r + 0.5, str(r * width), ha="right", va="center",
                fontsize=small_font, color="#707070")

    strip_grid = np.full(strip_h * width, -1, dtype=np.int64)
    lines = []
    if p.shape.layout.tiles:
        levels = [(p.tiles, p.strip_tiles)] + list(zip(p.subtiles, p.strip_subtiles))
    else:
        levels = [(p.tiles, np.zeros(p.cells, np.int64))]
    for level, (grid_ids, strip_ids) in enumerate(levels, start=1):
        inset = 0.0 if level == 1 else 0.07 * (level - 1)
        strip_grid[:p.cells] = strip_ids
        if level > 1:
            # A later-level tile of padding alone only adds clutter.
            holding = np.unique(strip_ids[p.is_element])
            strip_grid[:p.cells][~np.isin(strip_ids, holding)] = -1
        segs = (_outline(grid_ids, 0, inset)
                + _outline(strip_grid.reshape(strip_h, width), x_strip, inset))
        colour = "black" if level == 1 else LEVEL_COLOURS[(level - 2) % len(LEVEL_COLOURS)]
        lines.append(LineCollection(segs, colors=colour,
                                    linewidths=1.8 if level == 1 else 1.5,
                                    capstyle="projecting"))
    for lc in lines:
        ax.add_collection(lc)

    title_font = max(7.0, min(12.0, 0.5 * pts))
    head = ("row = dim 0, column = dim 1" if p.shape.rank == 2 else
            "dim 0 left to right" if p.shape.rank == 1 else "a scalar")
    _title(ax, 0, cols + gap - 0.5, cell, title_font, "array: offset of each element", head)
    _title(ax, x_strip, width, cell, title_font, f"memory, {width} per row",
           "white = padding")
    ax.text(0, span_y + 0.3, format_shape(p.shape) + "   " + _legend(p.shape),
            ha="left", va="top", fontsize=title_font)
    return fig


def _title(ax, x, cells_wide, cell, font, *lines) -> None:
    # Shrink to the panel's width so the two panels' titles never overlap.
    chars = max(len(line) for line in lines)
    font = max(5.0, min(font, cells_wide * cell * 72 / (0.6 * chars)))
    ax.text(x, -0.9, "\n".join(lines), ha="left", va="bottom", fontsize=font,
            linespacing=1.1)


def _legend(shape: Shape) -> str:
    tiles = shape.layout.tiles
    if not tiles:
        return "no tiling: row-major in the physical dim order"
    parts = [f"colour = tile {tiles[0]}"]
    names = ("red", "blue", "green", "purple")
    for level, tile in enumerate(tiles[1:]):
        parts.append(f"{names[level % len(names)]} outline = tile {tile}")
    return "; ".join(parts)
