"""A :class:`~teach.draw.scene.Scene` written as SVG text, and as one
self-contained HTML page where hovering links an element and its memory cell.

The SVG is written directly, without matplotlib: every label is a
``<text>`` (searchable, editable), and every cell a ``<g class="cell">``
carrying the numbers it shows as data attributes (``data-offset``,
``data-index``, ``data-tile``, ``data-padding``), which is what the HTML
view links by and what the tests read back.  Geometry and colours are
:mod:`teach.draw.geometry`'s and :mod:`teach.draw.palette`'s, shared with the
matplotlib renderer.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.teach.draw.scene import scene
>>> text = svg(scene(shape("f32[3,5]{1,0:T(2,2)}")))
>>> text.count('class="cell"'), text.count('class="cell pad"')
(30, 18)
>>> '<text' in text and 'data-offset="17" data-index="2,3"' in text
True
"""

from __future__ import annotations

from html import escape

from ...spec import format_shape
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
    wrapped,
)
from .labels import css_font_family, display_chars, label
from .palette import (
    CELL_EDGE,
    GAP_FILL,
    MUTED_TEXT,
    PADDING_HATCH,
    WORD_MARK,
    colour_tiles,
    level_colour,
)

#: Pixels per cell.
CELL = 36


def _n(x: float) -> str:
    # Short numbers keep the file small.
    return f"{x * CELL:.1f}".rstrip("0").rstrip(".")


def _font(chars: int, share: float = 0.8) -> float:
    return round(max(6.0, min(0.42 * CELL, share * CELL / (0.62 * max(chars, 1)))), 1)


