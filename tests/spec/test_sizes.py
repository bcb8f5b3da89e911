"""Byte sizes: padding, L(n) alignment, E(n) packing, pred and sub-byte types."""

import math

import pytest
from hypothesis import given, settings

from tilespec.spec import (
    aligned_elements,
    bit_range,
    byte_size,
    num_elements,
    padded_elements,
    padding_fraction,
    parse_array_shape,
)
from tilespec.spec.dtypes import bit_width
from tilespec.testing import SIZE_FIELDS, shapes_with_layout


def shape(text):
    return parse_array_shape(text)


@pytest.mark.parametrize("text, elements, padded, aligned, nbytes", [
    # untiled: elements times the type's whole bytes
    ("f32[3,5]", 15, 15, 15, 60),
    ("bf16[7]", 7, 7, 7, 14),
    ("c128[2]", 2, 2, 2, 32),
    ("s32[]", 1, 1, 1, 4),
    ("f32[0,5]", 0, 0, 0, 0),
    # pred and sub-byte types take a byte each without E(n)
    ("pred[10]", 10, 10, 10, 10),
    ("pred[]", 1, 1, 1, 1),
    ("s4[3]{0}", 3, 3, 3, 3),
    ("u2[5]", 5, 5, 5, 5),
    # E(n) packs them: bits rounded up to whole bytes
    ("s4[3]{0:E(4)}", 3, 3, 3, 2),
    ("s4[4]{0:E(4)}", 4, 4, 4, 2),
    ("s4[5]{0:E(4)}", 5, 5, 5, 3),
    ("pred[10]{0:E(1)}", 10, 10, 10, 2),
    ("u2[5]{0:E(2)}", 5, 5, 5, 2),
    ("s4[3,5]{1,0:T(2,2)E(4)}", 15, 24, 24, 12),
    # E(n) wider than the type
    ("s8[3]{0:E(16)}", 3, 3, 3, 6),
    # tiling pads
    ("f32[3,5]{1,0:T(2,2)}", 15, 24, 24, 96),
    ("s32[]{:T(128)}", 1, 128, 128, 512),
    ("f32[3]{0:T(2,2)}", 3, 8, 8, 32),
    # L(n): the padded elements rounded up to a multiple of n
    ("f32[3,5]{1,0:T(2,2)L(1024)}", 15, 24, 1024, 4096),
    ("f32[3,5]{1,0:T(2,2)L(5)}", 15, 24, 25, 100),
    ("f32[3,5]{1,0:T(2,2)L(8)}", 15, 24, 24, 96),
    ("f32[3]{0:L(4)}", 3, 3, 4, 16),
    ("f32[0]{0:T(2)L(4)}", 0, 0, 0, 0),
    ("s4[3]{0:L(4)E(4)}", 3, 3, 4, 2),
    # repeated tiling
    ("f32[3]{0:T(2)(2,1)}", 3, 4, 4, 16),
    ("f32[5]{0:T(4)(3)}", 5, 12, 12, 48),        # 5 -> (2,4) -> (2,2,3)
    ("f32[4,8]{1,0:T(2,4)(2,1)}", 32, 32, 32, 128),
    ("f32[2,12]{1,0:T(2,4)(2,2,1)}", 24, 32, 32, 128),
    ("bf16[3,5]{1,0:T(8,128)(2,1)}", 15, 1024, 1024, 2048),
    ("bf16[9,130]{1,0:T(8,128)(2,1)}", 1170, 4096, 4096, 8192),
    ("bf16[1024,1024]{1,0:T(8,128)(2,1)}", 2**20, 2**20, 2**20, 2**21),
    # combining dims: 7*5 = 35 padded to 36
    ("f32[7,5]{1,0:T(*,4)}", 35, 36, 36, 144),
    ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", 12320, 12432, 12432, 49728),
])
def test_sizes(text, elements, padded, aligned, nbytes):
    s = shape(text)
    assert num_elements(s) == elements
    assert padded_elements(s) == padded
    assert aligned_elements(s) == aligned
    assert byte_size(s) == nbytes


def test_token_takes_no_memory():
    assert byte_size(shape("token[]")) == 0


def test_bit_ranges_of_packed_elements():
    s = shape("s4[5]{0:E(4)}")
    assert [bit_range(s, o) for o in range(5)] == [(0, 4), (4, 8), (8, 12), (12, 16), (16, 20)]
    # Two s4 values share a byte; without E(4) each takes its own.
    assert bit_range(shape("s4[5]"), 1) == (8, 16)
    assert bit_range(shape("pred[9]{0:E(1)}"), 8) == (8, 9)


def test_padding_fraction():
    assert padding_fraction(shape("f32[3,5]{1,0:T(2,2)}")) == pytest.approx(9 / 24)
    assert padding_fraction(shape("s32[]{:T(128)}")) == pytest.approx(127 / 128)
    assert padding_fraction(shape("f32[3,5]")) == 0.0
    assert padding_fraction(shape("f32[0]")) == 0.0


@settings(max_examples=300)
@given(shapes_with_layout(max_rank=4, max_tiles=3, fields=SIZE_FIELDS))
def test_size_invariants(s):
    n = num_elements(s)
    padded = padded_elements(s)
    align = s.layout.tail_padding_alignment_in_elements
    aligned = aligned_elements(s)
    assert n <= padded <= aligned < padded + align
    assert aligned % align == 0
    bits = s.element_bits
    if s.layout.element_size_in_bits:
        assert bits == s.layout.element_size_in_bits
    else:
        # Whole bytes: pred and sub-byte types take one.
        assert bits == 8 * math.ceil(bit_width(s.element_type) / 8)
    assert byte_size(s) == -(-aligned * bits // 8)
    assert byte_size(s) * 8 - aligned * bits < 8
    if aligned:
        assert 0.0 <= padding_fraction(s) < 1.0 or n == 0


def test_named_dim_cannot_be_dynamic():
    # Regression: Shape("f32", ("n",), dynamic=(True,)) printed 'f32[<=n]',
    # text the parser rejects.
    import pytest

    from tilespec.spec.errors import ShapeError
    from tilespec.spec.layout import Shape
    with pytest.raises(ShapeError, match="named dim"):
        Shape("f32", ("n",), dynamic=(True,))
