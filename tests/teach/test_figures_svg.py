"""What the figures show, read back from the files ``tilespec draw`` writes.

The SVG is parsed as XML: every cell's text is its ``data-offset``, which
is the spec's offset of its ``data-index`` (or a padding offset, where
``locate`` finds nothing); gap marks count what is left out; titles do not
overlap (measured with the font's real metrics); fills are the palette's
and dark text reads on each.  The document's Figures 1 and 2 are compared
with reference images kept in tests/data/figures: the SVG exactly, the PNG
within a small tolerance (set ``TILESPEC_UPDATE_FIGURES=1`` to rewrite them
after a deliberate change, and look at them).
"""

from __future__ import annotations

import os
import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from locations import DATA

from tilespec.cli import main
from tilespec.spec.index import locate, offset
from tilespec.spec.text import parse_array_shape
from tilespec.teach.draw.figure import picture
from tilespec.teach.draw.palette import OKABE_ITO, TILE_FILLS

SVG = "{http://www.w3.org/2000/svg}"
REFERENCES = DATA / "figures"
UPDATE = os.environ.get("TILESPEC_UPDATE_FIGURES") == "1"
FIGURES = {"figure1": "f32[3,5]{1,0:T(2,2)}", "figure2": "bf16[4,8]{1,0:T(2,4)(2,1)}"}
LAYOUTS = [*FIGURES.values(), "bf16[16,256]{1,0:T(8,128)(2,1)}",
           "f32[1024,1024]{1,0:T(8,128)}", "f32[4,20,300]{2,1,0:T(8,128)}",
           "s4[16,256]{1,0:T(8,128)(2,1)E(4)}", "f32[4,6]{1,0:T(*,4)}", "s32[]{:T(128)}",
           "f32[3,2,2]{2,1,0}"]  # slices narrower than their titles


def drawn_svg(tmp_path, text) -> ET.Element:
    out = tmp_path / "figure.svg"
    assert main(["draw", text, "-o", str(out)]) == 0
    return ET.parse(out).getroot()


def cells(root):
    for panel in root.iter(f"{SVG}g"):
        if panel.get("class") != "panel":
            continue
        for g in panel.iter(f"{SVG}g"):
            if (g.get("class") or "").startswith("cell"):
                yield panel.get("data-kind"), g


@pytest.mark.parametrize("text", LAYOUTS)
def test_the_svg_text_is_the_specs_numbers(tmp_path, capsys, text):
    shape = parse_array_shape(text)
    root = drawn_svg(tmp_path, text)
    capsys.readouterr()
    seen = {"array": 0, "memory": 0}
    for kind, g in cells(root):
        number = int(g.find(f"{SVG}text").text)
        assert number == int(g.get("data-offset"))
        index = tuple(int(x) for x in g.get("data-index").split(",")) \
            if g.get("data-index") else ()
        padding = g.get("data-padding") == "1"
        assert padding == ("pad" in g.get("class"))
        if kind == "array":
            if padding:
                assert locate(shape, number) is None
            else:
                assert offset(shape, index) == number
        else:
            assert locate(shape, number) == (None if padding else index)
        seen[kind] += 1
    assert seen["array"] and seen["memory"]
    # A gap's label says how many it stands for, data and padding apart.
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "gap":
            label = "".join(g.find(f"{SVG}text").itertext())
            count, pad = int(g.get("data-count")), int(g.get("data-padding"))
            said = {0: rf"… {count} more (rows|columns) …",
                    count: rf"… {count} more (rows|columns), all padding …"}.get(
                pad, rf"… {count - pad} more (rows|columns) \+ {pad} of padding …")
            assert re.fullmatch(said, label), (label, count, pad)


def test_gaps_count_the_array_columns_and_its_padding_apart(tmp_path, capsys):
    # 300 columns rounded up to 384 by the tile's 128: the columns not drawn
    # are the data columns not drawn and 84 of padding, said so
    root = drawn_svg(tmp_path, "f32[16,300]{1,0:T(8,128)}")
    capsys.readouterr()
    array = next(p for p in root.iter(f"{SVG}g") if p.get("data-panel") == "array0")
    columns = {}
    for _, g in cells(array):
        column = int(g.get("data-index").split(",")[1])
        columns[column] = g.get("data-padding") == "1"
    gaps = [g for g in array.iter(f"{SVG}g") if g.get("class") == "gap"
            and "rotate" in g.find(f"{SVG}text").get("transform", "")]
    hidden = sum(int(g.get("data-count")) for g in gaps)
    padding = sum(int(g.get("data-padding")) for g in gaps)
    assert len(columns) + hidden == 384
    assert sum(not p for p in columns.values()) + hidden - padding == 300
    assert sum(columns.values()) + padding == 384 - 300
    labels = ["".join(g.find(f"{SVG}text").itertext()) for g in gaps]
    assert "… 169 more columns + 84 of padding …" in labels


