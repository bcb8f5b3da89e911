"""The public Hypothesis strategies: arguments checked, values valid, cases covered."""

import math

import pytest
from hypothesis import Phase, find, given, settings, strategies as st
from hypothesis.errors import InvalidArgument

from tilespec.spec import COMBINE, Layout, Shape, Tile, TupleShape, padded_elements
from tilespec.spec.dtypes import ELEMENT_TYPES, bit_width
from tilespec.spec.index import combine_groups
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape
from tilespec.testing import (
    ALL_FIELDS,
    element_types,
    elements,
    layouts,
    positions,
    shapes_with_layout,
    tiles,
    xla_shapes,
)

# --- arguments --------------------------------------------------------------------

BAD_ARGS = [
    (element_types, {"sub_byte": 1}),
    (tiles, {"rank": 0}),
    (tiles, {"rank": 2.0}),
    (tiles, {"max_size": 0}),
    (tiles, {"min_rank": 3, "max_rank": 2}),
    (tiles, {"allow_combine": "yes"}),
    (layouts, {"rank": -1}),
    (layouts, {"rank": True}),
    (layouts, {"rank": 2, "max_tiles": -1}),
    (layouts, {"rank": 2, "min_tiles": 3, "max_tiles": 2}),
    (layouts, {"rank": 2, "max_tile_size": 0}),
    (layouts, {"rank": 2, "fields": "E"}),
    (layouts, {"rank": 2, "fields": ("Q",)}),
    (layouts, {"rank": 2, "fields": ("SC",)}),
    (shapes_with_layout, {"min_rank": -1}),
    (shapes_with_layout, {"min_rank": 3, "max_rank": 1}),
    (shapes_with_layout, {"max_dim": 0}),
    (shapes_with_layout, {"max_elements": 0}),
    (shapes_with_layout, {"max_elements": None}),
    (shapes_with_layout, {"allow_zero": None}),
    (shapes_with_layout, {"dtypes": ["f32"]}),
    (xla_shapes, {"max_leaves": 0}),
    (xla_shapes, {"max_rank": 100}),
    (xla_shapes, {"allow_tuples": 0}),
]


@pytest.mark.parametrize("make, kwargs", BAD_ARGS,
                         ids=[f"{m.__name__}-{k}" for m, k in BAD_ARGS])
def test_bad_arguments(make, kwargs):
    with pytest.raises(InvalidArgument):
        make(**kwargs)


def test_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        tiles(2)
    with pytest.raises(TypeError):
        layouts(2)


def test_elements_and_positions_need_a_concrete_shape():
    with pytest.raises(InvalidArgument):
        elements(parse_array_shape("f32[3,0]"))
    with pytest.raises(InvalidArgument):
        elements(parse_array_shape("f32[m]"))
    with pytest.raises(InvalidArgument):
        elements("f32[3]")
    with pytest.raises(InvalidArgument):
        positions(parse_array_shape("f32[0]{0:T(4)}"))


# --- every value is valid -------------------------------------------------------------

def _vector_lengths(rank, layout):
    """The length of the vector each tile meets, and the tile."""
    n = rank
    for tile in layout.tiles:
        yield n, tile
        n = max(n, len(tile))
        prefix = n - len(tile)
        _, sizes = combine_groups(tile, prefix)
        n = prefix + 2 * len(sizes)


@settings(max_examples=200)
@given(element_types())
def test_element_types_are_known(t):
    assert t in ELEMENT_TYPES


@settings(max_examples=200)
@given(element_types(sub_byte=False))
def test_no_sub_byte_types(t):
    assert bit_width(t) >= 8


@settings(max_examples=200)
@given(tiles(max_rank=5, max_size=6))
def test_tiles_valid(t):
    assert isinstance(t, Tile)
    assert 1 <= len(t) <= 5
    assert t.sizes[-1] != COMBINE
    assert all(x == COMBINE or 1 <= x <= 6 for x in t.sizes)


@settings(max_examples=100)
@given(tiles(rank=3, allow_combine=False))
def test_tiles_without_combine(t):
    assert len(t) == 3 and not t.combines


@settings(max_examples=200)
@given(st.integers(0, 5).flatmap(lambda r: st.tuples(st.just(r), layouts(rank=r))))
def test_layouts_valid(case):
    rank, layout = case
    assert isinstance(layout, Layout)
    assert sorted(layout.minor_to_major) == list(range(rank))
    assert len(layout.tiles) <= 3
    for n, tile in _vector_lengths(rank, layout):
        # A tile is at most two entries longer than the vector it meets.
        assert 1 <= len(tile) <= max(n + 2, 1)
        assert tile.sizes[-1] != COMBINE


@settings(max_examples=300)
@given(shapes_with_layout(min_rank=1, max_rank=5, max_dim=7, min_tiles=1, max_tiles=2,
                          max_elements=1000))
