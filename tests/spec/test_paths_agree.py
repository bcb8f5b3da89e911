"""The closed formula and pad-reshape-transpose define the same layout.

:mod:`spec.index` computes offsets with a pipeline of index maps;
:mod:`spec.physical` builds the memory image with numpy pad, reshape and
transpose and never calls :mod:`spec.index`.  For generated shapes (ranks 0-5,
1-3 tiling levels, ``*`` entries, odd and zero sizes, tiles longer than the
vector) both must place every element at the same offset.
"""

import math

import numpy as np
import sympy
from hypothesis import given, settings, strategies as st

from tilespec.spec import (
    all_offsets,
    from_physical,
    locate,
    locate_many,
    offset,
    offset_expr,
    offsets,
    padded_elements,
    physical_size,
    to_physical,
)
from tilespec.spec.index import dim_symbols, index_symbols
from tilespec.testing import elements, shapes_with_layout

TILED = shapes_with_layout(min_rank=0, max_rank=5, min_tiles=1, max_tiles=3)
ANY = shapes_with_layout(min_rank=0, max_rank=5, min_tiles=0, max_tiles=3)
SMALL = shapes_with_layout(min_rank=0, max_rank=4, min_tiles=1, max_tiles=3,
                           max_elements=256)


def arange(shape):
    n = math.prod(shape.dims)
    return np.arange(n, dtype=np.int64).reshape(shape.dims)


@settings(max_examples=600)
@given(TILED)
def test_formula_and_pad_reshape_transpose_agree(s):
    a = arange(s)
    size = padded_elements(s)
    image = to_physical(a, s, pad_value=-1)
    assert image.shape == (size,)
    assert physical_size(s) == size
    offs = all_offsets(s)
    assert offs.shape == s.dims
    # Every element is where the formula says.
    assert (image[offs] == a).all()
    # Everything else is padding, and holds the pad value.
    is_element = np.zeros(size, dtype=bool)
    is_element[offs.reshape(-1)] = True
    assert is_element.sum() == a.size
    assert (image[~is_element] == -1).all()
    # Reading the image back gives the array, whatever the padding holds.
    assert (from_physical(image, s) == a).all()
    garbage = image.copy()
    garbage[~is_element] = 12345
    assert (from_physical(garbage, s) == a).all()


@settings(max_examples=400)
@given(ANY)
def test_each_offset_is_one_element_or_padding(s):
    n = math.prod(s.dims)
    size = padded_elements(s)
    assert size >= n
    offs = all_offsets(s).reshape(-1)
    assert ((0 <= offs) & (offs < size)).all()
    assert np.unique(offs).size == n                 # no two elements share one
    positions = np.arange(size, dtype=np.int64)
    idx, ok = locate_many(s, positions)
    assert ok.sum() == n                             # the rest is padding
    assert size - ok.sum() == size - n
    if n:
        assert (offsets(s, idx[ok]) == positions[ok]).all()
    assert not np.isin(positions[~ok], offs).any()


@settings(max_examples=200)
@given(SMALL)
def test_scalar_and_vectorised_forms_agree(s):
    grid = all_offsets(s)
    for e in np.ndindex(*s.dims):
        o = offset(s, e)
        assert o == grid[e]
        assert locate(s, o) == tuple(e)
    size = padded_elements(s)
    idx, ok = locate_many(s, np.arange(size))
    for o in range(size):
        found = locate(s, o)
        assert (found is not None) == bool(ok[o])
        if found is not None:
            assert found == tuple(idx[o])
    if grid.size:
        cells = np.array(list(np.ndindex(*s.dims)), dtype=np.int64).reshape(
            grid.size, s.rank)
        assert (offsets(s, cells) == grid.reshape(-1)).all()


@settings(max_examples=60)
@given(shapes_with_layout(min_rank=0, max_rank=4, min_tiles=1, max_tiles=3,
                          allow_zero=False, max_elements=1024), st.data())
def test_sympy_expression_agrees(s, data):
    e_syms = index_symbols(s.rank)
    expr = offset_expr(s)
    general = offset_expr(s, symbolic=True)
    d_syms = dim_symbols(s, symbolic=True)
    dims_at = dict(zip(d_syms, s.dims))
    for _ in range(3):
        e = data.draw(elements(s))
        at = dict(zip(e_syms, e))
        expected = offset(s, e)
        assert sympy.Integer(expr.subs(at)) == expected
        assert sympy.Integer(general.subs({**at, **dims_at})) == expected


@settings(max_examples=100)
@given(shapes_with_layout(min_rank=0, max_rank=3, min_tiles=1, max_tiles=3,
                          allow_zero=False).flatmap(
    lambda s: st.tuples(st.just(s), st.lists(elements(s), min_size=1, max_size=20))))
def test_offsets_of_an_element_list(case):
    s, elems = case
    vector = offsets(s, np.array(elems, dtype=np.int64).reshape(len(elems), s.rank))
    assert vector.tolist() == [offset(s, e) for e in elems]


def test_sympy_closed_form_survives_subs_on_combined_tile_dims():
    # Regression (found by the derandomized CI run): sympy 1.14's own Mod
    # rewrites Mod(2*Mod(x, 3), 3) to 2*Mod(x, 3) (sympy issue #29757), so
    # offset_expr(...).subs gave 7 where the offset is 4.
    from tilespec.spec.index import index_symbols, offset, offset_expr
    from tilespec.spec.layout import Layout, Shape
    s = Shape("f32", (1, 1, 3), Layout((0, 1, 2), tiles=[("*", 3, 2), ("*", 3)]))
    expr, e = offset_expr(s), index_symbols(3)
    for element in [(0, 0, 0), (0, 0, 1), (0, 0, 2)]:
        assert expr.subs(dict(zip(e, element))) == offset(s, element)
