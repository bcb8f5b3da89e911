"""``tilespec draw`` and spec.draw: the pictures show the spec's numbers.

The two figures of the source document are drawn through the command line;
the numbers in them are checked against spec.index and against tables
written out by hand from the document.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tilespec.cli import main
from tilespec.spec.draw import MAX_CELLS, MAX_SIDE, DrawingLimitError, draw, picture
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import all_offsets, locate, offset
from tilespec.spec.text import parse_array_shape

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
    "f32[32,32]{1,0:T(8,8)}",                    # the largest grid
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
def test_numbers_drawn_come_from_the_spec(text):
    s = shape(text)
    p = picture(s)
    assert (p.grid.reshape(s.dims) == all_offsets(s)).all()
    assert p.cells == sum(len(r) for r in p.strip_rows())
    cells = [c for row in p.strip_elements() for c in row]
    for position, element in enumerate(cells):
        assert element == locate(s, position)
        if element is not None:
            assert offset(s, element) == position
            at = (0, 0) if s.rank == 0 else (0, element[0]) if s.rank == 1 else element
            # A memory cell is coloured by the tile of the element in it.
            assert p.strip_tiles[position] == p.tiles[at]
            for grid_ids, strip_ids in zip(p.subtiles, p.strip_subtiles):
                assert strip_ids[position] == grid_ids[at]


@pytest.mark.parametrize("text", SHAPES)
def test_touching_tiles_get_different_colours(text):
    p = picture(shape(text))
    colour = p.tile_colours()
    t = p.tiles
    for a, b in ((t[:, :-1], t[:, 1:]), (t[:-1, :], t[1:, :])):
        for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
            assert x == y or colour[x] != colour[y]


@pytest.mark.parametrize("text", [FIGURE_1, FIGURE_2])
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_cli_draws_the_documents_figures(tmp_path, capsys, text, suffix):
    out = tmp_path / f"figure.{suffix}"
    assert main(["draw", text, "-o", str(out)]) == 0
    data = out.read_bytes()
    assert len(data) > 1000
    if suffix == "png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        assert b"<svg" in data[:2000]
    assert str(out) in capsys.readouterr().out


def test_cli_json_reports_the_numbers_drawn(tmp_path, capsys):
    out = tmp_path / "f.png"
    assert main(["draw", FIGURE_1, "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["results"][0]["data"]
    assert data["offsets"] == FIGURE_1_OFFSETS
    assert data["memory"] == FIGURE_1_MEMORY
    assert out.stat().st_size > 0


def test_the_figure_shows_the_labels():
    # The SVG keeps text as glyph paths, so check the figure's text objects.
    fig = picture(shape(FIGURE_1)).figure()
    texts = [t.get_text() for t in fig.axes[0].texts]
    for row in FIGURE_1_OFFSETS:
        for n in row:
            assert str(n) in texts
    assert "(2,3)" in texts
    # Padding cells are blank: no text anywhere shows a padding offset (the
    # row and column numbers and strip row starts are 0-4, 0-2 and 0,4,...).
    for padding in (9, 11, 14, 15, 18, 19, 21, 22, 23):
        assert str(padding) not in texts


@pytest.mark.parametrize("text, message", [
    (f"f32[{MAX_SIDE + 1},2]", f"at most {MAX_SIDE} rows and {MAX_SIDE} columns"),
    (f"f32[2,{MAX_SIDE + 1}]", f"at most {MAX_SIDE} rows and {MAX_SIDE} columns"),
    (f"f32[{MAX_SIDE + 1}]", f"at most {MAX_SIDE} rows and {MAX_SIDE} columns"),
    ("f32[32,32]{1,0:T(128,128)}", f"at most {MAX_CELLS} memory cells"),
    ("f32[2,3,4]", "rank 0 to 2"),
    ("f32[0,3]{1,0:T(2,2)}", "no elements"),
])
def test_too_large_is_one_line_and_exit_2(tmp_path, capsys, text, message):
    out = tmp_path / "big.png"
    with pytest.raises(DrawingLimitError, match=message):
        picture(shape(text))
    assert issubclass(DrawingLimitError, TilespecError)
    assert main(["draw", text, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["f32[3,5]", "-o", "x.jpg"], ".png, .svg"),
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
