"""Byte images equal a brute force written here, element by element.

The brute force asks the closed formula of spec.index (:func:`tilespec.all_offsets`,
the vectorised :func:`tilespec.offset`; not the pad-reshape-transpose that
to_bytes runs) where each element goes, and writes element p's bits at bits
[p*E, (p+1)*E) of one little-endian bit string: element 0 in the low bits of
byte 0, the bits after the last element 0, padding elements the pad's bits.
"""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tilespec
from tilespec.image import strided
from tilespec.image.strided import layout_plan
from tilespec.spec.dtypes import ELEMENT_TYPES, bit_width, storage_bits
from tilespec.spec.errors import ShapeError
from tilespec.spec.layout import Shape
from tilespec.testing import shapes_with_layout

#: The numpy dtype of each type's values, written out once more.
DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "s1": np.int8, "s2": np.int8, "s4": np.int8, "u1": np.uint8, "u2": np.uint8,
    "u4": np.uint8, "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128, "bf16": ml_dtypes.bfloat16,
    "f4e2m1fn": ml_dtypes.float4_e2m1fn, "f6e2m3fn": ml_dtypes.float6_e2m3fn,
    "f6e3m2fn": ml_dtypes.float6_e3m2fn, "f8e3m4": ml_dtypes.float8_e3m4,
    "f8e4m3": ml_dtypes.float8_e4m3, "f8e4m3fn": ml_dtypes.float8_e4m3fn,
    "f8e4m3b11fnuz": ml_dtypes.float8_e4m3b11fnuz,
    "f8e4m3fnuz": ml_dtypes.float8_e4m3fnuz, "f8e5m2": ml_dtypes.float8_e5m2,
    "f8e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "f8e8m0fnu": ml_dtypes.float8_e8m0fnu,
}


