"""Byte images depend on the values only: not on how the input holds them
(its dtype, the bytes numpy ignores), nor on fields wider than the type.

The expected bytes come from tests/spec/test_bytes.py's brute force
(tilespec.all_offsets and a bit string), never from to_bytes itself.
"""

import math
import re

import numpy as np
import pytest
from test_bytes import brute_bytes, same_bits

import tilespec


@pytest.mark.parametrize("text", ["s2[2]{0:E(4)}", "s2[3,8]{1,0:T(2,1)E(4)}",
                                  "s1[4]{0:E(2)}", "s1[2,8]{0,1:E(4)}"])
def test_a_signed_code_fills_only_its_width_in_a_wider_field(text):
    # The top field of a word was left unmasked: -1 as s2 in E(4) is 0b0011,
    # but its int8 byte 0xFF put 0b1111 there.
    s = tilespec.parse_array_shape(text)
    a = np.full(s.dims, -1, np.int8)
    image = tilespec.to_bytes(s, a)
    assert image.tobytes() == brute_bytes(s, a, np.int8(0))
    assert same_bits(tilespec.from_bytes(s, image), a)


@pytest.mark.parametrize("text", ["s4[4]{0:E(4)}", "s4[2,2]{1,0:T(2,2)(2,1)E(4)}", "s4[4]{0}",
                                  "u4[2,2]{0,1:E(4)}"])
def test_ml_dtypes_int4_gives_the_bytes_of_its_values_whatever_its_high_bits(text):
    # int8 data seen as int4 (a view) keeps its high nibble, which ml_dtypes
    # ignores: 0xF1 is the int4 1.  Taken as the code, it filled the
    # neighbour's nibble.
    import ml_dtypes
    s = tilespec.parse_array_shape(text)
    own = ml_dtypes.int4 if s.element_type == "s4" else ml_dtypes.uint4
    raw = np.array([0xF1, 0x00, 0xF1, 0x30], np.uint8).reshape(s.dims)
    a = raw.view(own)
    values = a.astype(np.int8 if s.element_type == "s4" else np.uint8)
    assert tilespec.to_bytes(s, a).tobytes() == brute_bytes(s, values, np.int8(0))


