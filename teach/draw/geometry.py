"""Where things go in a picture, in cell units: shared by the matplotlib
renderer (:mod:`teach.draw.render`) and the SVG/HTML writer
(:mod:`teach.draw.svg`), so the two draw the same scene the same way.

A panel's cells sit on slots (:mod:`teach.draw.axes`); slot ``k`` of the
columns spans x in [x0 + k, x0 + k + 1].  Boundaries are line segments in
the same units.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.teach.draw.scene import scene
>>> s = scene(shape("f32[3,5]{1,0:T(2,2)}"))
>>> arrays, memory, width, height = placement(s)
>>> len(arrays), memory.x > arrays[0].x + 6, height
(1, True, 8.6)
>>> legend_lines(s)
['f32[3,5]{1,0:T(2,2)}', 'colour + black lines = tile (2,2): 2 along dim 0 (rows) x 2 along dim 1 (columns)']
>>> legend_lines(s, "ko")[1]
'색 + 검은 선 = 타일 (2,2): 차원 0 (행) 방향 2 x 차원 1 (열) 방향 2'
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec import COMBINE, format_shape
from .axes import Gap
from .labels import display_chars, label
from .palette import level_name

#: Memory goes right of the array panels while the picture stays this wide.
SIDE_BY_SIDE = 60
#: Columns of room each panel gets at least, so its title stays legible.
MIN_PANEL = 6
#: Width of an average character of the labels, in ems (DejaVu Sans).
EM_WIDTH = 0.62


@dataclass(frozen=True)
class Place:
    """A panel's top-left cell corner, in cell units, its header width and
    the room its title may take (header included)."""

    x: float
    y: float
    header: float
    room: float = 0.0


def slot_positions(axis) -> tuple[dict[int, int], list[tuple[int, Gap]]]:
    """Slot number of each shown index, and (slot, gap) for each gap."""
    shown, gaps = {}, []
    for k, slot in enumerate(axis.slots()):
        if isinstance(slot, Gap):
            gaps.append((k, slot))
        else:
            shown[slot] = k
    return shown, gaps


def _header(panel) -> float:
    if panel.kind == "memory":
        widest = max(len(str(r)) for r in panel.labels[:, 0].tolist())
    else:
        widest = max(len(str(i)) for i in panel.rows.shown)
    return 0.45 + 0.42 * widest


def placement(scene) -> tuple[list[Place], Place, float, float]:
    """Where the array panels and the memory panel go; the total span."""
    top = 2.6  # room for a two-line title and the column numbers
    places, x = [], 0.0
    for panel in scene.panels:
        h = _header(panel)
        room = h + max(len(panel.cols.slots()), MIN_PANEL)
        places.append(Place(x + h, top, h, room))
        x += room + 1.0
    height = len(scene.panels[0].rows.slots())
    h = _header(scene.memory)
    mem_w = len(scene.memory.cols.slots())
    if x + h + mem_w <= SIDE_BY_SIDE:
        memory = Place(x + h + 0.5, top, h, h + max(mem_w, MIN_PANEL))
        span_x = memory.x - h + memory.room
        span_y = top + max(height, len(scene.memory.rows.slots()))
    else:
        memory = Place(h, top + height + top + 0.6, h, h + max(mem_w, MIN_PANEL))
        span_x = max(x - 1.0, memory.room)
        span_y = memory.y + len(scene.memory.rows.slots())
    return places, memory, span_x, span_y


def boundaries(panel, ids, rmap, cmap, x0, y0, outer: bool) -> list:
    """Segments between slot-adjacent cells of different tiles; with
    ``outer``, also the edge of the drawn cells (not towards a gap)."""
    rows, cols = panel.rows.shown, panel.cols.shown
    segs = []
    n_r, n_c = len(rows), len(cols)
    row_gaps = {k for k, _ in slot_positions(panel.rows)[1]}
    col_gaps = {k for k, _ in slot_positions(panel.cols)[1]}
    present = panel.present
    for i in range(n_r):
        for j in range(n_c):
            if not present[i, j]:
                continue
            x, y = x0 + cmap[cols[j]], y0 + rmap[rows[i]]
            # right and below neighbours
            for (di, dj, seg) in ((0, 1, [(x + 1, y), (x + 1, y + 1)]),
                                  (1, 0, [(x, y + 1), (x + 1, y + 1)]),
                                  (0, -1, [(x, y), (x, y + 1)]),
                                  (-1, 0, [(x, y), (x + 1, y)])):
                ni, nj = i + di, j + dj
                inside = 0 <= ni < n_r and 0 <= nj < n_c
                adjacent = inside and (
                    (di and rmap[rows[ni]] == rmap[rows[i]] + di)
                    or (dj and cmap[cols[nj]] == cmap[cols[j]] + dj))
                if adjacent and present[ni, nj]:
                    if (di, dj) in ((0, 1), (1, 0)) and ids[ni, nj] != ids[i, j]:
                        segs.append(seg)
                elif outer and not (
                        (di and rmap[rows[i]] + di in row_gaps)
                        or (dj and cmap[cols[j]] + dj in col_gaps)):
                    segs.append(seg)
    return segs


def word_marks(panel, rmap, cmap, x0, y0, unit, start) -> list:
    """Marks on the lower part of the edge between two cells side by side
    in different words (or bytes)."""
    segs = []
    for i in range(len(panel.rows.shown)):
        for j in range(len(panel.cols.shown) - 1):
            a, b = panel.cols.shown[j], panel.cols.shown[j + 1]
            if b != a + 1 or not (panel.present[i, j] and panel.present[i, j + 1]):
                continue
            if unit[i, j] != unit[i, j + 1]:
                x, y = x0 + cmap[b], y0 + rmap[panel.rows.shown[i]]
                segs.append([(x, y + start), (x, y + 1)])
    return segs


def byte_ticks(panel, element_bits, rmap, cmap, x0, y0, start) -> list:
    """Marks on the lower part of a cell where a byte boundary falls inside
    the element stored there (bit ``b`` with ``b % 8 == 0`` strictly inside
    the cell's bits)."""
    segs: list[list[tuple[float, float]]] = []
    if panel.bits is None or element_bits <= 8:
        return segs
    for i, r in enumerate(panel.rows.shown):
        for j, c in enumerate(panel.cols.shown):
            first = int(panel.bits[i, j])
            if first < 0:
                continue
            x, y = x0 + cmap[c], y0 + rmap[r]
            for b in range(first - first % 8 + 8, first + element_bits, 8):
                dx = (b - first) / element_bits
                segs.append([(x + dx, y + start), (x + dx, y + 1)])
    return segs


def legend_lines(scene, lang: str = "en") -> list[str]:
    """The lines under the picture: the shape, what colours and lines mean."""
    shape = scene.shape
    tiles = shape.layout.tiles
    lines = [format_shape(shape)]
    if not tiles:
        lines.append(label(lang, "no tiling: row-major in the physical dim order"))
    else:
        parts = [label(lang, "colour + black lines = tile {tile}: {reach}",
                       tile=tiles[0], reach=tile_reach(shape, lang))]
        for level, tile in enumerate(tiles[1:], start=2):
            parts.append(label(lang, "{colour} lines = tile {tile}",
                               colour=label(lang, level_name(level)), tile=tile))
        lines.append("; ".join(parts))
    if scene.packed:
        bits = shape.element_bits
        lines.append(label(lang, "{bits}-bit elements, {per} to a 32-bit word: long blue "
                           "mark = word boundary, short blue mark = byte boundary",
                           bits=bits, per=32 // bits))
    if scene.more_slices:
        lines.append(label(lang, "{shown} of {total} slices shown ({more} more not drawn)",
                           shown=len(scene.panels),
                           total=len(scene.panels) + scene.more_slices,
                           more=scene.more_slices))
    return lines




def wrapped(lines, width: float, font: float) -> list[str]:
    """``lines`` broken at spaces so that none is wider than ``width`` at
    ``font`` (same unit; :data:`EM_WIDTH` ems an average character, wide
    characters as :func:`~tilespec.teach.draw.labels.display_chars` counts
    them): a caption never runs past the picture.  A clause after ``; ``
    starts its own line when the whole does not fit.

    >>> wrapped(["tile (2,2): 2 along dim 0 (rows); vermillion lines = tile (2,1)"], 220, 10)
    ['tile (2,2): 2 along dim 0 (rows);', 'vermillion lines = tile (2,1)']
    >>> wrapped(["short"], 200, 10)
    ['short']
    """
    room = width / (EM_WIDTH * font)
    out: list[str] = []
    for line in lines:
        if display_chars(line) <= room:
            out.append(line)
            continue
        clauses = [c + ";" for c in line.split("; ")]
        clauses[-1] = clauses[-1][:-1]
        for clause in clauses:
            current = ""
            for word in clause.split(" "):
                candidate = f"{current} {word}" if current else word
                if current and display_chars(candidate) > room:
                    out.append(current)
                    current = word
                else:
                    current = candidate
            out.append(current)
    return out


def tile_reach(shape, lang: str = "en") -> str:
    """Which logical dims the first tile's entries run along, in the tile's
    order (physical, major first); in the array panel dim rank-2 is the rows
    and dim rank-1 the columns.

    >>> from tilespec.spec.text import parse_array_shape as shape
    >>> tile_reach(shape("f32[8,8]{0,1:T(2,4)}"))
    '2 along dim 1 (columns) x 4 along dim 0 (rows)'
    >>> tile_reach(shape("f32[4,6]{1,0:T(*,4)}")), tile_reach(shape("s32[]{:T(128)}"))
    ('4 along dims 0,1 merged (*)', '128 along an added unit dim')
    >>> tile_reach(shape("f32[8,8]{0,1:T(2,4)}"), "es")
    '2 a lo largo de la dim 1 (columnas) x 4 a lo largo de la dim 0 (filas)'
    """
    rank, sizes = shape.rank, shape.layout.tiles[0].sizes
    order = shape.physical_order
    roles = {rank - 2: "rows", rank - 1: "columns"} if rank >= 2 else {0: "columns"}
    parts, merged = [], []
    for j, t in enumerate(sizes):
        q = rank - len(sizes) + j
        if q < 0:
            parts.append(label(lang, "{t} along an added unit dim", t=t))
            continue
        dim = order[q]
        if t == COMBINE:
            merged.append(dim)
        elif merged:
            parts.append(label(lang, "{t} along dims {dims} merged (*)", t=t,
                               dims=",".join(map(str, merged + [dim]))))
            merged = []
        elif dim in roles:
            parts.append(label(lang, f"{{t}} along dim {{dim}} ({roles[dim]})", t=t, dim=dim))
        else:
            parts.append(label(lang, "{t} along dim {dim}", t=t, dim=dim))
    return " x ".join(parts)


def fitted(options, width: float, font: float, least: float = 0.75) -> tuple[str, float]:
    """The first of ``options`` (texts, longest first) that fits ``width``
    at no less than ``least`` of ``font``; else the last, shrunk to fit.
    Width and font in the same unit.

    >>> fitted(["… 1008 more rows …", "+1008 rows"], width=100, font=12)
    ('+1008 rows', 12)
    """
    for text in options:
        size = min(font, width / (EM_WIDTH * max(display_chars(text), 1)))
        if size >= least * font:
            return text, size
    return options[-1], size


def gap_texts(count: int, what: str, padding: int = 0, lang: str = "en") -> list[str]:
    """How a gap of ``count`` rows or columns, ``padding`` of them padding,
    is labelled, longest first.

    >>> gap_texts(254, "columns", padding=84)[:2]
    ['… 170 more columns + 84 of padding …', '+170 columns +84 padding']
    >>> gap_texts(1008, "rows", lang="es")
    ['… 1008 filas más …', '+1008 filas', '+1008']
    """
    data = count - padding
    if not padding:
        return [label(lang, f"… {{count}} more {what} …", count=count),
                label(lang, f"+{{count}} {what}", count=count), f"+{count}"]
    if not data:
        return [label(lang, f"… {{count}} more {what}, all padding …", count=count),
                label(lang, f"+{{count}} {what} of padding", count=count),
                label(lang, "+{count} pad", count=count)]
    return [label(lang, f"… {{data}} more {what} + {{padding}} of padding …",
                  data=data, padding=padding),
            label(lang, f"+{{data}} {what} +{{padding}} padding", data=data, padding=padding),
            label(lang, "+{data} +{padding} pad", data=data, padding=padding)]


def title_lines(panel, lang: str = "en") -> tuple[str, str]:
    """The two title lines above a panel."""
    if panel.kind == "memory":
        return (label(lang, "memory: each cell's offset"),
                label(lang, "{n} per row; hatched = padding", n=panel.cols.size))
    if panel.title == "array":
        return (label(lang, "array: offset of each element"), label(lang, "hatched = padding"))
    return (label(lang, "slice {where}", where=panel.title), label(lang, "offset of each element"))
