"""A :class:`~teach.draw.scene.Scene` drawn with matplotlib (Agg, no window):
the PNG (and PDF) pictures and a notebook's inline image.

Where each panel goes is :func:`~teach.draw.geometry.placement`'s, shared with
the SVG writer (:mod:`teach.draw.svg`), so the PNG and the SVG agree; then
cells, labels, elision marks, tile boundaries and word/byte marks are drawn.
Every number drawn is a number of the scene.  Cell labels are glyph outlines
placed with numpy (:class:`Labels`), titles and legends matplotlib text
(kept as text in a PDF, ``svg.fonttype = 'none'`` for any SVG).

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.teach.draw.scene import scene
>>> png_bytes(scene(shape("f32[3,5]{1,0:T(2,2)}")), dpi=30)[:4]
b'\x89PNG'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...spec import TilespecError

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

import io

from .geometry import (
    boundaries,
    byte_ticks,
    fitted,
    gap_texts,
    legend_lines,
    placement,
    slot_positions,
    title_lines,
    word_marks,
)
from .labels import SCRIPT_SAMPLE, display_chars, font_family
from .palette import (
    CELL_EDGE,
    GAP_FILL,
    MUTED_TEXT,
    PADDING_FILL,
    PADDING_HATCH,
    WORD_MARK,
    colour_tiles,
    level_colour,
)

#: Matplotlib settings for every picture: real text in SVG, no timestamps.
RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "svg.hashsalt": "tilespec", "font.family": "DejaVu Sans"}


def _font(cell_points: float, chars: int, share: float = 0.8) -> float:
    # A digit is about 0.6 em wide; keep the label inside the cell.
    return max(3.0, min(0.42 * cell_points, share * cell_points / (0.62 * max(chars, 1))))


def figure(scene, lang: str = "en"):
    """The scene as a matplotlib figure, its words in ``lang``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    places, memory_place, span_x, span_y = placement(scene)
    legend = legend_lines(scene, lang)
    bottom = 0.6 + 0.9 * len(legend)
    cell = min(0.5, max(0.2, 14 / span_x), max(0.2, 9 / span_y))
    fig = Figure(figsize=(span_x * cell + 0.4, (span_y + bottom) * cell + 0.3))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-0.2, span_x + 0.2)
    ax.set_ylim(span_y + bottom, -0.1)
    ax.axis("off")
    pts = cell * 72
    widest = max(len(str(int(p.labels.max()))) for p in (*scene.panels, scene.memory))
    fonts: dict[str, Any] = {"number": _font(pts, widest), "small": _font(pts, 4, 0.9),
             "title": max(6.0, min(12.0, 0.48 * pts)), "pts": pts, "cell": cell,
             "lang": lang}
    colours = colour_tiles(*(p.tiles[0] for p in (*scene.panels, scene.memory)))
    fonts["labels"] = labels = Labels(pts)
    for panel, place in zip(scene.panels, places):
        _panel(ax, scene, panel, place, colours, fonts)
    _panel(ax, scene, scene.memory, memory_place, colours, fonts)
    labels.draw(ax)
    ax.text(0, span_y + 0.5, "\n".join(legend), ha="left", va="top",
            fontsize=max(6.0, fonts["title"] * 0.85), linespacing=1.3)
    return fig