@pytest.mark.parametrize("text", ["pred[4]{0:E(1)}", "pred[4]{0}", "pred[2,4]{1,0:T(2,8)E(1)}"])
def test_a_pred_is_stored_as_0_or_1_whatever_byte_holds_its_bool(text):
    # numpy reads any byte other than 0 as True (a view of uint8 data);
    # the byte 2 put its bit into the neighbour's place in E(1).
    s = tilespec.parse_array_shape(text)
    raw = np.array([2, 1, 0, 255] * (math.prod(s.dims) // 4), np.uint8)
    a = raw.view(bool).reshape(s.dims)
    assert tilespec.to_bytes(s, a).tobytes() == brute_bytes(s, raw.astype(bool).reshape(s.dims),
                                                            np.False_)


@pytest.mark.parametrize("source,text,big", [("bfloat16", "f8e4m3fn[2]", 1000),
                                             ("bfloat16", "f16[2]", 1e6),
                                             ("float8_e5m2", "f8e4m3fn[2]", 1024)])
def test_a_finite_ml_dtypes_value_that_overflows_the_type_is_a_one_line_error(source, text, big):
    # ml_dtypes' floats were not checked: bf16 1000 became a NaN f8e4m3fn.
    import ml_dtypes
    a = np.array([1, big], getattr(ml_dtypes, source))
    with pytest.raises(ValueError, match=r"^value \S+ does not fit \S+ \(it would become inf or NaN\)$"):
        tilespec.to_bytes(text, a)


@pytest.mark.parametrize("text", ["f8e4m3fn[2]", "f8e4m3fnuz[2]", "f8e4m3b11fnuz[2]"])
@pytest.mark.parametrize("source", ["float32", "bfloat16"])
def test_an_infinity_is_refused_by_a_type_without_one_not_written_as_nan(source, text):
    import ml_dtypes
    dtype = np.float32 if source == "float32" else ml_dtypes.bfloat16
    a = np.array([1, -np.inf], dtype)
    with pytest.raises(ValueError, match=r"^value -inf does not fit \S+ \(it has no infinity"):
        tilespec.to_bytes(text, a)


def test_an_infinity_is_kept_by_a_type_that_has_one():
    assert bytes(tilespec.to_bytes("f8e5m2[2]", np.array([np.inf, 1], np.float32))) == b"\x7c\x3c"


@pytest.mark.parametrize("source", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4"])
@pytest.mark.parametrize("t", ["f16", "f32", "bf16", "f8e5m2", "f8e4m3fn", "f8e8m0fnu", "s8", "s2",
                               "u8"])
def test_ml_dtypes_values_are_taken_by_every_type_that_holds_them(source, t):
    # numpy's casting rules, through ml_dtypes, refused some (bf16 for f16,
    # int4 for s8 or f8e5m2): the values are numbers all the same.
    import ml_dtypes
    from test_bytes import DTYPES
    if t[0] in "su" and not source.startswith(("int", "uint")):
        return   # floats are refused for integer types
    a = np.array([1, 1] if t == "s2" else [1, 2], getattr(ml_dtypes, source))
    want = a.astype(np.float32).astype(DTYPES[t])
    image = tilespec.to_bytes(f"{t}[2]{{0}}", a)
    assert image.tobytes() == brute_bytes(tilespec.parse_array_shape(f"{t}[2]{{0}}"), want,
                                          np.zeros((), DTYPES[t]))


@pytest.mark.parametrize("pad", [[1, 2], [], [[1], [2, 3]]])
def test_a_pad_of_several_values_is_a_one_line_shape_error(pad):
    # numpy's own "cannot reshape array of size 2 into shape (1,)" came out.
    from tilespec.spec.errors import ShapeError
    with pytest.raises(ShapeError, match=r"^pad is one value of f32, not an array of \d+$"):
        tilespec.to_bytes("f32[3]{0:T(2)}", [1, 2, 3], pad=pad)


@pytest.mark.parametrize("t", ["bf16", "f8e4m3fn", "f4e2m1fn"])
def test_complex_values_are_refused_by_a_real_float_type(t):
    # ml_dtypes lets numpy cast complex to its floats: the imaginary part
    # was dropped, without a warning.
    with pytest.raises(ValueError, match=r"^an array of complex128 cannot hold"):
        tilespec.to_bytes(f"{t}[2]", np.array([1 + 2j, 3]))


@pytest.mark.parametrize("t,value,largest", [("f4e2m1fn", 1000.0, 6.0), ("f4e2m1fn", 7.0, 6.0),
                                             ("f4e2m1fn", float("nan"), 6.0),
                                             ("f6e2m3fn", float("inf"), 7.5),
                                             ("f6e3m2fn", -30.0, 28.0)])
def test_a_value_beyond_a_type_without_inf_or_nan_is_refused(t, value, largest):
    # Casts to these types saturate: 1000.0 was stored as 6.0 and NaN as -0.
    with pytest.raises(ValueError, match=rf"^value \S+ does not fit {t} \(largest {largest}, no inf"):
        tilespec.to_bytes(f"{t}[2]", [1.0, value])


@pytest.mark.parametrize("t,value,stored", [("f4e2m1fn", 6.9, 6.0), ("f6e3m2fn", -29.9, -28.0),
                                            ("f6e2m3fn", 7.7, 7.5)])
def test_a_value_that_rounds_to_the_largest_is_taken(t, value, stored):
    image = tilespec.to_bytes(f"{t}[1]", [value])
    assert tilespec.from_bytes(f"{t}[1]", image).astype(float).tolist() == [stored]


@pytest.mark.parametrize("text", ["f4e2m1fn[3]{0}", "f4e2m1fn[3]{0:E(8)}", "f4e2m1fn[3]{0:E(6)}",
                                  "f6e2m3fn[3]{0:T(2)}", "f6e3m2fn[3]{0:E(16)}"])
def test_bits_above_a_small_floats_width_are_ignored_when_reading(text):
    # ml_dtypes reads them (the byte 0x11 is -0.5 as f4e2m1fn, 0x01 is 0.5):
    # from_bytes handed them over.
    s = tilespec.parse_array_shape(text)
    width = tilespec.spec.dtypes.bit_width(s.element_type)
    clean = tilespec.to_bytes(s, np.array([0.5, 1.0, -1.5]))
    bits = np.unpackbits(clean, bitorder="little").reshape(-1, s.element_bits)
    bits[:, width:] = 1   # the bits of each field above the type's width
    dirty = np.packbits(bits.reshape(-1), bitorder="little")
    assert tilespec.from_bytes(s, dirty).astype(np.float32).tolist() == [0.5, 1.0, -1.5]


def test_a_small_float_array_gives_the_codes_of_its_values_whatever_its_high_bits():
    # 0x11 seen as f4e2m1fn is -0.5 (code 0x9); taken as the code, it put
    # 0x1 in its nibble and a 1 into the neighbour's.
    import ml_dtypes
    a = np.array([0x11, 0x00], np.uint8).view(ml_dtypes.float4_e2m1fn)
    s = tilespec.parse_array_shape("f4e2m1fn[2]{0:E(4)}")
    want = np.array([-0.5, 0], ml_dtypes.float4_e2m1fn)
    assert tilespec.to_bytes(s, a).tobytes() == brute_bytes(s, want, want[1])


def test_every_kind_of_buffer_reads_the_same_array():
    # a strided memoryview raised numpy's BufferError
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    image = tilespec.to_bytes("f32[2,3]{0,1:T(2,2)}", a)
    twice = np.repeat(image, 2)
    odd = np.frombuffer(b"\0" + image.tobytes(), np.uint8, offset=1)
    for buffer in [image.tobytes(), bytearray(image.tobytes()), memoryview(image),
                   memoryview(twice)[::2], twice[::2], odd, image.view(np.int8)]:
        assert same_bits(tilespec.from_bytes("f32[2,3]{0,1:T(2,2)}", buffer), a)


@pytest.mark.parametrize("t,values,message", [
    ("u64", [1, 2**70], "value 1180591620717411303424 does not fit u64 (0 to 18446744073709551615)"),
    ("s64", [-2**63 - 1, 0], "value -9223372036854775809 does not fit s64"),
    ("s64", [2**64, 0], "value 18446744073709551616 does not fit s64"),
])
def test_an_integer_past_64_bits_is_named_as_out_of_range(t, values, message):
    # numpy keeps such integers as objects: "an array of object cannot hold" came out
    from tilespec.spec.errors import ShapeError
    with pytest.raises(ShapeError, match="^" + re.escape(message)):
        tilespec.to_bytes(f"{t}[2]{{0}}", values)
    with pytest.raises(ShapeError, match=r"^pad \d+ is not a value of u8 \(0 to 255\)$"):
        tilespec.to_bytes("u8[2]{0}", [1, 2], pad=2**64)

