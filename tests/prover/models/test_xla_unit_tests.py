"""openxla/xla's own unit tests as facts, replayed through tilespec.

Each table carries over the expected values of one test (its name and
file:commit cite it); the shapes are written as XLA's text for the shape the
test builds.  The models (``prover.models``) must give XLA's values, and
where the spec answers the same question it must give them too.
"""

import pytest

from tilespec.interop.strides import strides
from tilespec.prover.bitcast import decompose
from tilespec.prover.models.array_size import xla_array_bytes
from tilespec.prover.models.data_size import array_data_size_int64
from tilespec.prover.models.decomposable import is_decomposable_bitcast
from tilespec.prover.models.nested_tiling import (
    nested_delinearize_int64,
    nested_linear_index_int64,
    xla_nested_delinearize,
    xla_nested_linear_index,
)
from tilespec.prover.models.rules import xla_reshape_is_bitcast, xla_transpose_is_bitcast
from tilespec.prover.models.untiled import is_untiled_layout, spec_is_untiled
from tilespec.spec.errors import TilespecError
from tilespec.spec.index import offset
from tilespec.spec.printer import format_shape
from tilespec.spec.size import byte_size
from tilespec.spec.text import parse_array_shape, parse_shape

LAYOUT_UTIL_TEST = "xla/layout_util_test.cc@435f2535ca"
SHAPE_UTIL_TEST = "xla/shape_util_test.cc@6018f91e41"
LAYOUT_TEST = "xla/layout_test.cc@307bb50912"

#: (test, shape, index, LinearIndexForNestedTiling) -- the offset also
#: delinearizes back to the index where the test checks it
NESTED = [
    ("LinearIndexForNestedTilingRoundTrip1D", "bf16[2048]{0:T(1024)(128)(2,1)}", (0,), 0),
    ("LinearIndexForNestedTilingRoundTrip1D", "bf16[2048]{0:T(1024)(128)(2,1)}", (128,), 1),
    ("LinearIndexForNestedTilingRoundTrip1D", "bf16[2048]{0:T(1024)(128)(2,1)}", (1,), 2),
    ("LinearIndexForNestedTilingRoundTrip2D", "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}",
     (0, 0, 0), 0),
    ("LinearIndexForNestedTilingRoundTrip2D", "bf16[2,8,128]{2,1,0:T(8,128)(2,1)}",
     (0, 2, 0), 256),
    ("LinearIndexWithAndWithoutTiles", "f32[8,4]{1,0:T(2,2)}", (3, 1), 11),
    ("LinearIndexWithAndWithoutTiles", "f32[8,4]{1,0}", (3, 1), 13),
]

#: (shape dims, tiles, IsUntiledLayout) -- IsUntiledLayoutTests
UNTILED = [
    ("f32[24,128]{1,0:T(8,128)}", True),
    ("f32[4,256]{1,0:T(1,128)}", True),
    ("f32[2,3,4]{2,1,0:T(8,128)}", False),
]

#: The reverted allow_trailing_padding variant of IsUntiledLayout
#: (openxla/xla history, reverted before 435f2535ca) is documentation only:
#: docs/rules.md describes it; no fact of it is replayed.

#: (test, src, dst, ignore_element_type, ReshapeIsBitcast)
RESHAPE = [
    ("ReshapeIsBitcast_3x4_6x2", "f32[3,4]{1,0}", "f32[6,2]{1,0}", False, True),
    ("ReshapeIsBitcast_3x4_6x2", "f32[3,4]{1,0}", "f32[6,2]{0,1}", False, False),
    ("ReshapeIsBitcast_3x4_6x2", "f32[3,4]{0,1}", "f32[6,2]{1,0}", False, False),
    ("ReshapeIsBitcast_3x4_6x2", "f32[3,4]{0,1}", "f32[6,2]{0,1}", False, False),
    ("ReshapeIsBitcast_3x2x2_6x2_Dim1IsMostMinor", "f32[3,2,2]{1,0,2}", "f32[6,2]{0,1}",
     False, True),
    ("ReshapeIsBitcastIgnoreElementType", "f32[3,2,2]{1,0,2}", "f16[6,2]{0,1}", True, True),
    ("ReshapeIsBitcastIgnoreElementType", "f32[3,2,2]{1,0,2}", "f16[6,2]{0,1}", False, False),
    ("ReshapeIsBitcast_3x2x2_6x2_Dim0IsMostMinor", "f32[3,2,2]{0,1,2}", "f32[6,2]{0,1}",
     False, False),
]