def test_shapes_with_layout_respect_bounds(s):
    assert isinstance(s, Shape)
    assert 1 <= s.rank <= 5
    assert all(isinstance(d, int) and 0 <= d <= 7 for d in s.dims)
    assert 1 <= len(s.layout.tiles) <= 2
    assert padded_elements(s) <= 1000
    assert parse_array_shape(format_shape(s)) == s


@settings(max_examples=100)
@given(shapes_with_layout(max_elements=1, min_tiles=2, max_tiles=2))
def test_tiny_budget_keeps_min_tiles(s):
    assert len(s.layout.tiles) == 2
    assert padded_elements(s) <= 1


@settings(max_examples=100)
@given(shapes_with_layout(allow_zero=False, fields=ALL_FIELDS).flatmap(
    lambda s: st.tuples(st.just(s), elements(s), positions(s))))
def test_elements_and_positions_in_range(case):
    s, e, o = case
    assert len(e) == s.rank
    assert all(0 <= x < d for x, d in zip(e, s.dims))
    assert 0 <= o < padded_elements(s)


# --- every case the tests need comes up ------------------------------------------------

def _find(strategy, condition):
    # Generate only: the first example found is enough, shrinking is slow.
    return find(strategy, condition, settings=settings(
        max_examples=5000, database=None, deadline=None, phases=[Phase.generate]))


def _second_tile_reaches_cross_tile_dims(s):
    lengths = list(_vector_lengths(s.rank, s.layout))
    if len(lengths) < 2:
        return False
    (n1, t1), (n2, t2) = lengths[:2]
    _, sizes = combine_groups(t1, max(n1, len(t1)) - len(t1))
    return len(t2) > len(sizes) and padded_elements(s) > 0


SHAPES = shapes_with_layout(max_rank=5)

COVERED = {
    "a '*' entry": lambda s: any(t.combines for t in s.layout.tiles),
    "two '*' in one tile": lambda s: any(t.sizes.count(COMBINE) >= 2 for t in s.layout.tiles),
    "a size-0 dim": lambda s: 0 in s.dims,
    "a size-1 dim": lambda s: 1 in s.dims and s.rank >= 2,
    "an odd dim tiled by an even size": lambda s: s.rank == 2 and s.layout.tiles
        and s.dims[s.layout.minor_to_major[0]] % 2 == 1
        and s.layout.tiles[0].sizes[-1] % 2 == 0,
    "a scalar with a tile": lambda s: s.rank == 0 and s.layout.tiles,
    "a tile longer than the shape": lambda s: s.rank >= 1 and s.layout.tiles
        and len(s.layout.tiles[0]) > s.rank,
    "three tiling levels": lambda s: len(s.layout.tiles) == 3,
    "a second tile reaching the cross-tile dims": _second_tile_reaches_cross_tile_dims,
    "a non-default minor_to_major": lambda s: s.layout.minor_to_major
        != tuple(range(s.rank - 1, -1, -1)),
    "E(n)": lambda s: s.layout.element_size_in_bits > 0,
    "L(n)": lambda s: s.layout.tail_padding_alignment_in_elements > 1,
    "padding": lambda s: padded_elements(s) > math.prod(s.dims) > 0,
    "a sub-byte type": lambda s: bit_width(s.element_type) < 8,
}


@pytest.mark.parametrize("what", list(COVERED))
def test_shapes_with_layout_cover(what):
    _find(SHAPES, COVERED[what])


TEXT_COVERED = {
    "'?'": lambda x: isinstance(x, Shape) and None in x.dims,
    "'<=N'": lambda x: isinstance(x, Shape) and any(
        f and d is not None for d, f in zip(x.dims, x.dynamic)),
    "a tuple with /*index=5*/": lambda x: "/*index=5*/" in format_shape(x),
    "a nested tuple": lambda x: isinstance(x, TupleShape) and any(
        isinstance(e, TupleShape) for e in x.elements),
    "the empty tuple": lambda x: format_shape(x) == "()",
    "token": lambda x: isinstance(x, Shape) and x.element_type == "token",
    **{f"field {f}": (lambda x, f=f: isinstance(x, Shape) and f"{f}(" in
                      format_shape(x).split(":", 1)[-1])
       for f in ("L", "E", "S", "SC", "M")},
    "a big dim": lambda x: isinstance(x, Shape) and any(
        isinstance(d, int) and d > 10000 for d in x.dims),
}


@pytest.mark.parametrize("what", list(TEXT_COVERED))
def test_xla_shapes_cover(what):
    _find(xla_shapes(), TEXT_COVERED[what])


def test_xla_shapes_names_only_when_asked():
    _find(xla_shapes(allow_names=True),
          lambda x: isinstance(x, Shape) and any(isinstance(d, str) for d in x.dims))
