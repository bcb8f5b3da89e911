"""A layout drawn as a picture, like the source document's two figures.

The source document is XLA's "Tiled layout" page
(https://openxla.org/xla/tiled_layout); its Figure 1 is ``f32[3,5]`` tiled
2x2 and its Figure 2 is ``bf16[4,8]`` tiled ``(2,4)(2,1)``.

On the left, the logical array as a grid (a row of 2-D slices for rank >= 3):
each element is coloured by its first-level tile and labelled with its
offset; padding cells, inside a tile but beyond a dim, are hatched and
labelled with the offset where that padding sits.  On the right (or below),
memory order wrapped into rows: each cell labelled with its offset and
coloured like the element stored there, hatched when it is padding.  Black
lines bound first-level tiles, later levels' tiles are bounded in
vermillion, blue, green.  For packed types (bf16, s8, s4 ``E(4)``) blue
marks show 32-bit word and byte boundaries in memory.  A large layout is
drawn elided: the first tiles in full, a tile too wide folded, and the rest
counted (:mod:`teach.draw.axes`).

The numbers are worked out by :mod:`teach.draw.scene` from :mod:`spec.index`;
:mod:`teach.draw.render` draws them with matplotlib (PNG), :mod:`teach.draw.svg`
as SVG and as an HTML page where hovering an element highlights its memory cell.

Figure 1 of the source document, f32[3,5] tiled 2x2:

>>> from tilespec.spec.text import parse_array_shape as shape
>>> p = picture(shape("f32[3,5]{1,0:T(2,2)}"))
>>> p.grid.tolist()
[[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]]
>>> p.strip_rows()[2], p.strip_elements()[2]
([8, None, 10, None], [(0, 4), None, (1, 4), None])
>>> p.tiles.tolist()
[[0, 0, 1, 1, 2], [0, 0, 1, 1, 2], [3, 3, 4, 4, 5]]
>>> big = picture(shape("f32[1024,1024]{1,0:T(8,128)}"))
>>> big.elided, big.grid.shape
(True, (16, 18))

Its words in Korean or Spanish (:mod:`teach.draw.labels`):

>>> "빗금 = 채우기" in picture(shape("f32[3,5]{1,0:T(2,2)}"), lang="ko").svg()
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spec import Shape
from .labels import SCRIPT_SAMPLE, check_language
from .palette import colour_tiles
from .render import figure, png_bytes, save
from .scene import Scene, scene
from .svg import page, svg


@dataclass(frozen=True, eq=False)
class Picture:
    """A picture of a layout: its :class:`~teach.draw.scene.Scene` (every
    number drawn), rendered on demand.

    The properties below read the first array panel and the memory panel
    without padding and elision marks: ``grid`` and ``tiles`` are the
    offsets and first-level tile ids of the elements shown, ``strip_rows``
    the memory rows shown.  ``lang`` is the language of its words.
    """

    scene: Scene
    lang: str = "en"

    def __post_init__(self) -> None:
        check_language(self.lang)

    @property
    def shape(self) -> Shape:
        return self.scene.shape

    @property
    def width(self) -> int:
        return self.scene.width

    @property
    def cells(self) -> int:
        return self.scene.cells

    @property
    def elided(self) -> bool:
        s = self.scene
        return bool(s.more_slices or any(
            a.elided for p in (*s.panels, s.memory) for a in (p.rows, p.cols)))

    def _elements(self, values) -> np.ndarray:
        p = self.scene.panels[0]
        rows = ~p.padding.all(axis=1)
        cols = ~p.padding.all(axis=0)
        return values[np.ix_(rows, cols)]

    @property
    def grid(self) -> np.ndarray:
        return self._elements(self.scene.panels[0].labels)

    @property
    def tiles(self) -> np.ndarray:
        return self._elements(self.scene.panels[0].tiles[0])

    @property
    def subtiles(self) -> tuple:
        return tuple(self._elements(t) for t in self.scene.panels[0].tiles[1:])

    def strip_rows(self) -> list[list[int | None]]:
        """The label of each memory cell shown, row by row: its offset, or
        ``None`` for padding."""
        m = self.scene.memory
        return [[int(v) if ok else None for v, ok, here in zip(lab, ~pad, pres) if here]
                for lab, pad, pres in zip(m.labels, m.padding, m.present)]

    def strip_elements(self) -> list[list[tuple | None]]:
        """The logical index stored in each memory cell shown, row by row."""
        m = self.scene.memory
        return [[tuple(int(x) for x in idx) if not pad else None
                 for idx, pad, here in zip(ids, pads, pres) if here]
                for ids, pads, pres in zip(m.indices, m.padding, m.present)]

    def tile_colours(self) -> dict[int, str]:
        """The fill of each first-level tile drawn; tiles that touch differ."""
        s = self.scene
        return colour_tiles(*(p.tiles[0] for p in (*s.panels, s.memory)))

    def figure(self):
        """The picture as a matplotlib figure (Agg canvas, never shown)."""
        return figure(self.scene, self.lang)

    def save(self, path, dpi: int = 200) -> None:
        """Write the picture; the format follows the name: .svg (written
        directly, text kept as text), .html (the hover view), .png or .pdf
        (matplotlib; PNG at ``dpi``, 200 being slide resolution)."""
        suffix = str(path).lower().rsplit(".", 1)[-1]
        if suffix in ("svg", "html"):
            text = self.svg() if suffix == "svg" else self.html()
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return
        save(self.scene, path, dpi, self.lang)

    def svg(self) -> str:
        """The picture as SVG text: every label a ``<text>``, every cell a
        group carrying its numbers (``data-offset``, ``data-index``, ...)."""
        return svg(self.scene, self.lang)

    def html(self) -> str:
        """A self-contained HTML page: hovering an element highlights its
        memory cell, and the other way round."""
        return page(self.scene, self.lang)

    # A notebook shows a picture as PNG; words in a script beyond Latin
    # (Hangul) as SVG instead, whose text the reader's browser draws with
    # its own fonts, whatever fonts the kernel's machine has.
    def _repr_png_(self) -> bytes | None:
        if SCRIPT_SAMPLE[self.lang]:
            return None
        return png_bytes(self.scene, lang=self.lang)

    def _repr_svg_(self) -> str | None:
        return self.svg() if SCRIPT_SAMPLE[self.lang] else None


def picture(shape: Shape, lang: str = "en") -> Picture:
    """Work out everything a picture of ``shape`` shows; its words in
    ``lang`` ('en', 'ko' or 'es')."""
    return Picture(scene(shape), lang)


def draw(shape: Shape, path=None, lang: str = "en") -> Picture:
    """The picture of ``shape``, written to ``path`` (.png, .svg or .html)
    if given, its words in ``lang`` ('en', 'ko' or 'es').  The returned
    :class:`Picture` shows itself in a notebook."""
    p = picture(shape, lang)
    if path is not None:
        p.save(path)
    return p
