"""CuTe layouts and their text: parse and print round-trip, the coordinate
functions invert each other, the default stride is compact, and bad text is
one ValueError line."""

import pytest
from cute_strategies import layouts, shapes
from hypothesis import given, settings

from tilespec.cute import Layout, as_layout, parse_cute
from tilespec.cute.int_tuple import crd2idx, idx2crd, product
from tilespec.cute.xla import cute_layout
from tilespec.spec.errors import ParseError
from tilespec.spec.index import offset
from tilespec.spec.text import parse_array_shape


@settings(max_examples=200)
@given(layouts())
def test_the_text_reads_back_as_the_same_layout(layout):
    assert parse_cute(str(layout)) == layout
    assert parse_cute(layout.cute_text()) == layout


@settings(max_examples=100)
@given(shapes())
def test_idx2crd_and_crd2idx_invert_each_other_on_the_domain(shape):
    for i in range(product(shape)):
        assert crd2idx(idx2crd(i, shape), shape) == i


@settings(max_examples=100)
@given(layouts())
def test_an_index_and_its_coordinate_have_one_offset(layout):
    for i in range(layout.size):
        assert layout(i) == layout(idx2crd(i, layout.shape))


@settings(max_examples=100)
@given(shapes())
def test_the_default_stride_is_compact(shape):
    layout = Layout(shape)
    assert sorted(layout(i) for i in range(layout.size)) == list(range(layout.size))


def test_str_prints_as_pycute_and_cute_text_as_cpp():
    layout = Layout(((8, 3), (128,)), ((128, 2048), (1,)))
    assert str(layout) == "((8, 3), (128,)):((128, 2048), (1,))"
    assert layout.cute_text() == "((8,3),(128)):((128,2048),(1))"
    assert str(Layout(8)) == "8:1" and str(Layout(())) == "():()"


@pytest.mark.parametrize("text", ["f32[24,256]{1,0:T(8,128)}", "bf16[16,300]{1,0:T(8,128)(2,1)}",
                                  "f32[3,5]{0,1:T(2,2)}"])
def test_an_exported_layout_reads_back_from_its_text_with_the_spec_offsets(text):
    shape = parse_array_shape(text)
    exported = cute_layout(shape)
    assert as_layout(exported) is exported
    assert parse_cute(str(exported)) == parse_cute(exported.cute_text()) == exported
    for e0 in range(shape.dims[0]):
        for e1 in range(shape.dims[1]):
            assert exported((e0, e1)) == exported(e0, e1) == offset(shape, (e0, e1))


@pytest.mark.parametrize("text, message", [
    ("(8,3):(1,8", "expected ',' or ')' at column 11"),
    ("(8,3):(1,8))", "expected the end of the layout at column 12"),
    ("(8,x):(1,8)", "expected an int or '(' at column 4"),
    ("(8,3):(1,(8,2))", "does not nest like the shape"),
    ("(8,0):(1,8)", "has a size below 1"),
    ("", "expected an int or '(' at column 1"),
])
def test_bad_text_is_one_value_error_line(text, message):
    with pytest.raises(ParseError) as e:
        parse_cute(text)
    assert isinstance(e.value, ValueError)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_cute_cpp_static_ints_read_as_their_value():
    from tilespec.cute.layout import Layout, parse_cute
    assert parse_cute("(_8,_3):(_1,_8)") == parse_cute("(8,3):(1,8)") == Layout((8, 3), (1, 8))
    assert parse_cute("((_2,4),_3):((_1,2),_8)") == Layout(((2, 4), 3), ((1, 2), 8))
    import pytest

    from tilespec.spec.errors import ParseError
    with pytest.raises(ParseError, match="digits after '_'"):
        parse_cute("(_,3):(1,8)")
