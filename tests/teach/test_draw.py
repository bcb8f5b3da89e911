"""``tilespec draw`` and teach.draw: the pictures show the spec's numbers.

The two figures of the source document (XLA's "Tiled layout" page,
https://openxla.org/xla/tiled_layout) are drawn through the command line;
the numbers in them are checked against spec.index and against tables
written out by hand from the document.  Every cell of every panel, large
layouts (elided) and rank >= 3 ones included, is checked against
``offset`` and ``locate``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

from tilespec.cli import main
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import all_offsets, locate, offset
from tilespec.spec.size import bit_range
from tilespec.spec.text import parse_array_shape
from tilespec.teach.draw.figure import draw, picture
from tilespec.teach.draw.scene import DrawingLimitError
from tilespec.testing import shapes_with_layout

FIGURE_1 = "f32[3,5]{1,0:T(2,2)}"
FIGURE_2 = "bf16[4,8]{1,0:T(2,4)(2,1)}"

# Figure 1: element (2,3) is at 17, as the document works out.
FIGURE_1_OFFSETS = [
    [0, 1, 4, 5, 8],
    [2, 3, 6, 7, 10],
    [12, 13, 16, 17, 20],
]
# Memory, one 2x2 tile per row; None is a white padding cell.
FIGURE_1_MEMORY = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
    [8, None, 10, None],
    [12, 13, None, None],
    [16, 17, None, None],
    [20, None, None, None],
]
FIGURE_1_ELEMENTS = [
    [(0, 0), (0, 1), (1, 0), (1, 1)],
    [(0, 2), (0, 3), (1, 2), (1, 3)],
    [(0, 4), None, (1, 4), None],
    [(2, 0), (2, 1), None, None],
    [(2, 2), (2, 3), None, None],
    [(2, 4), None, None, None],
]
# Figure 2: a 2x4 tile holds 8 offsets; in it, each 2x1 tile (a column of two
# rows) is two adjacent offsets.
FIGURE_2_OFFSETS = [
    [0, 2, 4, 6, 8, 10, 12, 14],
    [1, 3, 5, 7, 9, 11, 13, 15],
    [16, 18, 20, 22, 24, 26, 28, 30],
    [17, 19, 21, 23, 25, 27, 29, 31],
]

SHAPES = [
    FIGURE_1, FIGURE_2,
    "f32[3,5]",                                  # no tiling
    "f32[5,6]{0,1:T(2,4)(2,1)}",                 # column-major
    "bf16[5,9]{1,0:T(4,4)(2,1)}",                # padding at both levels
    "f32[6,10]{1,0:T(2,4)(3,2,4)}",              # a later tile reaches tile counts
    "f32[4,6]{1,0:T(*,4)}",                      # a combined dim
    "f32[7]{0:T(4)}",                            # rank 1: one row
    "f32[3]{0:T(2,2)}",                          # a tile longer than the shape
    "s32[]{:T(128)}",                            # a scalar
    "f32[16,24]{1,0:T(8,8)}",                    # the largest drawn whole
]
# Layouts too large to draw in full: elided, folded, or of rank >= 3.
LARGE = [
    "bf16[16,256]{1,0:T(8,128)(2,1)}",           # the example
    "f32[32,32]{1,0:T(8,8)}",                    # elided: three tiles of eight
    "f32[1024,1024]{1,0:T(8,128)}",
    "f32[4,20,300]{2,1,0:T(8,128)}",             # rank 3: a row of slices
    "f32[3,5,7]{0,2,1:T(2,4)}",                  # rank 3, transposed tiling
    "s8[100,300]{1,0:T(8,128)(4,1)}",            # padded and packed
    "s4[16,256]{1,0:T(8,128)(2,1)E(4)}",         # sub-byte
    "bf16[3,20,300]{2,1,0:T(*,8,128)(2,1)}",     # batch combined into rows
    "f32[65536,65536]{1,0:T(8,128)}",            # 2^32 elements
    "f32[2,3,5,7,11]{0,1,2,3,4:T(8,128)}",       # rank 5, reversed
]


def shape(text):
    return parse_array_shape(text)


def test_figure_1_numbers_are_the_documents():
    p = picture(shape(FIGURE_1))
    assert p.grid.tolist() == FIGURE_1_OFFSETS
    assert p.strip_rows() == FIGURE_1_MEMORY
    assert p.strip_elements() == FIGURE_1_ELEMENTS
    assert p.grid[2, 3] == 17
    # Six 2x2 tiles, numbered row-major over the 2x3 grid of tiles.
    assert p.tiles.tolist() == [[0, 0, 1, 1, 2], [0, 0, 1, 1, 2], [3, 3, 4, 4, 5]]
    assert p.subtiles == ()


def test_figure_2_numbers_are_the_documents():
    p = picture(shape(FIGURE_2))
    assert p.grid.tolist() == FIGURE_2_OFFSETS
    assert p.width == 8
    assert p.strip_rows() == [list(range(r, r + 8)) for r in range(0, 32, 8)]
    assert p.tiles.tolist() == [[0] * 4 + [1] * 4] * 2 + [[2] * 4 + [3] * 4] * 2
    (pairs,) = p.subtiles
    # Each red 2x1 box: rows 2i and 2i+1 of one column, at offsets 2k, 2k+1.
    assert (pairs[0::2] == pairs[1::2]).all()
    assert len(np.unique(pairs)) == 16
    for k in range(16):
        (rows, cols) = np.nonzero(pairs == k)
        assert sorted(p.grid[rows, cols].tolist()) in ([2 * j, 2 * j + 1] for j in range(16))


@pytest.mark.parametrize("text", SHAPES)
def test_small_layouts_are_drawn_whole(text):
    s = shape(text)
    p = picture(s)
    assert not p.elided
    assert (p.grid.reshape(s.dims) == all_offsets(s)).all()
    assert sum(len(r) for r in p.strip_rows()) == p.cells
    cells = [c for row in p.strip_elements() for c in row]
    assert cells == [locate(s, k) for k in range(p.cells)]


@pytest.mark.parametrize("text", SHAPES + LARGE)
def test_every_number_drawn_comes_from_the_spec(text):
    check_every_number(shape(text))


@settings(max_examples=25, deadline=None)
@given(shapes_with_layout(max_rank=4, max_dim=40, max_elements=20000, allow_zero=False))
def test_any_layout_draws_the_specs_numbers(s):
    check_every_number(s)
    text = picture(s).svg()
    assert text.startswith("<svg") and text.endswith("</svg>")


def check_every_number(s):
    p = picture(s)
    tile_of = {}
    for panel in p.scene.panels:
        for i, j in np.ndindex(panel.labels.shape):
            e = tuple(int(x) for x in panel.indices[i, j])
            label = int(panel.labels[i, j])
            if panel.padding[i, j]:
                # Padding of the array view: beyond a dim, and padding in memory.
                assert any(x >= d for x, d in zip(e, s.dims))
                assert locate(s, label) is None
            else:
                assert label == offset(s, e)
                tile_of[e] = [int(t[i, j]) for t in panel.tiles]
    m = p.scene.memory
    for i, j in np.ndindex(m.labels.shape):
        position = m.rows.shown[i] * p.width + m.cols.shown[j]
        if position >= p.cells:
            assert m.labels[i, j] == -1
            continue
        assert m.labels[i, j] == position
        where = locate(s, position)
        assert m.padding[i, j] == (where is None)
        if where is not None:
            assert tuple(m.indices[i, j]) == where
            if where in tile_of:
                # A memory cell is coloured and outlined like its element.
                assert [int(t[i, j]) for t in m.tiles] == tile_of[where]
        if m.words is not None:
            start = bit_range(s, position)[0]
            assert (m.words[i, j], m.bytes[i, j]) == (start // 32, start // 8)
    for panel in (*p.scene.panels, m):
        for axis in (panel.rows, panel.cols):
            # What is shown and what the gaps count add up to the whole axis.
            assert len(axis.shown) + sum(g.count for g in axis.slots()
                                         if not isinstance(g, int)) == axis.size


def test_padding_is_shown_in_the_array_view_as_in_memory():
    p = picture(shape(FIGURE_1))
    array, memory = p.scene.panels[0], p.scene.memory
    # f32[3,5] tiled 2x2: rows 3 -> 4 and columns 5 -> 6; nine padding cells
    # in each view, at the same offsets.
    assert array.labels.shape == (4, 6)
    assert sorted(array.labels[array.padding].tolist()) == \
        sorted(memory.labels[memory.padding].tolist()) == [9, 11, 14, 15, 18, 19, 21, 22, 23]


def test_large_layouts_are_elided_by_tiles():
    p = picture(shape("f32[1024,1024]{1,0:T(8,128)}"))
    a = p.scene.panels[0]
    assert p.elided
    # Two whole 8-row tiles; the 128-wide tile folded: its start, its end,
    # and the start of the next tile, where the offsets jump.
    assert a.rows.shown == tuple(range(16))
    assert a.cols.shown[:2] == (0, 1) and 127 in a.cols.shown and 128 in a.cols.shown
    col = a.cols.shown.index(128)
    assert a.labels[0, col - 1] == 127 and a.labels[0, col] == 1024


def test_rank_3_is_a_row_of_slices():
    p = picture(shape("f32[4,20,300]{2,1,0:T(8,128)}"))
    assert [panel.title for panel in p.scene.panels] == \
        ["[0, :, :]", "[1, :, :]", "[2, :, :]"]
    assert p.scene.more_slices == 1
    assert p.scene.panels[1].labels[0, 0] == offset(shape("f32[4,20,300]{2,1,0:T(8,128)}"),
                                                     (1, 0, 0))


@pytest.mark.parametrize("text, per_word, per_byte", [
    ("bf16[16,256]{1,0:T(8,128)(2,1)}", 2, 0.5),
    ("s8[64,256]{1,0:T(32,128)(4,1)}", 4, 1),
    ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", 8, 2),
])
def test_packed_types_show_words_and_bytes(text, per_word, per_byte):
    m = picture(shape(text)).scene.memory
    assert m.words is not None
    row = m.words[0][:4].tolist(), m.bytes[0][:4].tolist()
    assert row[0] == [k // per_word for k in range(4)]
    assert row[1] == [int(k // per_byte) for k in range(4)]
    assert picture(shape("f32[8,128]{1,0:T(8,128)}")).scene.memory.words is None


@pytest.mark.parametrize("text", SHAPES + LARGE[:3])
def test_touching_tiles_get_different_colours(text):
    p = picture(shape(text))
    colour = p.tile_colours()
    t = p.scene.panels[0].tiles[0]
    for a, b in ((t[:, :-1], t[:, 1:]), (t[:-1, :], t[1:, :])):
        for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
            assert x == y or colour[x] != colour[y]


@pytest.mark.parametrize("text", [FIGURE_1, FIGURE_2])
@pytest.mark.parametrize("suffix", ["svg", "html"])
def test_cli_draws_the_documents_figures(tmp_path, capsys, text, suffix):
    out = tmp_path / f"figure.{suffix}"
    assert main(["draw", text, "-o", str(out)]) == 0
    data = out.read_bytes()
    assert len(data) > 1000
    assert b"<svg" in data[:3000]
    assert str(out) in capsys.readouterr().out


def test_cli_json_reports_the_numbers_drawn(tmp_path, capsys):
    out = tmp_path / "f.png"
    assert main(["draw", FIGURE_1, "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert data["offsets"] == FIGURE_1_OFFSETS
    assert data["memory"] == FIGURE_1_MEMORY
    assert out.stat().st_size > 0


@pytest.mark.parametrize("text, message", [
    ("f32[0,3]{1,0:T(2,2)}", "no elements"),
    ("f32[4,0,3]", "no elements"),
    ("token[]", "no elements"),
])
def test_nothing_to_draw_is_one_line_and_exit_2(tmp_path, capsys, text, message):
    out = tmp_path / "empty.png"
    with pytest.raises(DrawingLimitError, match=message):
        picture(shape(text))
    assert issubclass(DrawingLimitError, TilespecError)
    assert main(["draw", text, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["f32[3,5]", "-o", "x.jpg"], ".png, .svg, .html"),
    (["f32[3,5]"], "draw needs -o FILE"),
    (["f32[m,5]", "-o", "x.png"], "name 'm'"),
    (["f32[3,5]", "-o", "/nonexistent-dir/x.png"], "cannot write"),
])
def test_bad_requests_are_one_line_and_exit_2(capsys, args, message):
    assert main(["draw", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_draw_writes_and_returns_the_picture(tmp_path):
    p = draw(shape("f32[7]{0:T(4)}"), tmp_path / "r1.svg")
    assert (tmp_path / "r1.svg").stat().st_size > 0
    assert p.grid.tolist() == [list(range(7))]
    assert p.strip_rows() == [[0, 1, 2, 3], [4, 5, 6, None]]
    assert p._repr_png_().startswith(b"\x89PNG")