@pytest.mark.parametrize("text, caption, along", [
    ("f32[8,8]{0,1:T(2,4)}", "tile (2,4): 2 along dim 1 (columns) x 4 along dim 0 (rows)",
     (4, 2)),
    ("f32[8,8]{1,0:T(2,4)}", "tile (2,4): 2 along dim 0 (rows) x 4 along dim 1 (columns)",
     (2, 4)),
])
def test_the_caption_says_which_dims_the_tile_runs_along(tmp_path, capsys, text, caption,
                                                       along):
    root = drawn_svg(tmp_path, text)
    capsys.readouterr()
    # the caption's lines, wrapped to the picture's width, read as one
    legend = " ".join(t.text for t in root.iter(f"{SVG}text") if t.get("class") == "legend")
    assert caption in legend, legend
    # and the drawing agrees: tile 0 covers that many rows and columns
    tiles = picture(parse_array_shape(text)).tiles
    rows, cols = np.nonzero(tiles == tiles[0, 0])
    assert (rows.max() + 1, cols.max() + 1) == along


def _title_spans(root):
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    measure = TextToPath()
    spans = []
    for t in root.iter(f"{SVG}text"):
        if t.get("class") != "title":
            continue
        size = float(t.get("font-size"))
        prop = FontProperties(family="DejaVu Sans", size=size)
        width = max(measure.get_text_width_height_descent(s.text, prop, ismath=False)[0]
                    for s in t.iter(f"{SVG}tspan"))
        x, y = float(t.get("x")), float(t.get("y"))
        spans.append((x, x + width, y))
    return spans


@pytest.mark.parametrize("text", LAYOUTS)
def test_titles_do_not_overlap(tmp_path, capsys, text):
    spans = sorted(_title_spans(drawn_svg(tmp_path, text)))
    capsys.readouterr()
    assert spans
    for (_a0, a1, ay), (b0, _b1, by) in zip(spans, spans[1:]):
        if abs(ay - by) < 1:  # titles on one line of panels
            assert a1 <= b0, (text, spans)


def test_fills_are_the_colour_blind_safe_palette_and_text_reads_on_them(tmp_path, capsys):
    root = drawn_svg(tmp_path, "f32[4,20,300]{2,1,0:T(8,128)}")
    capsys.readouterr()
    fills = {g.find(f"{SVG}rect").get("fill") for _, g in cells(root)}
    assert fills <= set(TILE_FILLS) | {"url(#hatch)"}
    assert len(fills) >= 3
    # Every fill is a tint of an Okabe-Ito colour and black text on it has a
    # contrast of at least 7:1 (WCAG AAA).
    def luminance(colour):
        c = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])
    for fill in TILE_FILLS:
        assert (luminance(fill) + 0.05) / 0.05 >= 7
    assert len(OKABE_ITO) == len(TILE_FILLS)
    # Cells are outlined whatever their fill.
    style = root.find(f"{SVG}style").text
    assert re.search(r"\.cell rect\{stroke:#[0-9a-f]{6};stroke-width:", style)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_documents_figures_are_small_svg_with_text(tmp_path, capsys, name):
    out = tmp_path / f"{name}.svg"
    assert main(["draw", FIGURES[name], "-o", str(out)]) == 0
    capsys.readouterr()
    data = out.read_text()
    assert len(data.encode()) < 200_000
    assert "<path" in data and '<text x="' in data and ">17<" in data
    reference = REFERENCES / f"{name}.svg"
    if UPDATE:
        reference.parent.mkdir(parents=True, exist_ok=True)
        reference.write_text(data)
    assert data == reference.read_text(), f"{name}.svg differs from {reference}"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_the_documents_figures_as_png_match_the_references(tmp_path, name):
    import matplotlib.image as mpimg
    out = tmp_path / f"{name}.png"
    picture(parse_array_shape(FIGURES[name])).save(out, dpi=40)
    reference = REFERENCES / f"{name}.png"
    if UPDATE:
        reference.write_bytes(out.read_bytes())
    got, want = mpimg.imread(out), mpimg.imread(reference)
    assert got.shape == want.shape
    # Font rendering may differ by a shade at glyph edges; a changed colour,
    # line or panel moves far more pixels than this.  (The numbers are read
    # back exactly from the SVG above, not from pixels.)
    changed = (np.abs(got[..., :3] - want[..., :3]).max(axis=-1) > 0.1).mean()
    assert changed < 0.002, f"{changed:.2%} of the pixels differ from {reference}"