def _panel(ax, scene, panel, place, colours, f) -> None:
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Rectangle

    rmap, rgaps = slot_positions(panel.rows)
    cmap, cgaps = slot_positions(panel.cols)
    n_rows, n_cols = len(panel.rows.slots()), len(panel.cols.slots())
    x0, y0 = place.x, place.y
    memory = panel.kind == "memory"
    small_memory = memory and scene.cells <= 64 and scene.shape.rank >= 1
    fills, pads = [], []
    for i, r in enumerate(panel.rows.shown):
        for j, c in enumerate(panel.cols.shown):
            if not panel.present[i, j]:
                continue
            x, y = x0 + cmap[c], y0 + rmap[r]
            if panel.padding[i, j]:
                pads.append(Rectangle((x, y), 1, 1))
                f["labels"].add(str(panel.labels[i, j]), x + 0.5, y + 0.5, f["number"],
                                MUTED_TEXT, italic=True)
                continue
            fills.append(Rectangle((x, y), 1, 1, facecolor=colours[int(panel.tiles[0][i, j])]))
            label_y = y + (0.36 if small_memory else 0.5)
            f["labels"].add(str(panel.labels[i, j]), x + 0.5, label_y, f["number"], "black")
            if small_memory:
                f["labels"].add("(" + ",".join(map(str, panel.indices[i, j])) + ")",
                                x + 0.5, y + 0.76,
                                _font(f["pts"], 2 + 2 * scene.shape.rank, 0.85), MUTED_TEXT)
    ax.add_collection(PatchCollection(fills, match_original=True, edgecolor=CELL_EDGE,
                                      linewidth=0.5))
    ax.add_collection(PatchCollection(pads, facecolor=PADDING_FILL, edgecolor=PADDING_HATCH,
                                      hatch="///", linewidth=0.5))
    ax.add_collection(PatchCollection(pads, facecolor="none", edgecolor=CELL_EDGE,
                                      linewidth=0.5))
    _gaps(ax, panel, x0, y0, n_rows, n_cols, rgaps, cgaps, f)
    _headers(ax, panel, place, rmap, cmap, f)
    for level in range(len(panel.tiles), 0, -1):
        segs = boundaries(panel, panel.tiles[level - 1], rmap, cmap, x0, y0, level == 1)
        ax.add_collection(LineCollection(segs, colors=level_colour(level),
                                         linewidths=2.0 if level == 1 else 1.4,
                                         capstyle="projecting"))
    if panel.words is not None:
        ax.add_collection(LineCollection(word_marks(panel, rmap, cmap, x0, y0, panel.words, 0.55),
                                         colors=WORD_MARK, linewidths=2.6))
        ax.add_collection(LineCollection(
            word_marks(panel, rmap, cmap, x0, y0, panel.bytes, 0.8)
            + byte_ticks(panel, scene.shape.element_bits, rmap, cmap, x0, y0, 0.88),
            colors=WORD_MARK, linewidths=0.9))
    _title(ax, panel, place, n_cols, f)


def _gaps(ax, panel, x0, y0, n_rows, n_cols, rgaps, cgaps, f) -> None:
    from matplotlib.patches import Rectangle
    for k, gap in cgaps:
        ax.add_patch(Rectangle((x0 + k, y0), 1, n_rows, facecolor=GAP_FILL, edgecolor="none"))
        label, size = fitted(gap_texts(gap.count, "columns", panel.cols.padding_in(gap),
                                       f["lang"]), n_rows * f["pts"], f["small"])
        ax.text(x0 + k + 0.5, y0 + n_rows / 2, label, rotation=90,
                ha="center", va="center", fontsize=size, color=MUTED_TEXT)
    for k, gap in rgaps:
        ax.add_patch(Rectangle((x0, y0 + k), n_cols, 1, facecolor=GAP_FILL, edgecolor="none"))
        label, size = fitted(gap_texts(gap.count, "rows", panel.rows.padding_in(gap),
                                       f["lang"]), n_cols * f["pts"], f["small"])
        ax.text(x0 + n_cols / 2, y0 + k + 0.5, label,
                ha="center", va="center", fontsize=size, color=MUTED_TEXT)


def _headers(ax, panel, place, rmap, cmap, f) -> None:
    labels = f["labels"]
    for c, k in cmap.items():
        labels.add(str(c), place.x + k + 0.5, place.y - 0.35, f["small"], MUTED_TEXT)
    for i, (r, k) in enumerate(rmap.items()):
        label = int(panel.labels[i, 0]) if panel.kind == "memory" else r
        if panel.kind == "memory" and (label < 0 or panel.cols.shown[0] != 0):
            continue
        labels.add(str(label), place.x - 0.15, place.y + k + 0.5, f["small"], MUTED_TEXT,
                   align="right")


def _title(ax, panel, place, n_cols, f) -> None:
    lines = title_lines(panel, f["lang"])
    width = place.room
    chars = max(display_chars(line) for line in lines)
    # Shrink to the panel's width so neighbouring titles never overlap.
    font = max(4.0, min(f["title"], width * f["cell"] * 72 / (0.62 * chars)))
    ax.text(place.x - place.header, place.y - 0.85, "\n".join(lines), ha="left",
            va="bottom", fontsize=font, linespacing=1.1)


#: Widest PNG, in pixels: a full-HD slide and some room to crop.
MAX_PNG_WIDTH = 2400


def save(scene, path, dpi: int = 200, lang: str = "en") -> None:
    """Write the picture with matplotlib; the format (png, pdf) follows the
    name.  A PNG is at ``dpi``, but never wider than ``MAX_PNG_WIDTH``."""
    import matplotlib
    with matplotlib.rc_context(rc(lang)):
        fig = figure(scene, lang)
        extra = {}
        if str(path).lower().endswith(".png"):
            dpi = min(dpi, MAX_PNG_WIDTH / fig.get_figwidth())
            # Light compression: encoding dominates the time otherwise.
            extra["pil_kwargs"] = {"compress_level": 2}
        fig.savefig(path, dpi=dpi, facecolor="white", metadata=_metadata(path), **extra)


