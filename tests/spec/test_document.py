"""Every example in the source document, as a test.

The document is XLA's "Tiled layout" page (shared/seeds/001_...txt).  The
expected values here are worked out by hand from the document's rules and
written as literals; none is produced by the code under test.  Two errata:
the document's ``⌊e_0/t_0⌋`` means ``⌊e_1/t_1⌋``, and it says a combined dim
is stored as -1 where XLA stores INT64_MIN (and prints ``*``).
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilespec.spec import (
    COMBINE,
    Layout,
    Shape,
    Tile,
    all_offsets,
    byte_size,
    format_shape,
    from_physical,
    linear_index,
    linear_index_with_tile,
    locate,
    offset,
    offsets,
    padded_elements,
    parse_array_shape,
    to_physical,
)
from tilespec.spec.size import bit_range

P = None  # a padding position in a hand-written memory strip


def shape(text):
    return parse_array_shape(text)


def memory_strip(s):
    """The element at each offset, None for padding, via locate."""
    return [locate(s, o) for o in range(padded_elements(s))]


def check_grid(s, grid):
    """offset() of every element equals the hand-written grid."""
    grid = np.asarray(grid)
    assert grid.shape == s.dims
    for e in itertools.product(*map(range, s.dims)):
        assert offset(s, e) == grid[e], e
    assert (all_offsets(s) == grid).all()


# --- linear_index without tiling ----------------------------------------------

def test_linear_index_formula_by_hand():
    # e_n d_{n-1}...d_1 + e_{n-1} d_{n-2}...d_1 + ... + e_1
    assert linear_index((1, 2, 3), (2, 3, 4)) == 1 * 3 * 4 + 2 * 4 + 3 == 23
    assert linear_index((0, 0, 0), (2, 3, 4)) == 0
    assert linear_index((1, 2, 3), (2, 3, 4)) == offset(shape("f32[2,3,4]"), (1, 2, 3))
    assert linear_index((), ()) == 0


@settings(max_examples=100)
@given(st.lists(st.integers(1, 6), max_size=5).flatmap(
    lambda d: st.tuples(st.just(tuple(d)),
                        st.tuples(*(st.integers(0, x - 1) for x in d)))))
def test_linear_index_is_the_documented_sum(case):
    d, e = case
    n = len(d)
    expected = sum(e[i] * math.prod(d[i + 1:]) for i in range(n))
    assert linear_index(e, d) == expected
    # An untiled, row-major layout is exactly linear_index.
    s = Shape("f32", d)
    assert offset(s, e) == expected


# --- linear_index_with_tile: element (2,3) of Figure 1 --------------------------

def test_element_2_3_step_by_step():
    e, d, t = (2, 3), (3, 5), (2, 2)
    tile_index = tuple(x // y for x, y in zip(e, t))
    within = tuple(x % y for x, y in zip(e, t))
    bounds = tuple(-(-x // y) for x, y in zip(d, t))
    assert tile_index == (1, 1)
    assert within == (0, 1)
    assert tile_index + within == (1, 1, 0, 1)
    assert bounds + t == (2, 3, 2, 2)
    assert linear_index((1, 1, 0, 1), (2, 3, 2, 2)) == 17
    assert linear_index((1, 1), (2, 3)) * 2 * 2 + linear_index((0, 1), (2, 2)) == 17
    assert (1 * 3 + 1) * 2 * 2 + (0 * 2 + 1) == 17
    assert linear_index_with_tile((2, 3), (3, 5), (2, 2)) == 17
    assert offset(shape("f32[3,5]{1,0:T(2,2)}"), (2, 3)) == 17
    assert locate(shape("f32[3,5]{1,0:T(2,2)}"), 17) == (2, 3)


@settings(max_examples=100)
@given(st.lists(st.tuples(st.integers(1, 7), st.integers(1, 4)), min_size=1,
                max_size=3).flatmap(
    lambda dt: st.tuples(st.just(dt), st.tuples(*(st.integers(0, d - 1) for d, _ in dt)))))
def test_linear_index_with_tile_three_forms(case):
    """The document's three equal forms of linear_index_with_tile."""
    dt, e = case
    d = tuple(x for x, _ in dt)
    t = tuple(y for _, y in dt)
    q = tuple(x // y for x, y in zip(e, t))
    r = tuple(x % y for x, y in zip(e, t))
    c = tuple(-(-x // y) for x, y in zip(d, t))
    first = linear_index(q + r, c + t)
    split = linear_index(q, c) * math.prod(t) + linear_index(r, t)
    assert first == split == linear_index_with_tile(e, d, t)


# --- Figure 1: f32[3,5] tiled 2x2 -----------------------------------------------

FIG1 = "f32[3,5]{1,0:T(2,2)}"

# Tiles of 2x2 laid out row-major over a 2x3 grid of tiles, each tile row-major.
FIG1_GRID = [[0, 1, 4, 5, 8],
             [2, 3, 6, 7, 10],
             [12, 13, 16, 17, 20]]

FIG1_STRIP = [
    (0, 0), (0, 1), (1, 0), (1, 1),     # tile (0,0)
    (0, 2), (0, 3), (1, 2), (1, 3),     # tile (0,1)
    (0, 4), P, (1, 4), P,               # tile (0,2): column 5 is padding
    (2, 0), (2, 1), P, P,               # tile (1,0): row 3 is padding
    (2, 2), (2, 3), P, P,               # tile (1,1)
    (2, 4), P, P, P,                    # tile (1,2)
]


def test_figure_1_text():
    s = shape(FIG1)
    assert format_shape(s) == FIG1
    assert s.layout.minor_to_major == (1, 0)
    assert s.layout.tiles == (Tile((2, 2)),)


def test_figure_1_offsets():
    check_grid(shape(FIG1), FIG1_GRID)


def test_figure_1_memory_strip():
    s = shape(FIG1)
    assert padded_elements(s) == 24 == len(FIG1_STRIP)
    assert memory_strip(s) == FIG1_STRIP
    assert FIG1_STRIP.count(P) == 24 - 15


def test_figure_1_physical_image():
    a = np.arange(15).reshape(3, 5)
    image = to_physical(a, shape(FIG1), pad_value=-1)
    expected = [-1 if e is P else a[e] for e in FIG1_STRIP]
    assert image.tolist() == expected


def test_padding_values_do_not_matter():
    """"The extra elements in the padding are not required to contain any
    particular value": reading the array back ignores them."""
    s = shape(FIG1)
    a = np.arange(15).reshape(3, 5)
    image = to_physical(a, s, pad_value=0)
    pads = [o for o, e in enumerate(FIG1_STRIP) if e is P]
    image[pads] = [999, -7, 3, 12, 5, 0, 8, 1, 77]
    assert (from_physical(image, s) == a).all()


# --- tiling as pad-reshape-transpose -------------------------------------------

def test_pad_reshape_transpose_by_hand():
    a = np.arange(15).reshape(3, 5)
    # Padded to (ceil(3/2)*2, ceil(5/2)*2).
    padded = np.pad(a, [(0, 1), (0, 1)], constant_values=-1)
    assert padded.shape == (4, 6)
    # Each dim i broken into (ceil(d_i/t_i), t_i): a bitcast, order unchanged.
    reshaped = padded.reshape(2, 2, 3, 2)
    assert (reshaped.reshape(-1) == padded.reshape(-1)).all()
    # The t_i moved to the minor end, keeping their relative order.
    transposed = reshaped.transpose(0, 2, 1, 3)
    assert transposed.shape == (2, 3, 2, 2)
    image = transposed.reshape(-1)
    assert image.tolist() == [-1 if e is P else a[e] for e in FIG1_STRIP]
    # The spec's independent path does the same.
    assert (to_physical(a, shape(FIG1), pad_value=-1) == image).all()
    # Element (e_2, e_1) lands at (e_2//t_2, e_1//t_1, e_2%t_2, e_1%t_1) of the
    # final shape (the document's ⌊e_0/t_0⌋ is a typo for ⌊e_1/t_1⌋).
    for e2, e1 in itertools.product(range(3), range(5)):
        assert transposed[e2 // 2, e1 // 2, e2 % 2, e1 % 2] == a[e2, e1]


def test_pad_reshape_transpose_rank_3_odd_tile():
    """The same steps for a rank-3 array, a 3-entry tile and odd sizes."""
    s = shape("s32[3,5,7]{2,1,0:T(2,3,4)}")
    a = np.arange(3 * 5 * 7).reshape(3, 5, 7)
    padded = np.pad(a, [(0, 1), (0, 1), (0, 1)], constant_values=-1)   # (4,6,8)
    final = padded.reshape(2, 2, 2, 3, 2, 4).transpose(0, 2, 4, 1, 3, 5)
    assert final.shape == (2, 2, 2, 2, 3, 4)
    assert (to_physical(a, s, pad_value=-1) == final.reshape(-1)).all()
    assert padded_elements(s) == 4 * 6 * 8


# --- repeated tiling: Figure 2 -----------------------------------------------------

FIG2 = "f32[4,8]{1,0:T(2,4)(2,1)}"

# offset(r, c) = ((r//2)*2 + c//4)*8 + (c%4)*2 + r%2: each 2x1 box (two rows of
# one column) is two adjacent offsets; 2x4 tiles are row-major.
FIG2_GRID = [[0, 2, 4, 6, 8, 10, 12, 14],
             [1, 3, 5, 7, 9, 11, 13, 15],
             [16, 18, 20, 22, 24, 26, 28, 30],
             [17, 19, 21, 23, 25, 27, 29, 31]]


def test_figure_2_offsets():
    s = shape(FIG2)
    check_grid(s, FIG2_GRID)
    assert padded_elements(s) == 32
    for r, c in itertools.product(range(4), range(8)):
        assert FIG2_GRID[r][c] == ((r // 2) * 2 + c // 4) * 8 + (c % 4) * 2 + r % 2


def test_figure_2_physical_image():
    a = np.arange(32).reshape(4, 8)
    image = to_physical(a, shape(FIG2))
    for r, c in itertools.product(range(4), range(8)):
        assert image[FIG2_GRID[r][c]] == a[r, c]


def test_tpu_bf16_pairs_form_32_bit_words():
    """bf16 (8,128)(2,1): rows 2k and 2k+1 of a column share one 32-bit word."""
    s = shape("bf16[16,256]{1,0:T(8,128)(2,1)}")
    for r in range(0, 16, 2):
        for c in (0, 1, 127, 128, 255):
            lo, hi = offset(s, (r, c)), offset(s, (r + 1, c))
            assert lo % 2 == 0 and hi == lo + 1
            start, _ = bit_range(s, lo)
            _, stop = bit_range(s, hi)
            assert start % 32 == 0 and stop - start == 32
    # Within a tile, columns advance by one word (two bf16s).
    assert offset(s, (0, 1)) == 2
    assert offset(s, (1, 0)) == 1
    # The next 8-row tile starts after the two 8x128 tiles of rows 0..7.
    assert offset(s, (8, 0)) == 2 * 8 * 128


def test_tpu_bf16_big():
    s = shape("bf16[1024,1024]{1,0:T(8,128)(2,1)}")
    assert offset(s, (1, 0)) == 1
    assert offset(s, (0, 1)) == 2
    assert offset(s, (0, 128)) == 8 * 128           # second tile in the row
    assert offset(s, (8, 0)) == (1024 // 128) * 8 * 128   # = 8192
    assert offset(s, (2, 0)) == 2 * 128             # next pair of rows
    assert byte_size(s) == 1024 * 1024 * 2


# A second tile that reaches the cross-tile dims: (2,4) then (2,2,1).  After
# the first level, the vector is (tile row tr, tile column tc, r%2, c%4) of dims
# (2,2,2,4); the 3-entry tile covers (tc, r%2, c%4) with sizes (2,2,1), so tc
# moves inside the second-level tile: offset = tr*16 + (c%4)*4 + tc*2 + r%2.
REACH = "f32[4,8]{1,0:T(2,4)(2,2,1)}"
REACH_GRID = [[0, 4, 8, 12, 2, 6, 10, 14],
              [1, 5, 9, 13, 3, 7, 11, 15],
              [16, 20, 24, 28, 18, 22, 26, 30],
              [17, 21, 25, 29, 19, 23, 27, 31]]


def test_second_tile_reaches_cross_tile_dims():
    s = shape(REACH)
    check_grid(s, REACH_GRID)
    assert padded_elements(s) == 32
    for r, c in itertools.product(range(4), range(8)):
        assert REACH_GRID[r][c] == (r // 2) * 16 + (c % 4) * 4 + (c // 4) * 2 + r % 2


def test_second_tile_pads_the_tile_count():
    """f32[2,12] with (2,4)(2,2,1): 3 tile columns padded to 4 by level 2.

    offset = (tc//2)*16 + (c%4)*4 + (tc%2)*2 + r with tc = c//4; tile column
    3 does not exist, so offsets 16 + b*4 + 2 + a are padding.
    """
    s = shape("f32[2,12]{1,0:T(2,4)(2,2,1)}")
    grid = [[0, 4, 8, 12, 2, 6, 10, 14, 16, 20, 24, 28],
            [1, 5, 9, 13, 3, 7, 11, 15, 17, 21, 25, 29]]
    check_grid(s, grid)
    assert padded_elements(s) == 32
    strip = memory_strip(s)
    assert [o for o, e in enumerate(strip) if e is P] == [18, 19, 22, 23, 26, 27, 30, 31]


def test_second_tile_rank_1():
    """f32[3]{0:T(2)(2,1)}: level 1 leaves (e//2, e%2) of dims (2,2); the
    2x1 tile swaps them, offset = 2*(e%2) + e//2."""
    s = shape("f32[3]{0:T(2)(2,1)}")
    assert [offset(s, (e,)) for e in range(3)] == [0, 2, 1]
    assert memory_strip(s) == [(0,), (2,), (1,), P]


# --- tiles shorter and longer than the shape ----------------------------------------

def test_tile_shorter_than_shape_tiles_the_minor_dims():
    s = shape("f32[3,2,5]{2,1,0:T(2,2)}")
    # Each of the 3 major slices is a 2x5 array tiled 2x2: 1x3 tiles of 4.
    for e0, e1, e2 in itertools.product(range(3), range(2), range(5)):
        assert offset(s, (e0, e1, e2)) == \
            e0 * 12 + ((e1 // 2) * 3 + e2 // 2) * 4 + (e1 % 2) * 2 + e2 % 2
    assert padded_elements(s) == 36


def test_tiles_apply_to_physical_dims():
    """minor_to_major {0,1} makes dim 0 the most minor: physical dims (5,3)
    are Figure 1's (3,5), so element (c, r) sits where Figure 1's (r, c) does."""
    s = shape("f32[5,3]{0,1:T(2,2)}")
    for r, c in itertools.product(range(3), range(5)):
        assert offset(s, (c, r)) == FIG1_GRID[r][c]


def test_tile_longer_than_shape_scalar():
    s = shape("s32[]{:T(128)}")
    assert format_shape(s) == "s32[]{:T(128)}"
    assert padded_elements(s) == 128
    assert byte_size(s) == 128 * 4
    assert offset(s, ()) == 0
    assert locate(s, 0) == ()
    assert all(locate(s, o) is None for o in range(1, 128))


def test_tile_longer_than_shape_rank_1():
    """f32[3] with a (2,2) tile: a leading unit dim makes it (1,3), padded to
    (2,4): tiles (0, e//2) of a 1x2 grid, within-tile (0, e%2)."""
    s = shape("f32[3]{0:T(2,2)}")
    assert [offset(s, (e,)) for e in range(3)] == [0, 1, 4]
    assert padded_elements(s) == 8


# --- combining dims with '*' ---------------------------------------------------------

def test_combine_equals_reshape_then_tile():
    big = shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    small = shape("f32[112,110]{1,0:T(2,3)}")
    assert 2 * 7 * 8 == 112 and 11 * 10 == 110
    grid = all_offsets(big)
    assert (grid == all_offsets(small).reshape(2, 7, 8, 11, 10)).all()
    # Element by element, the combined index is (e0*56 + e1*8 + e2, e3*10 + e4).
    e = np.array(list(itertools.product(range(2), range(7), range(8), range(11),
                                        range(10))))
    flat = np.stack([e[:, 0] * 56 + e[:, 1] * 8 + e[:, 2], e[:, 3] * 10 + e[:, 4]], 1)
    assert (offsets(big, e) == offsets(small, flat)).all()
    # (112/2) x ceil(110/3) tiles of 2x3.
    assert padded_elements(big) == padded_elements(small) == 56 * 37 * 6
    a = np.arange(2 * 7 * 8 * 11 * 10).reshape(2, 7, 8, 11, 10)
    assert (to_physical(a, big) == to_physical(a.reshape(112, 110), small)).all()


def test_combine_by_hand_small():
    # f32[2,3,5] with T(*,4): dims 1 and 2 merge into 15, padded to 16.
    s = shape("f32[2,3,5]{2,1,0:T(*,4)}")
    for e0, e1, e2 in itertools.product(range(2), range(3), range(5)):
        assert offset(s, (e0, e1, e2)) == e0 * 16 + e1 * 5 + e2
    assert padded_elements(s) == 32


def test_combine_marker_minus_one_and_int64_min():
    # The document's -1, XLA's INT64_MIN (Tile::kCombineDimension) and '*'.
    assert COMBINE == -(2**63)
    t = Tile((-1, -1, 2, -1, 3))
    assert t == Tile(("*", "*", 2, "*", 3)) == Tile((COMBINE, COMBINE, 2, COMBINE, 3))
    assert t.sizes == (COMBINE, COMBINE, 2, COMBINE, 3)
    assert str(t) == "(*,*,2,*,3)"
    s = Shape("f32", (2, 7, 8, 11, 10), Layout((4, 3, 2, 1, 0), tiles=[t]))
    assert format_shape(s) == "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"
    assert s == shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")


def test_combine_marker_not_valid_as_a_size():
    """"-1 ... is not otherwise valid in a tile as a dimension size": other
    negative values and 0 are rejected, and '*' as the last entry has no
    meaning for the spec (XLA reads and validates it, so a Tile holds it)."""
    from tilespec.spec import LayoutError
    from tilespec.spec.index import offset
    for bad in [(0, 2), (-2, 2)]:
        with pytest.raises(LayoutError):
            Tile(bad)
    for last in [(2, -1), (2, "*")]:
        with pytest.raises(LayoutError, match="most minor entry"):
            Tile(last).combinable()
        with pytest.raises(LayoutError, match="most minor entry"):
            offset(Shape("f32", [3, 5], Layout((1, 0), tiles=[last])), (0, 0))