def bits_of(t, values):
    """The bits each value of type t stores, as Python ints in row-major
    order: its bit pattern, the sub-byte integers in two's complement of
    their width."""
    width = bit_width(t)
    a = np.asarray(values, DTYPES[t]).reshape(-1)
    if t[0] in "su" and width < 8:
        return [v & ((1 << width) - 1) for v in a.astype(np.int64).tolist()]
    raw = a.view(np.uint8).reshape(-1, storage_bits(t) // 8)
    return [int.from_bytes(r.tobytes(), "little") for r in raw]


def brute_bytes(shape, array, pad):
    bits = shape.element_bits
    slots = bits_of(shape.element_type, pad) * tilespec.aligned_elements(shape)
    where = tilespec.all_offsets(shape).reshape(-1).tolist()
    for o, code in zip(where, bits_of(shape.element_type, array)):
        slots[o] = code
    # element p at bits [p*bits, (p+1)*bits): the string's last field is element 0
    text = "".join(format(c, f"0{bits}b") for c in reversed(slots))
    size = tilespec.byte_size(shape)
    return (int(text, 2) if text else 0).to_bytes(size, "little")


def values(t, dims, rng):
    """Random values of type t (the float ones finite)."""
    width = bit_width(t)
    if t == "pred":
        return rng.integers(0, 2, dims).astype(bool)
    if t[0] in "su":
        info = np.iinfo(np.int64 if t[0] == "s" else np.uint64)
        low = -(1 << (width - 1)) if t[0] == "s" else 0
        high = min(low + (1 << width) - 1, info.max)
        dtype = np.int64 if t[0] == "s" else np.uint64
        return rng.integers(low, high, dims, dtype=dtype, endpoint=True).astype(DTYPES[t])
    x = rng.normal(0, 4, dims)
    if t[0] == "c":
        x = x + 1j * rng.normal(0, 4, dims)
    return x.astype(DTYPES[t])


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def holding_values(shape):
    """The shape with E(n), when smaller than the type, raised to its width."""
    e = shape.layout.element_size_in_bits
    if 0 < e < bit_width(shape.element_type):
        return shape.with_layout(shape.layout.replace(
            element_size_in_bits=bit_width(shape.element_type)))
    return shape


SHAPES = shapes_with_layout(min_rank=0, max_rank=4, max_dim=9, min_tiles=0, max_tiles=3,
                            max_elements=256,
                            dtypes=st.sampled_from(sorted(DTYPES, key=ELEMENT_TYPES.index)))


@settings(max_examples=300)
@given(SHAPES, st.integers(0, 2**32 - 1))
def test_bytes_equal_the_brute_force_and_read_back(shape, seed):
    s = holding_values(shape)
    rng = np.random.default_rng(seed)
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    image = tilespec.to_bytes(s, a, pad=pad)
    assert image.dtype == np.uint8 and image.shape == (tilespec.byte_size(s),)
    assert image.tobytes() == brute_bytes(s, a, pad)
    assert same_bits(tilespec.from_bytes(s, image), a)


@settings(max_examples=100)
@given(SHAPES, st.integers(0, 2**32 - 1))
def test_padding_is_ignored_when_reading(shape, seed):
    s = holding_values(shape)
    rng = np.random.default_rng(seed)
    a = values(s.element_type, s.dims, rng)
    other = values(s.element_type, (), rng)
    garbage = np.frombuffer(brute_bytes(s, a, other), np.uint8)
    assert same_bits(tilespec.from_bytes(s, garbage), a)


# Every layout family, with the plan's segments that show which path ran.
FAMILIES = [
    # (shape, dims, segments, last segment a plain copy)
    ("f32[16,256]{1,0:T(8,128)}", None, 1, True),
    ("f32[20,300]{1,0:T(8,128)}", None, 1, False),             # padding
    ("bf16[16,256]{1,0:T(8,128)(2,1)}", None, 1, True),        # (2,1): words of 2 rows
    ("bf16[20,300]{1,0:T(8,128)(2,1)}", None, 2, True),
    ("bf16[3,5]{1,0:T(3,1)(2,1)}", None, 1, False),            # level 2 pads 3 -> 4
    ("bf16[5,5]{1,0:T(3,1)(2,1)}", None, 2, False),            # both levels pad
    ("s8[64,256]{1,0:T(32,128)(4,1)}", None, 1, True),
    ("s4[16,256]{1,0:T(8,128)(2,1)E(4)}", None, 1, True),
    ("s4[9,130]{1,0:T(8,128)(2,1)E(4)}", None, 2, True),
    ("s4[9,130]{1,0:T(8,128)E(4)}", None, 1, False),           # packs the image flat
    ("u4[7]{0:E(4)}", None, 1, True),                          # odd count
    ("s2[3,7]{0,1:E(2)}", None, 1, True),
    ("pred[5,13]{1,0:T(2,8)E(1)}", None, 1, False),
    ("pred[16,8]{1,0:T(2,8)E(1)}", None, 1, True),
    ("s8[3,5]{1,0:E(16)}", None, 1, True),                     # widened
    ("u2[3,5]{1,0:T(2,2)E(3)}", None, 1, False),               # fields across bytes
    ("s4[4,6]{1,0:T(2,2)E(6)}", None, 1, True),
    ("f32[6,6]{1,0:T(2,2)(*,2)}", None, 2, True),              # '*' after a level
    ("f32[4,6]{0,1:T(*,2)}", None, 2, True),                   # '*' across a transpose
    ("f32[2,3,5]{2,1,0:T(*,2,2)}", None, 1, False),
    ("s16[2,3,4,5]{3,1,2,0:T(2,3)(2,1)}", None, 2, True),      # rank 4
    ("f32[3,5]{1,0:T(2,1,2,2)}", None, 1, False),              # tile longer than the rank
    ("f32[]{:T(4)}", None, 1, False),
    ("f32[1,1,7]{2,1,0:T(1,1,4)}", None, 1, False),            # unit dims
    ("f32[0,5]{1,0:T(2,2)}", None, 1, False),                  # no elements
    ("f32[3,5]{1,0:T(2,2)L(64)}", None, 1, False),             # tail alignment
    ("s4[3,5]{1,0:L(8)E(4)}", None, 1, True),
    ("bf16[m,n]{1,0:T(8,128)(2,1)}", {"m": 20, "n": 300}, 2, True),   # named dims
    ("c128[3,4]{0,1:T(2,2)}", None, 1, False),
    ("c64[4,4]{1,0:T(2,2)(2,1)E(128)}", None, 1, True),
    ("f8e4m3fn[9,9]{1,0:T(4,4)}", None, 1, False),
    ("f4e2m1fn[8,8]{1,0:T(4,4)(2,1)E(4)}", None, 1, True),
]


@pytest.mark.parametrize("text,dims,segments,copy", FAMILIES)
def test_each_layout_family_equals_the_brute_force(text, dims, segments, copy):
    s = tilespec.parse_array_shape(text, dims=dims)
    plan = layout_plan(s)
    assert len(plan.segments) == segments
    assert plan.segments[-1].is_copy == copy
    rng = np.random.default_rng(len(text))
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    image = tilespec.to_bytes(text, a, pad=pad, dims=dims)
    assert image.tobytes() == brute_bytes(s, a, pad)
    assert same_bits(tilespec.from_bytes(text, image, dims=dims), a)
    if s.element_bits == a.dtype.itemsize * 8:   # the element image is the bytes
        elements = tilespec.to_physical(text, a, pad, dims=dims)
        assert elements.tobytes() == image.tobytes()[:elements.nbytes]
        assert same_bits(tilespec.from_physical(text, elements, dims=dims), a)


@pytest.fixture
def small_blocks_on_threads(monkeypatch):
    """Packing and copies cut into blocks of 8 words, run on 3 threads even
    for tiny arrays: every block but the last takes the paths a large array
    takes."""
    monkeypatch.setattr("tilespec.image.packing.BLOCK_ELEMENTS", 8)
    monkeypatch.setattr("tilespec.image.blocks.COPY_ELEMENTS", 8)
    monkeypatch.setattr("tilespec.image.blocks.PARALLEL_BYTES", 0)
    monkeypatch.setenv("TILESPEC_THREADS", "3")


@pytest.mark.parametrize("text,dims,segments,copy", FAMILIES)
def test_blocks_and_threads_do_not_change_the_bytes(text, dims, segments, copy,
                                                    small_blocks_on_threads):
    s = tilespec.parse_array_shape(text, dims=dims)
    rng = np.random.default_rng(len(text) + 1)
    a = values(s.element_type, s.dims, rng)
    pad = values(s.element_type, (), rng)
    image = tilespec.to_bytes(text, a, pad=pad, dims=dims)
    assert image.tobytes() == brute_bytes(s, a, pad)
    assert same_bits(tilespec.from_bytes(text, image.tobytes(), dims=dims), a)


# The fixture's settings hold for every example alike.
@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(SHAPES, st.integers(0, 2**32 - 1))
def test_blocks_and_threads_do_not_change_random_layouts(small_blocks_on_threads,
                                                        shape, seed):
    s = holding_values(shape)
    rng = np.random.default_rng(seed)
    a = values(s.element_type, s.dims, rng)
    image = tilespec.to_bytes(s, a)
    assert image.tobytes() == brute_bytes(s, a, np.zeros((), a.dtype))
    assert same_bits(tilespec.from_bytes(s, image), a)


@pytest.mark.parametrize("text", ["f32[3,3,3,3,3,3,3]{6,5,4,3,2,1,0:T(2,2,2,2,2,2,2)}",
                                  "bf16[20,300]{1,0:T(8,128)(2,1)}"])
def test_padding_first_when_a_level_has_many_padded_dims(text, monkeypatch):
    monkeypatch.setattr(strided, "MAX_PIECE_DIMS", 1)
    s = tilespec.parse_array_shape(text)
    from tilespec.spec.prt import prt_levels
    p = strided.plan(s.dims, s.layout.minor_to_major, prt_levels(s))
    assert p.segments[0].prepad
    monkeypatch.setattr("tilespec.image.bytes.layout_plan", lambda _: p)
    rng = np.random.default_rng(1)
    a = values(s.element_type, s.dims, rng)
    image = tilespec.to_bytes(s, a, pad=3)
    assert image.tobytes() == brute_bytes(s, a, 3)
    assert same_bits(tilespec.from_bytes(s, image), a)


@pytest.mark.parametrize("t", ELEMENT_TYPES)
def test_padding_is_zero_bits_by_default_for_every_type(t):
    s = tilespec.parse_array_shape(f"{t}[3]{{0:T(2)}}")
    a = values(t, (3,), np.random.default_rng(0))
    image = tilespec.to_bytes(s, a)
    # zero bits, even where 0 is not a value of the type (f8e8m0fnu)
    assert image.tobytes() == brute_bytes(s, a, np.zeros((), DTYPES[t]))


@pytest.mark.parametrize("text", ["f32[]", "f32[]{:T(4)}", "s4[]{:E(4)}", "s4[]{:T(2)E(4)}"])
def test_scalars_round_trip(text):
    # a 0-d slice is a numpy scalar unless indexed with ...: copyto refused it
    a = np.array(3, np.float32 if text[0] == "f" else np.int8)
    image = tilespec.to_physical(text, a)
    assert tilespec.from_physical(text, image) == a
    assert tilespec.from_bytes(text, tilespec.to_bytes(text, a)) == a


def test_xla_packs_element_zero_in_the_low_bits_and_leaves_the_odd_nibble_zero():
    assert tilespec.to_bytes("s4[3]{0:E(4)}", [1, 2, -1]).tolist() == [0x21, 0x0F]
    assert tilespec.to_bytes("u2[5]{0:E(2)}", [0, 1, 2, 3, 1]).tolist() == [0xE4, 0x01]


def test_sub_byte_types_without_e_take_one_byte_each():
    assert tilespec.to_bytes("s4[3]{0}", [1, -1, -8]).tolist() == [0x01, 0x0F, 0x08]
    assert tilespec.from_bytes("s4[3]{0}", bytes([0x01, 0xFF, 0x08])).tolist() == [1, -1, -8]


def test_the_types_values_come_back_in():
    assert tilespec.from_bytes("bf16[1]{0}", bytes(2)).dtype == ml_dtypes.bfloat16
    assert tilespec.from_bytes("s4[2]{0:E(4)}", bytes(1)).dtype == np.int8
    assert tilespec.from_bytes("u2[4]{0:E(2)}", bytes(1)).dtype == np.uint8
    assert tilespec.from_bytes("pred[8]{0:E(1)}", bytes([5])).tolist() == [
        True, False, True, False, False, False, False, False]


def test_ml_dtypes_int4_and_wide_integers_are_taken():
    a = np.array([-8, -1, 0, 7])
    want = tilespec.to_bytes("s4[4]{0:E(4)}", a.astype(np.int8))
    assert tilespec.to_bytes("s4[4]{0:E(4)}", a.astype(ml_dtypes.int4)).tolist() == want.tolist()
    assert tilespec.to_bytes("s4[4]{0:E(4)}", a).tolist() == want.tolist()


@pytest.mark.parametrize("text,array,message", [
    ("f32[2,3]{1,0}", np.zeros((3, 2)), "array of shape (3, 2) does not match f32[2,3]{1,0}"),
    ("s4[2]{0:E(4)}", [3, 8], "value 8 does not fit s4 (-8 to 7)"),
    ("u8[2]{0}", [-1, 0], "value -1 does not fit u8 (0 to 255)"),
    ("s32[2]{0}", [1.5, 2.0], "an array of float64 cannot hold s32 values (give integers)"),
    ("pred[2]{0}", [1, 0], "an array of int64 cannot hold pred values (give bools)"),
    ("f32[2]{0}", [1j, 2], "an array of complex128 cannot hold f32 values (give numbers)"),
    ("f32[2]{0:E(16)}", [1.0, 2.0], "f32[2]{0:E(16)}: E(16) holds fewer bits than a f32 (32)"),
    ("f32[m]{0}", [1.0], "dim 0 is the name 'm'; give a size"),
    ("token[]", [], "token has no values to lay out"),
])
def test_bad_arrays_are_one_line_value_errors(text, array, message):
    with pytest.raises(ValueError) as e:
        tilespec.to_bytes(text, array)
    assert str(e.value) == message
    assert isinstance(e.value, ShapeError) or "name" in message


def test_bad_buffers_are_one_line_value_errors():
    with pytest.raises(ShapeError, match=r"^buffer of 5 bytes; f32\[2\]\{0\} takes 8$"):
        tilespec.from_bytes("f32[2]{0}", bytes(5))
    with pytest.raises(ShapeError, match="a buffer is 1-D bytes"):
        tilespec.from_bytes("f32[2]{0}", np.zeros(2, np.float32))
    with pytest.raises(ShapeError, match="a buffer is bytes or a uint8 array, not int"):
        tilespec.from_bytes("f32[2]{0}", 5)


def test_the_image_is_made_once_per_padded_level_without_index_arrays():
    # 8 MiB in, one plan segment, no temporary as large as the data: the
    # words are assembled block by block.
    s = Shape("bf16", (1024, 4096), tilespec.parse_array_shape(
        "bf16[1024,4096]{1,0:T(8,128)(2,1)}").layout)
    assert len(layout_plan(s).segments) == 1
    a = np.arange(math.prod(s.dims), dtype=np.float32).reshape(s.dims).astype(ml_dtypes.bfloat16)
    image = tilespec.to_bytes(s, a)
    assert same_bits(tilespec.from_bytes(s, image), a)
    # spot checks against the formula
    for e in [(0, 0), (1, 0), (7, 127), (8, 128), (1023, 4095)]:
        o = tilespec.offset(s, e)
        assert image[2 * o:2 * o + 2].tobytes() == a[e].tobytes()


# ml_dtypes calls int8 to f8e4m3b11fnuz (largest 30) a safe cast.
@pytest.mark.parametrize("shape, values", [("f8e4m3fn[2]", [1, 1000.0]), ("f32[2]", [1, 1e300]),
                                           ("f16[2]", [2**40, 1]),
                                           ("f8e4m3b11fnuz[2]", np.array([1, 100], np.int8))])
def test_a_finite_value_that_overflows_a_float_type_is_one_line_without_warnings(shape, values):
    import warnings

    from tilespec.spec.errors import ShapeError
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ShapeError, match="does not fit .*inf or NaN"):
            tilespec.to_bytes(shape, values)
        with pytest.raises(ShapeError, match=r"^pad 1e\+40 is not a value of f16 \(it would"):
            tilespec.to_bytes("f16[2]", [1, 2], pad=1e40)
    assert np.isinf(tilespec.from_bytes("f32[1]", tilespec.to_bytes("f32[1]", [np.inf]))).all()


def test_ragged_values_are_one_line_shape_error():
    from tilespec.spec.errors import ShapeError
    with pytest.raises(ShapeError, match="not a rectangular array") as e:
        tilespec.to_bytes("f32[2,2]", [[1, 2], [3]])
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("t", ["s4", "u4", "s2", "s1", "s8", "u8"])
@pytest.mark.parametrize("pad", [7.9, -7.9, 0.5, float("nan")])
def test_a_float_pad_for_an_integer_type_is_a_one_line_error_naming_the_pad(t, pad):
    # numpy reads `dtype == None` as float64: a float pad once passed for
    # ml_dtypes' int4 and the float's low bits filled the padding.
    with pytest.raises(ShapeError, match=rf"^pad {pad} is not a value of {t} \(give integers\)$"):
        tilespec.to_bytes(f"{t}[3]{{0:T(2)}}", [0, 0, 0], pad=pad)
    with pytest.raises(ShapeError, match="float64 cannot hold"):
        tilespec.to_bytes(f"{t}[3]{{0:T(2)}}", np.array([0.0, 0.0, 0.0]))

