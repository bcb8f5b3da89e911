"""What a picture of a layout shows, as numbers: panels of cells.

A picture has one *array panel* per 2-D slice shown (the last two logical
dims; a rank >= 3 array gives a row of slices, a rank-1 array one row, a
scalar one cell), and one *memory panel*: memory order wrapped into rows.
Each panel is a grid of cells over a row :class:`~teach.draw.axes.Axis` and a
column axis, so a large layout is drawn elided (see :mod:`teach.draw.axes`).

Every number comes from :mod:`spec.index`: an array cell's label is the
offset the pipeline gives its index (a padding cell, beyond a dim but inside
the first-level tile, is run through the same pipeline: the offset where
that padding sits); a memory cell's label is its position and its element is
:func:`~spec.index.locate_many`'s; tile ids come from running the index, or
the position, through the stages; word and byte numbers from
:func:`~spec.size.bit_range`.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> s = scene(shape("f32[3,5]{1,0:T(2,2)}"))
>>> s.panels[0].labels.tolist()
[[0, 1, 4, 5, 8, 9], [2, 3, 6, 7, 10, 11], [12, 13, 16, 17, 20, 21], [14, 15, 18, 19, 22, 23]]
>>> int(s.panels[0].padding.sum()), int(s.memory.padding.sum())
(9, 9)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spec import (
    COMBINE,
    INT,
    Shape,
    TilespecError,
    bit_range,
    concrete_dims,
    delinearise,
    dims_through,
    evaluate,
    linear_index,
    locate_many,
    product,
    shape_pipeline,
)
from .axes import Axis, choose

#: Slots (shown indices and gaps) an array panel aims at, per axis.
ROW_BUDGET, COLUMN_BUDGET = 16, 24
#: Slots of the memory panel, per axis.
MEMORY_ROWS, MEMORY_COLUMNS = 16, 32
#: Most 2-D slices of a rank >= 3 array drawn side by side.
MAX_SLICES = 3
#: The widest memory row, in cells, before the row is folded.
MAX_STRIP_WIDTH = 32


class DrawingLimitError(TilespecError):
    """The array is of a kind a picture cannot show (no elements, named dims)."""


@dataclass(frozen=True, eq=False)
class Panel:
    """One grid of cells.  Arrays are indexed [shown row, shown column].

    ``labels``: the number drawn (an offset; -1 where there is no cell, past
    the end of memory).  ``padding``: the cell holds no element.
    ``indices`` (..., rank): the logical index of the cell (array panels,
    padding included) or of the element stored there (memory; -1 for
    padding).  ``tiles``: for each tiling level, the id of the tile of that
    level the cell falls in (one all-zero level when there is no tiling).
    ``words`` and ``bytes`` (memory of a packed type only): which 32-bit
    word and which byte each cell starts in; ``bits``: the bit it starts
    at, so that byte boundaries inside a cell (a bf16 is two bytes) show.
    """

    kind: str
    title: str
    rows: Axis
    cols: Axis
    labels: np.ndarray
    padding: np.ndarray
    indices: np.ndarray
    tiles: tuple
    words: np.ndarray | None = None
    bytes: np.ndarray | None = None
    bits: np.ndarray | None = None

    @property
    def present(self) -> np.ndarray:
        return self.labels >= 0


@dataclass(frozen=True, eq=False)
class Scene:
    """The panels of a picture of ``shape``; ``more_slices`` counts the 2-D
    slices of a rank >= 3 array not drawn.  ``width`` is the memory row."""

    shape: Shape
    panels: tuple
    memory: Panel
    more_slices: int
    width: int
    cells: int

    @property
    def packed(self) -> bool:
        return self.memory.words is not None


def scene(shape: Shape) -> Scene:
    """Work out every number a picture of ``shape`` shows."""
    if not isinstance(shape, Shape):
        raise DrawingLimitError(f"draw shows one array shape, not {shape}")
    dims = concrete_dims(shape)
    if 0 in dims or shape.element_bits == 0:
        raise DrawingLimitError(f"{shape} has no elements to draw")
    stages = shape_pipeline(shape)
    through = dims_through(stages, dims)
    cells = product(through[-1])
    levels = max(1, len(shape.layout.tiles))
    panels, more = _array_panels(shape, stages, through, dims, levels)
    width = strip_width(shape, cells)
    return Scene(shape, panels, _memory_panel(shape, stages, through, cells, width, levels),
                 more, width, cells)


# --- the array panels ------------------------------------------------------------

def _padded_extent(shape: Shape, stages, dims) -> tuple[int, ...]:
    """Each dim rounded up to the first-level tile along it, when the first
    level pads logical dims directly (no ``*``); the dims otherwise."""
    if not shape.layout.tiles or any(s.name == "combine" and s.level == 1 for s in stages):
        return tuple(dims)
    pad = next(s for s in stages if s.name == "pad" and s.level == 1)
    prepend = sum(s.count for s in stages if s.name == "prepend unit dims" and s.level == 1)
    n = len(dims) + prepend
    out = list(dims)
    for i in range(len(dims)):
        q = shape.physical_order.index(i) + prepend
        k = q - (n - len(pad.sizes))
        if k >= 0:
            t = pad.sizes[k]
            out[i] = -(-dims[i] // t) * t
    return tuple(out)


def _tile_along(shape: Shape, axis: int) -> int:
    """The first-level tile's extent along logical dim ``axis`` (1 when the
    tile does not reach it or combines it)."""
    if not shape.layout.tiles:
        return 1
    tile = shape.layout.tiles[0].sizes
    q = shape.physical_order.index(axis) - (shape.rank - len(tile))
    if q < 0 or tile[q] == COMBINE:
        return 1
    return tile[q]


def _array_panels(shape, stages, through, dims, levels):
    rank = shape.rank
    extent = _padded_extent(shape, stages, dims)
    if rank >= 2:
        rows = choose(extent[-2], _tile_along(shape, rank - 2), ROW_BUDGET, dims[-2])
        cols = choose(extent[-1], _tile_along(shape, rank - 1), COLUMN_BUDGET, dims[-1])
    elif rank == 1:
        rows = Axis(1, (0,))
        cols = choose(extent[0], _tile_along(shape, 0), COLUMN_BUDGET, dims[0])
    else:
        rows, cols = Axis(1, (0,)), Axis(1, (0,))
    lead = dims[:-2] if rank > 2 else ()
    count = product(lead)
    panels = []
    for s in range(min(count, MAX_SLICES)):
        prefix = tuple(int(x) for x in delinearise(s, lead)) if lead else ()
        r = np.asarray(rows.shown, np.int64)[:, None]
        c = np.asarray(cols.shown, np.int64)[None, :]
        grid = (len(rows.shown), len(cols.shown))
        if rank >= 2:
            index = [np.full(grid, p, np.int64) for p in prefix] + [r + 0 * c, c + 0 * r]
        elif rank == 1:
            index = [c + 0 * r]
        else:
            index = []
        labels = np.broadcast_to(np.asarray(evaluate(stages, tuple(index), dims), np.int64),
                                 grid).copy()
        padding = np.zeros(grid, bool)
        for x, d in zip(index[len(prefix):], dims[len(prefix):]):
            padding |= x >= d
        tiles = tuple(_broadcast(_tile_of_element(stages, through, index, lv), grid)
                      if shape.layout.tiles else np.zeros(grid, np.int64)
                      for lv in range(1, levels + 1))
        indices = np.stack(index, axis=-1) if index else np.zeros(grid + (0,), np.int64)
        where = ", ".join(str(p) for p in prefix)
        title = f"[{where}, :, :]" if prefix else "array"
        panels.append(Panel("array", title, rows, cols, labels, padding, indices, tiles))
    return tuple(panels), count - len(panels)


# --- the memory panel ------------------------------------------------------------

def strip_width(shape: Shape, cells: int) -> int:
    """Memory cells per row: a whole first-level tile when it is small,
    doubled while the strip would be much taller than wide; for a large tile
    in a large array, the tile's most minor size (a row of the tile).

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> strip_width(shape("f32[3,5]{1,0:T(2,2)}"), 24)
    4
    >>> strip_width(shape("bf16[16,256]{1,0:T(8,128)(2,1)}"), 4096)
    128
    """
    if shape.layout.tiles:
        sizes = [t for t in shape.layout.tiles[0].sizes if t != COMBINE]
        unit = product(sizes)
        if unit > MAX_STRIP_WIDTH and cells > MAX_STRIP_WIDTH * MEMORY_ROWS:
            return max(1, sizes[-1] if sizes else 1)
    else:
        unit = shape.physical_dims[-1] if shape.rank else 1
    width = max(1, min(unit, MAX_STRIP_WIDTH))
    while -(-cells // width) > max(16, width) and 2 * width <= MAX_STRIP_WIDTH:
        width *= 2
    return width


def _memory_panel(shape, stages, through, cells, width, levels) -> Panel:
    height = -(-cells // width)
    unit = (product(t for t in shape.layout.tiles[0].sizes if t != COMBINE)
            if shape.layout.tiles else width)
    rows = choose(height, max(1, unit // width), MEMORY_ROWS)
    cols = choose(width, width, MEMORY_COLUMNS)
    positions = (np.asarray(rows.shown, np.int64)[:, None] * width
                 + np.asarray(cols.shown, np.int64)[None, :])
    present = positions < cells
    at = np.where(present, positions, 0)
    elements, is_element = locate_many(shape, at)
    labels = np.where(present, positions, -1)
    padding = present & ~is_element
    indices = np.where(is_element[..., None], elements, -1)
    tiles = tuple(np.where(present, _broadcast(_tile_of_position(stages, through, at, lv),
                                               at.shape), -1)
                  if shape.layout.tiles else np.where(present, 0, -1)
                  for lv in range(1, levels + 1))
    words = bytes_ = bits = None
    if 0 < shape.element_bits < 32:
        starts = np.vectorize(lambda p: bit_range(shape, int(p))[0], otypes=[np.int64])(at)
        words = np.where(present, starts // 32, -1)
        bytes_ = np.where(present, starts // 8, -1)
        bits = np.where(present, starts, -1)
    return Panel("memory", f"memory, {width} per row", rows, cols, labels, padding,
                 indices, tiles, words, bytes_, bits)


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