def _metadata(path) -> dict:
    # No dates in the file, so the same layout always gives the same bytes.
    suffix = str(path).rsplit(".", 1)[-1].lower()
    if suffix == "svg":
        return {"Date": None, "Creator": "tilespec"}
    if suffix == "pdf":
        return {"CreationDate": None, "Creator": "tilespec"}
    return {"Software": "tilespec"}


def png_bytes(scene, dpi: int = 100, lang: str = "en") -> bytes:

    import matplotlib
    buf = io.BytesIO()
    with matplotlib.rc_context(rc(lang)):
        figure(scene, lang).savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()


class MissingFontError(TilespecError):
    """No installed font can draw the picture's words (a PNG of Korean
    labels on a machine without a Hangul font)."""


def installed_fonts(lang: str) -> list[str]:
    """The families of :func:`~teach.draw.labels.font_family` that matplotlib
    finds installed, first choice first."""
    from matplotlib import font_manager
    names = {f.name for f in font_manager.fontManager.ttflist}
    return [family for family in font_family(lang) if family in names]


def draws(family: str, letters: str) -> bool:
    """Whether an installed font of ``family`` has every one of ``letters``."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font
    return any(all(FT2Font(f.fname).get_char_index(ord(ch)) for ch in letters)
               for f in font_manager.fontManager.ttflist if f.name == family)


def rc(lang: str) -> dict:
    """:data:`RC` with the fonts that draw ``lang``: DejaVu Sans for digits
    and Latin letters, then the installed fonts of the language's list
    (matplotlib falls back glyph by glyph); a one-line error when none of
    them has the language's script, rather than boxes in place of letters."""
    fonts = installed_fonts(lang)
    sample = SCRIPT_SAMPLE[lang]
    if sample and not any(draws(family, sample) for family in fonts):
        raise MissingFontError(
            f"no installed font draws the {lang!r} labels in a PNG (tried "
            f"{', '.join(font_family(lang)[:-1])}); write .svg or .html instead, whose text "
            "the browser draws with its own fonts")
    return {**RC, "font.family": fonts}


class Labels:
    """Many short labels (digits, commas, brackets) drawn as one path per
    colour: glyph outlines are looked up once and placed with numpy, which
    is some fifty times quicker than a matplotlib ``Text`` per cell.  Only
    the PNG is drawn this way; the SVG keeps real text (:mod:`teach.draw.svg`).
    """

    def __init__(self, points_per_unit: float):
        self.unit = points_per_unit
        self.items: dict[str, list] = {}

    def add(self, text, x, y, size, colour, align="center", italic=False) -> None:
        self.items.setdefault(colour, []).append((text, x, y, size / self.unit, align, italic))

    def draw(self, ax) -> None:
        from matplotlib.collections import PathCollection
        from matplotlib.path import Path
        for colour, items in self.items.items():
            verts, codes = [], []
            for text, x, y, size, align, italic in items:
                advance = sum(_glyph(ch)[1] for ch in text) * size
                left = x - advance / 2 if align == "center" else x - advance
                base = y + 0.36 * size  # digits' middle on y (the axis points down)
                for ch in text:
                    path, width = _glyph(ch)
                    if len(path.vertices):
                        v = path.vertices * size
                        gx = left + v[:, 0] + (0.2 * v[:, 1] if italic else 0)
                        verts.append(np.column_stack([gx, base - v[:, 1]]))
                        codes.append(path.codes)
                    left += width * size
            if verts:
                path = Path(np.concatenate(verts), np.concatenate(codes))
                ax.add_collection(PathCollection([path], facecolors=colour,
                                                 edgecolors="none"))


_GLYPHS: dict = {}


def _glyph(ch: str):
    """The outline of ``ch`` at size 1 and its advance width."""
    if ch not in _GLYPHS:
        from matplotlib.font_manager import FontProperties
        from matplotlib.textpath import TextPath, TextToPath
        prop = FontProperties(family="DejaVu Sans", size=1)
        path = TextPath((0, 0), ch, size=1, prop=prop)
        width = TextToPath().get_text_width_height_descent(ch, prop, ismath=False)[0]
        _GLYPHS[ch] = (path, width)
    return _GLYPHS[ch]