def test_png_is_at_slide_resolution(tmp_path, capsys):
    for text in ("bf16[16,256]{1,0:T(8,128)(2,1)}",):
        out = tmp_path / "slide.png"
        assert main(["draw", text, "-o", str(out)]) == 0
        width, height = _png_size(out.read_bytes())
        assert 1200 <= width <= 2400 and height >= 500, (text, width, height)
    capsys.readouterr()


def _segments(root, name):
    """The unit edges drawn by the boundary path ``name``, as
    ('v', x, y) / ('h', x, y) in cells of the SVG's grid."""
    from tilespec.teach.draw.svg import CELL
    out = set()
    for path in root.iter(f"{SVG}path"):
        if path.get("class") != f"boundary {name}":
            continue
        for x1, y1, x2, y2 in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", path.get("d")):
            x1, y1, x2, y2 = (float(v) / CELL for v in (x1, y1, x2, y2))
            if abs(x1 - x2) < 1e-6:
                for k in range(round(abs(y2 - y1))):
                    out.add(("v", round(x1, 1), round(min(y1, y2) + k, 1)))
            else:
                for k in range(round(abs(x2 - x1))):
                    out.add(("h", round(min(x1, x2) + k, 1), round(y1, 1)))
    return out


@pytest.mark.parametrize("text, tiles", [
    # The document's definition: element e is in tile floor(e / t) of each
    # level; a level-2 tile (2,1) subdivides the (2,4) tile of level 1.
    (FIGURES["figure1"], {"level1": lambda e: (e[0] // 2, e[1] // 2)}),
    (FIGURES["figure2"], {"level1": lambda e: (e[0] // 2, e[1] // 4),
                          "level2": lambda e: (e[0] // 2, e[1] // 4, e[1] % 4)}),
    ("bf16[16,256]{1,0:T(8,128)(2,1)}", {"level1": lambda e: (e[0] // 8, e[1] // 128)}),
])
def test_tile_boundaries_drawn_are_the_documents_tiles(tmp_path, capsys, text, tiles):
    from tilespec.teach.draw.svg import CELL
    root = drawn_svg(tmp_path, text)
    capsys.readouterr()
    at = {}
    for kind, g in cells(root):
        if kind == "array":
            rect = g.find(f"{SVG}rect")
            at[(round(float(rect.get("x")) / CELL, 1), round(float(rect.get("y")) / CELL, 1))] = \
                tuple(int(v) for v in g.get("data-index").split(","))
    for name, tile in tiles.items():
        drawn = _segments(root, name)
        checked = 0
        for (x, y), e in at.items():
            right, below = (round(x + 1, 1), y), (x, round(y + 1, 1))
            for edge, neighbour in ((("v",) + right, right), (("h",) + below, below)):
                if neighbour in at:
                    assert (edge in drawn) == (tile(e) != tile(at[neighbour])), (name, e, edge)
                    checked += 1
        assert checked > 10


@pytest.mark.parametrize("text, inside", [
    (FIGURES["figure2"], 1),                     # a bf16 is two bytes
    ("s8[8,16]{1,0:T(4,8)(4,1)}", 0),            # one byte
    ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", 0),    # half a byte
])
def test_byte_boundaries_inside_a_cell(tmp_path, capsys, text, inside):
    from tilespec.teach.draw.svg import CELL
    root = drawn_svg(tmp_path, text)
    capsys.readouterr()
    edges = set()
    memory = 0
    for kind, g in cells(root):
        if kind == "memory":
            x = float(g.find(f"{SVG}rect").get("x")) / CELL
            edges |= {round(x, 1), round(x + 1, 1)}
            memory += 1
    ticks = set()
    for path in root.iter(f"{SVG}path"):
        if path.get("class") == "boundary byte":
            for x1, y1, _, _ in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)",
                                          path.get("d")):
                ticks.add((round(float(x1) / CELL, 1), round(float(y1) / CELL, 1)))
    within = [t for t in ticks if t[0] not in edges]
    assert len(within) == inside * memory, (len(within), memory)