def svg(scene, lang: str = "en", fit: bool = False) -> str:
    """The picture as a standalone SVG document, its words in ``lang``: its
    size in pixels, or with ``fit`` as wide as what holds it (the ``viewBox``
    keeps the proportions), for a page that must fit any window."""
    places, memory_place, span_x, span_y = placement(scene)
    described = legend_lines(scene, lang)
    caption = round(0.4 * CELL, 1)
    legend = wrapped(described, (span_x + 0.1) * CELL, caption)
    height = span_y + 0.8 + 0.7 * len(legend)
    widest = max(len(str(int(p.labels.max()))) for p in (*scene.panels, scene.memory))
    number = _font(widest)
    colours = colour_tiles(*(p.tiles[0] for p in (*scene.panels, scene.memory)))
    size = ('width="100%"' if fit
            else f'width="{_n(span_x + 0.4)}" height="{_n(height)}"')
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" {size} '
           f'viewBox="{_n(-0.2)} 0 {_n(span_x + 0.4)} {_n(height)}" '
           f'font-family="{css_font_family(lang)}">',
           f"<title>{escape(described[0])}</title><desc>{escape('; '.join(described[1:]))}</desc>",
           '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
           f'patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff"/>'
           f'<line x1="0" y1="0" x2="0" y2="8" stroke="{PADDING_HATCH}" stroke-width="2"/>'
           '</pattern></defs>',
           f'<style>.cell rect{{stroke:{CELL_EDGE};stroke-width:0.8}}'
           '.cell text{text-anchor:middle;dominant-baseline:central}'
           f'.pad text{{fill:{MUTED_TEXT};font-style:italic}}'
           f'.muted{{fill:{MUTED_TEXT}}}</style>',
           f'<rect x="{_n(-0.2)}" y="0" width="{_n(span_x + 0.4)}" height="{_n(height)}" '
           'fill="#fff"/>']
    for k, (panel, place) in enumerate(zip(scene.panels, places)):
        out += _panel(scene, panel, place, f"array{k}", colours, number, lang)
    out += _panel(scene, scene.memory, memory_place, "memory", colours, number, lang)
    for i, line in enumerate(legend):
        out.append(f'<text class="legend" x="0" y="{_n(span_y + 1.1 + 0.7 * i)}" '
                   f'font-size="{caption}">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def _panel(scene, panel, place, name, colours, number, lang) -> list[str]:
    rmap, rgaps = slot_positions(panel.rows)
    cmap, cgaps = slot_positions(panel.cols)
    n_rows, n_cols = len(panel.rows.slots()), len(panel.cols.slots())
    x0, y0 = place.x, place.y
    small_memory = panel.kind == "memory" and scene.cells <= 64 and scene.shape.rank >= 1
    out = [f'<g class="panel" data-panel="{name}" data-kind="{panel.kind}">']
    for i, r in enumerate(panel.rows.shown):
        for j, c in enumerate(panel.cols.shown):
            if not panel.present[i, j]:
                continue
            x, y = x0 + cmap[c], y0 + rmap[r]
            pad = bool(panel.padding[i, j])
            index = ",".join(str(int(v)) for v in panel.indices[i, j]) if not (
                pad and panel.kind == "memory") else ""
            fill = "url(#hatch)" if pad else colours[int(panel.tiles[0][i, j])]
            label = int(panel.labels[i, j])
            out.append(
                f'<g class="cell{" pad" if pad else ""}" data-offset="{label}" '
                f'data-index="{index}" data-tile="{int(panel.tiles[0][i, j])}" '
                f'data-padding="{int(pad)}">'
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{CELL}" height="{CELL}" fill="{fill}"/>'
                f'<text x="{_n(x + 0.5)}" y="{_n(y + (0.36 if small_memory else 0.5))}" '
                f'font-size="{number}">{label}</text>'
                + (f'<text class="muted" x="{_n(x + 0.5)}" y="{_n(y + 0.76)}" '
                   f'font-size="{_font(2 + 2 * scene.shape.rank, 0.85)}">({index})</text>'
                   if small_memory and not pad else "")
                + "</g>")
    small = _font(4, 0.9)
    for k, gap in cgaps:
        cx, cy = x0 + k + 0.5, y0 + n_rows / 2
        padding = panel.cols.padding_in(gap)
        gap_label, size = fitted(gap_texts(gap.count, "columns", padding, lang),
                                 n_rows * CELL, small)
        out.append(f'<g class="gap" data-count="{gap.count}" data-padding="{padding}">'
                   f'<rect x="{_n(x0 + k)}" '
                   f'y="{_n(y0)}" width="{CELL}" height="{_n(n_rows)}" fill="{GAP_FILL}"/>'
                   f'<text class="muted" x="{_n(cx)}" y="{_n(cy)}" font-size="{size:.1f}" '
                   f'text-anchor="middle" dominant-baseline="central" '
                   f'transform="rotate(-90 {_n(cx)} {_n(cy)})">{gap_label}</text></g>')
    for k, gap in rgaps:
        cx, cy = x0 + n_cols / 2, y0 + k + 0.5
        padding = panel.rows.padding_in(gap)
        gap_label, size = fitted(gap_texts(gap.count, "rows", padding, lang),
                                 n_cols * CELL, small)
        out.append(f'<g class="gap" data-count="{gap.count}" data-padding="{padding}">'
                   f'<rect x="{_n(x0)}" '
                   f'y="{_n(y0 + k)}" width="{_n(n_cols)}" height="{CELL}" fill="{GAP_FILL}"/>'
                   f'<text class="muted" x="{_n(cx)}" y="{_n(cy)}" font-size="{size:.1f}" '
                   'text-anchor="middle" dominant-baseline="central">'
                   f'{gap_label}</text></g>')
    for c, k in cmap.items():
        out.append(f'<text class="muted head" x="{_n(x0 + k + 0.5)}" y="{_n(y0 - 0.35)}" '
                   f'font-size="{small}" text-anchor="middle">{c}</text>')
    for i, (r, k) in enumerate(rmap.items()):
        label = int(panel.labels[i, 0]) if panel.kind == "memory" else r
        if panel.kind == "memory" and (label < 0 or panel.cols.shown[0] != 0):
            continue
        out.append(f'<text class="muted head" x="{_n(x0 - 0.15)}" y="{_n(y0 + k + 0.5)}" '
                   f'font-size="{small}" text-anchor="end" dominant-baseline="central">'
                   f'{label}</text>')
    for level in range(len(panel.tiles), 0, -1):
        segs = boundaries(panel, panel.tiles[level - 1], rmap, cmap, x0, y0, level == 1)
        out.append(_path(segs, level_colour(level), 3.0 if level == 1 else 2.0,
                         f"level{level}"))
    if panel.words is not None:
        out.append(_path(word_marks(panel, rmap, cmap, x0, y0, panel.words, 0.55),
                         WORD_MARK, 4.0, "word"))
        out.append(_path(word_marks(panel, rmap, cmap, x0, y0, panel.bytes, 0.8)
                         + byte_ticks(panel, scene.shape.element_bits, rmap, cmap, x0, y0,
                                      0.88), WORD_MARK, 1.5, "byte"))
    lines = title_lines(panel, lang)
    width = place.room * CELL
    font = round(max(7.0, min(0.42 * CELL, width / (0.6 * max(map(display_chars, lines))))),
                 1)
    tx = _n(x0 - place.header)
    out.append(f'<text class="title" x="{tx}" y="{_n(y0 - 0.85) }" font-size="{font}">'
               f'<tspan x="{tx}" dy="{-1.15 * font:.1f}">{escape(lines[0])}</tspan>'
               f'<tspan x="{tx}" dy="{1.15 * font:.1f}">{escape(lines[1])}</tspan></text>')
    out.append("</g>")
    return out


def _path(segs, colour, width, name) -> str:
    d = "".join(f"M{_n(a[0])} {_n(a[1])}L{_n(b[0])} {_n(b[1])}" for a, b in segs)
    return (f'<path class="boundary {name}" d="{d}" stroke="{colour}" '
            f'stroke-width="{width}" stroke-linecap="square" fill="none"/>')


# --- the HTML view ---------------------------------------------------------------

_SCRIPT = """
(function () {
  var cells = document.querySelectorAll('g.cell');
  var byOffset = {};
  cells.forEach(function (c) {
    (byOffset[c.dataset.offset] = byOffset[c.dataset.offset] || []).push(c);
  });
  var info = document.getElementById('info');
  function show(cell, on) {
    (byOffset[cell.dataset.offset] || []).forEach(function (c) {
      c.classList.toggle('hl', on);
    });
    if (on) {
      // The words come from the page's language, on the #info element.
      var where = cell.dataset.padding === '1' ? info.dataset.padding :
        info.dataset.element.replace('{index}', cell.dataset.index);
      info.textContent = info.dataset.offset.replace('{offset}', cell.dataset.offset) + where;
    }
  }
  cells.forEach(function (c) {
    c.addEventListener('mouseenter', function () { show(c, true); });
    c.addEventListener('mouseleave', function () { show(c, false); });
  });
  // The tests open the page as  page.html#selftest : hover every cell in
  // turn, as a pointer would, and write what lit up into the page.
  if (location.hash === '#selftest') {
    var report = [];
    cells.forEach(function (c) {
      c.dispatchEvent(new MouseEvent('mouseenter'));
      var lit = [];
      document.querySelectorAll('g.cell.hl').forEach(function (h) {
        lit.push([h.closest('g.panel').dataset.panel, h.dataset.offset, h.dataset.index]);
      });
      report.push({panel: c.closest('g.panel').dataset.panel, offset: c.dataset.offset,
                   index: c.dataset.index, info: info.textContent, lit: lit});
      c.dispatchEvent(new MouseEvent('mouseleave'));
    });
    var out = document.createElement('pre');
    out.id = 'selftest';
    out.style.whiteSpace = 'pre-wrap';   // a report as wide as the page
    out.style.wordBreak = 'break-all';
    out.textContent = JSON.stringify(report);
    document.body.appendChild(out);
    // and whether the picture fits the window: no horizontal scrolling
    var root = document.documentElement;
    var fit = document.createElement('pre');
    fit.id = 'fit';
    fit.textContent = JSON.stringify({
      window: root.clientWidth, page: root.scrollWidth,
      picture: document.querySelector('svg').getBoundingClientRect().width});
    document.body.appendChild(fit);
  }
})();
"""


def page(scene, lang: str = "en") -> str:
    """One self-contained HTML page (inline SVG, CSS and script; nothing
    fetched): hovering an element highlights its memory cell, and hovering a
    memory cell highlights its element.  Its words are in ``lang``.  The
    picture fits the window, however wide the array: it scales to the page's
    width (and, on a wide screen, to its height), so a projector shows it
    whole without scrolling."""
    title = escape(format_shape(scene.shape))
    link = ('<a href="https://openxla.org/xla/tiled_layout">'
            f'{escape(label(lang, "Tiled layout"))}</a>')
    intro = label(lang, "Hover an element to see where it sits in memory, or a memory cell "
                  "to see which element it holds. Drawn by tilespec from XLA's {link} rules.",
                  link=link)
    words = " ".join(f'data-{key}="{escape(label(lang, english))}"' for key, english in (
        ("offset", "offset {offset}: "), ("padding", "padding"), ("element", "element ({index})")))
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>"
            f"body{{font-family:{css_font_family(lang)};margin:1em}}"
            "svg{display:block;width:100%;height:auto;max-height:calc(100vh - 2em)}"
            "#info{min-height:1.4em;font-size:1.1em}"
            "g.cell{cursor:crosshair}"
            "g.cell.hl rect{stroke:#000;stroke-width:4;filter:brightness(0.8)}"
            "</style></head><body>"
            f"<h1 style=\"font-size:1.2em\">{title}</h1>"
            f"<p>{intro}</p><p id=\"info\" {words}></p>\n"
            + svg(scene, lang, fit=True)
            + f"\n<script>{_SCRIPT}</script></body></html>\n")
