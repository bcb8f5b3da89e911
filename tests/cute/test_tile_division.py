"""What dividing an XLA tiled layout by a tile gives, and which XLA tiling
that is: proved where it is a tiling (the divide's offsets are those of an
XLA layout with the tile as a level, at every element, checked again by
computing every element), refuted at an element that replays where it is
not."""

import itertools

import pytest
from hypothesis import assume, given, settings

from tilespec.cute.int_tuple import CuteError
from tilespec.cute.proofs.tile_division import tile_division
from tilespec.spec.errors import LayoutError
from tilespec.spec.index import offset
from tilespec.spec.printer import format_shape
from tilespec.spec.text import parse_array_shape
from tilespec.testing import shapes_with_layout


def every_element(dims, limit=2000):
    """Every element, or every k-th of them past ``limit`` elements."""
    n = 1
    for d in dims:
        n *= d
    return itertools.islice(itertools.product(*(range(d) for d in dims)), 0, None,
                            max(1, n // limit))


@pytest.mark.parametrize("shape, tile, xla", [
    ("f32[24,256]{1,0:T(8,128)}", (8, 128), "f32[24,256]{1,0:T(8,128)}"),
    ("f32[20,250]{1,0:T(8,128)}", (8, 128), "f32[20,250]{1,0:T(8,128)}"),
    ("bf16[16,300]{1,0:T(8,128)(2,1)}", (8, 128), "bf16[16,300]{1,0:T(8,128)(2,1)}"),
    ("f32[256,24]{0,1:T(8,128)}", (8, 128), "f32[256,24]{0,1:T(8,128)}"),
    ("f32[4,24,256]{2,1,0:T(8,128)}", (8, 128), "f32[4,24,256]{2,1,0:T(8,128)}"),
    ("f32[24,256]{1,0:T(8,128)}", (4, 128), "f32[24,256]{1,0:T(8,128)(4,128)}"),
    ("f32[24,256]{1,0:T(8,128)}", (8, 64), None),
    ("f32[24,256]{1,0}", (8, 128), None),
])
def test_the_divide_is_the_xla_tiling_named_or_none(shape, tile, xla):
    d = tile_division(shape, tile)
    assert d.xla == xla
    s = parse_array_shape(shape)
    if xla is not None:
        assert d.result.proved
        named = parse_array_shape(xla)
        assert all(d.offset(e) == offset(named, e) for e in every_element(s.dims))
    else:
        ce = d.result.counterexample
        assert d.result.status == "refuted"
        e = ce.side("cute").element
        assert ce.side("cute").offset == d.offset(e) != ce.side("spec").offset
        assert "no XLA tiling with the tile" in "\n".join(d.lines())


def test_the_tile_mode_is_the_tile_and_the_rest_mode_the_grid_of_tiles():
    d = tile_division("f32[24,256]{1,0:T(8,128)}", (8, 128))
    assert str(d.tile_layout) == "(8, 128):(128, 1)"     # row-major inside a tile
    assert str(d.tiles_layout) == "(3, 2):(2048, 1024)"  # tiles in row-major order


@settings(max_examples=25)
@given(shapes_with_layout(min_rank=1, max_rank=3, min_tiles=1, max_tiles=2, max_dim=20,
                          allow_combine=False, allow_zero=False, fields=(), max_elements=2048))
def test_dividing_by_a_layouts_own_first_tile_gives_its_offsets_back(shape):
    first = shape.layout.tiles[0].sizes
    assume(len(first) <= shape.rank)
    try:
        d = tile_division(shape, first)
    except (LayoutError, CuteError):
        assume(False)   # no exact CuTe form, or a divide that is not admissible
    assert d.xla is not None and d.result.proved, (format_shape(shape), d.result)
    named = parse_array_shape(d.xla)
    assert all(d.offset(e) == offset(named, e) == offset(shape, e)
               for e in every_element(shape.dims))


@pytest.mark.parametrize("tile, words", [((8, 128, 2, 2), "a tile of 4 sizes >= 1"),
                                         ((0, 128), "a tile of 2 sizes >= 1")])
def test_a_bad_tile_is_one_value_error_line(tile, words):
    with pytest.raises(ValueError, match=words):
        tile_division("f32[24,256]{1,0:T(8,128)}", tile)


def test_a_bad_tile_is_a_one_line_shape_error_naming_the_tile():
    import pytest

    from tilespec.cute.proofs.tile_division import tile_division
    from tilespec.spec.errors import ShapeError
    assert tile_division("f32[24,256]{1,0:T(8,128)}", "8,128").xla == "f32[24,256]{1,0:T(8,128)}"
    with pytest.raises(ShapeError, match=r"the tile \(2,3\) does not divide") as e:
        tile_division("f32[4,4]{1,0:T(2,2)}", (2, 3))
    assert "\n" not in str(e.value)
    with pytest.raises(ShapeError, match="not '8,x'"):
        tile_division("f32[24,256]{1,0:T(8,128)}", "8,x")