#: (test, src, dst, permutation, ignore_element_type, TransposeIsBitcast)
TRANSPOSE = [
    ("TransposeIsBitcastIgnoreElementType", "f32[10,5]{1,0}", "f16[5,10]{0,1}", (1, 0),
     True, True),
    ("TransposeIsBitcastIgnoreElementType", "f32[10,5]{1,0}", "f16[5,10]{0,1}", (1, 0),
     False, False),
]

#: (test, shape, ArrayDataSize, ArraySize) in bytes
SIZES = [
    ("Int4ShapeSize", "s4[64,128]{1,0:E(4)}", 64 * 128 // 2, 64 * 128 // 2),
    ("Int4ShapeSize", "s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", 9216 * 6144 // 2,
     9216 * 6144 // 2),
] + [("ZeroSize", f"s4[{','.join(map(str, d))}]{{2,1,0:E(4)}}", 0, 0)
     for d in ((0, 64, 128), (128, 0, 64), (64, 128, 0), (0, 63, 127), (127, 0, 63),
               (63, 127, 0))]

#: (test, src, dst, what DecomposeBitcast returns, its transpose dims)
DECOMPOSE = [
    ("DecomposeBitcastToReshape", "f32[1,16,17,3]{3,2,1,0}", "f32[16,51]{1,0}",
     "reshape", None),
    ("DecomposeBitcastToReshape2", "f32[17,3,1,16]{1,0,3,2}", "f32[51,16]{0,1}",
     "reshape", None),
    ("DecomposeBitcastToTranspose", "f32[3,7,6,4]{3,2,1,0}", "f32[3,6,4,7]{2,1,3,0}",
     "transpose", (0, 2, 3, 1)),
    ("DecomposeBitcastToReshapeAndTranspose", "f32[16,17,3]{2,1,0}", "f32[51,16]{0,1}",
     "trt", None),
    ("DecomposeBitcastToReshapeAndTranspose2", "f32[16,17,3,7]{3,2,1,0}",
     "f32[7,16,51]{0,2,1}", "trt", None),
    ("DecomposeBitcastToTransposeAndReshape", "f32[16,3,17]{1,2,0}", "f32[51,16]{1,0}",
     "trt", None),
    ("DecomposeBitcastToTrt", "f32[16,3,17]{1,2,0}", "f32[16,51]{0,1}", "trt", None),
]

#: (test, src, dst, IsDecomposableBitcast) -- FailOnNonDecomposableBitcast
DECOMPOSABLE = [
    ("FailOnNonDecomposableBitcast", "s4[3,2]{1,0}", "s8[3]{0}", False),
    ("FailOnNonDecomposableBitcast", "s4[3,2]{1,0}", "s8[3,2]{1,0}", True),
]

#: (test, shape, UnpackedByteStrides) -- unpacked: one byte per sub-byte element
STRIDES = [
    ("UnpackedByteStrides", "f32[3,5,7]{2,1,0}", (140, 28, 4)),
    ("UnpackedByteStrides", "f16[5,7,9]{2,1,0}", (126, 18, 2)),
    ("UnpackedByteStrides", "s4[2,4]{1,0:E(4)}", (4, 1)),
]

#: (test, Layout::ToString) -- printed after a shape of the layout's rank; a
#: text whose fields only sparse arrays may have is not a valid dense shape
TO_STRING = [
    ("ToStringForMinorToMajorOnly", "{1,2,0}", True),
    ("ToStringForTiles", "{3,2,1,0:T(42,123)(4,5)}", True),
    ("ToStringForTileWithCombinedDimensions", "{3,2,1,0:T(*,*,42,123)}", True),
    ("ToStringForTailPaddingAlignment", "{3,2,1,0:L(100)}", True),
    ("ToStringForIndexPrimitiveType", "{3,2,1,0:#(u32)}", False),
    ("ToStringForPointerPrimitiveType", "{3,2,1,0:*(u16)}", False),
    ("ToStringForElementSize", "{3,2,1,0:E(42)}", True),
    ("ToStringForMemorySpace", "{3,2,1,0:S(3)}", True),
    ("ToStringForPhysicalShape", "{0,1:P(s32[10,20]{1,0})}", False),
    ("ToStringForDynamicShapeMetadataPrefixBytes", "{0,1:M(123)}", True),
    ("ToStringForMutipleProperties", "{3,2,1,0:T(42,123)(4,5)L(100)E(42)}", True),
]


@pytest.mark.parametrize("test, text, index, expected", NESTED)
def test_nested_tiling_facts_of_layout_util_test(test, text, index, expected):
    s = parse_array_shape(text)
    assert xla_nested_linear_index(s, index) == expected, (LAYOUT_UTIL_TEST, test)
    assert nested_linear_index_int64(s, index)[0] == expected
    assert offset(s, index) == expected               # the spec agrees
    assert xla_nested_delinearize(s, expected) == index
    assert nested_delinearize_int64(s, expected)[0] == index


@pytest.mark.parametrize("text, expected", UNTILED)
def test_is_untiled_layout_facts_of_layout_util_test(text, expected):
    s = parse_array_shape(text)
    assert is_untiled_layout(s) == expected, (LAYOUT_UTIL_TEST, "IsUntiledLayoutTests")
    assert spec_is_untiled(s) == expected


@pytest.mark.parametrize("test, a, b, ignore, expected", RESHAPE)
def test_reshape_is_bitcast_facts_of_shape_util_test(test, a, b, ignore, expected):
    got = xla_reshape_is_bitcast(parse_array_shape(a), parse_array_shape(b),
                                 ignore_element_type=ignore)
    assert got == expected, (SHAPE_UTIL_TEST, test)


@pytest.mark.parametrize("test, a, b, perm, ignore, expected", TRANSPOSE)
def test_transpose_is_bitcast_facts_of_shape_util_test(test, a, b, perm, ignore, expected):
    got = xla_transpose_is_bitcast(parse_array_shape(a), parse_array_shape(b), perm,
                                   ignore_element_type=ignore)
    assert got == expected, (SHAPE_UTIL_TEST, test)


@pytest.mark.parametrize("test, text, data_size, array_size", SIZES)
def test_size_facts_of_shape_util_test(test, text, data_size, array_size):
    s = parse_array_shape(text)
    assert array_data_size_int64(s)[0] == data_size, (SHAPE_UTIL_TEST, test)
    assert xla_array_bytes(s) == array_size, (SHAPE_UTIL_TEST, test)
    assert byte_size(s) == array_size                 # the spec agrees


@pytest.mark.parametrize("test, a, b, kind, dims", DECOMPOSE)
def test_decompose_bitcast_facts_of_shape_util_test(test, a, b, kind, dims):
    d = decompose(parse_array_shape(a), parse_array_shape(b))
    assert d.status == "proved" and d.kind == kind, (SHAPE_UTIL_TEST, test)
    if dims is not None:
        assert d.xla_permutation == dims


@pytest.mark.parametrize("test, a, b, expected", DECOMPOSABLE)
def test_is_decomposable_bitcast_facts_of_shape_util_test(test, a, b, expected):
    got = is_decomposable_bitcast(parse_array_shape(a), parse_array_shape(b))
    assert got == expected, (SHAPE_UTIL_TEST, test)


@pytest.mark.parametrize("test, text, expected", STRIDES)
def test_byte_strides_facts_of_shape_util_test(test, text, expected):
    s = parse_array_shape(text)
    unpacked = max(1, s.element_bits // 8)            # a sub-byte element unpacked: 1 byte
    assert tuple(x * unpacked for x in strides(s, "elements")) == expected, (
        SHAPE_UTIL_TEST, test)


def test_byte_strides_of_a_packed_shape_are_none():
    # ByteStridesFailsOnFractionalElementSize: s4[10,20] with E(4) has none
    with pytest.raises(TilespecError):
        strides(parse_array_shape("s4[10,20]{1,0:E(4)}"), "bytes")


@pytest.mark.parametrize("test, layout, dense", TO_STRING)
def test_layout_to_string_facts_of_layout_test(test, layout, dense):
    rank = len(layout[1:].split(":")[0].rstrip("}").split(","))
    text = f"f32[{','.join(str(d) for d in (2, 3, 5, 7)[:rank])}]{layout}"
    if dense:
        assert format_shape(parse_shape(text)) == text, (LAYOUT_TEST, test)
    else:
        with pytest.raises(ValueError, match="only for sparse arrays"):
            parse_shape(text)
