"""One array in two (or more) layouts, drawn one above the other with one
element marked in each: a counterexample to "these layouts put the elements
in one order" as a figure.  Each layout is the picture ``tilespec draw``
makes (:func:`teach.draw.figure.picture`), kept whole as a nested SVG; the
marked element's cells (in the array and, where memory shows it, in
memory) are outlined in vermillion, and the lines above say what differs.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> text = contrast([shape("f32[2,256]{1,0:T(128)}"), shape("f32[2,256]{1,0:T(8,128)}")],
...                 (0, 128), ["element (0,128): offset 128 in one, 1024 in the other"])
>>> text.count('data-index="0,128"') >= 2, "offset 128 in one" in text
(True, True)
>>> marked(text)
[(0, 128), (0, 128)]
"""

from __future__ import annotations

import re
from html import escape

from ...spec import Shape, TilespecError
from .figure import picture
from .labels import css_font_family
from .svg import CELL

#: The outline of the marked element's cells.
MARK = "#d55e00"
#: Space between the stacked pictures, and the height of a line of text, in pixels.
GAP, LINE = 0.6 * CELL, 0.6 * CELL

_SIZE = re.compile(r'<svg ([^>]*?)width="([\d.]+)" height="([\d.]+)"')


def contrast(shapes: list[Shape], element, lines=(), lang: str = "en") -> str:
    """The pictures of ``shapes`` (one array, several layouts) stacked in
    one SVG document, the cells of ``element`` outlined; ``lines`` of text
    above them."""
    if not shapes:
        raise TilespecError("contrast needs at least one layout to draw")
    index = ",".join(str(int(v)) for v in element)
    lines = list(lines)
    y = LINE * (len(lines) + 0.5)
    parts, width = [], 0.0
    for shape in shapes:
        text = picture(shape, lang).svg()
        size = _SIZE.search(text)
        if size is None:
            raise TilespecError("a picture without a size cannot be stacked")
        w, h = float(size.group(2)), float(size.group(3))
        parts.append(text.replace("<svg ", f'<svg x="0" y="{y:.1f}" ', 1))
        width, y = max(width, w), y + h + GAP
    font = round(0.4 * CELL, 1)
    head = [f'<text x="{CELL * 0.2:.1f}" y="{LINE * (k + 1):.1f}" font-size="{font}">'
            f"{escape(line)}</text>" for k, line in enumerate(lines)]
    # the texts must fit: a line wider than the pictures widens the figure
    width = max(width, *(0.6 * font * len(line) + CELL for line in lines)) if lines else width
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}" height="{y:.1f}" '
            f'viewBox="0 0 {width:.1f} {y:.1f}" font-family="{css_font_family(lang)}">'
            f"<style>g.cell[data-index=\"{index}\"] rect{{stroke:{MARK};stroke-width:6}}</style>"
            f'<rect width="{width:.1f}" height="{y:.1f}" fill="#fff"/>'
            + "".join(head) + "".join(parts) + "</svg>\n")


def marked(svg_text: str) -> list[tuple[int, ...]]:
    """The element each array panel of a :func:`contrast` figure marks and
    shows (one entry per picture that shows it in its array)."""
    style = re.search(r'g\.cell\[data-index="([\d,]*)"\]', svg_text)
    if style is None:
        return []
    index = style.group(1)
    shown = []
    for part in svg_text.split("<svg ")[2:]:
        start = part.find('data-panel="array0"')
        array = part[start:part.find('data-panel="memory"', start)]
        if start >= 0 and f'data-index="{index}"' in array:
            shown.append(tuple(int(v) for v in index.split(",")))
    return shown
