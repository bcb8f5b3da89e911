"""The byte engine equals the plain definition, on every layout family.

:func:`tilespec.to_bytes` (the engine of :mod:`tilespec.image`: strided
plans, word packing, blocks on threads) must give the bytes of
:func:`tilespec.spec.physical.physical_bytes` (numpy pad, reshape and
transpose per level, then each code's ``E(n)`` bits), and
:func:`tilespec.from_bytes` must read the array back.  The element codes are
written here from numpy's own views of the values, not by the engine.
Shapes: rank 1-4, 1-3 tiling levels, ``*`` entries, padding, ``L(n)``, and
the types f32, bf16, f16, c64, s32, s8, u8, f8e5m2, s4, u4, s2 and pred, with
and without ``E(n)``.
"""

import contextlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_bytes import FAMILIES, brute_bytes

import tilespec
from tilespec.spec.dtypes import bit_width, storage_bits
from tilespec.spec.physical import physical_bytes
from tilespec.testing import shapes_with_layout

#: The numpy dtype of each family's values.
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16,
          "c64": np.complex64, "s32": np.int32, "s8": np.int8, "u8": np.uint8,
          "f8e5m2": ml_dtypes.float8_e5m2, "s4": np.int8, "u4": np.uint8,
          "s2": np.int8, "pred": np.bool_}


def codes(t, values):
    """Each value's bits as an unsigned int: numpy's view of its bytes; the
    sub-byte types in their low bits (integers in two's complement)."""
    a = np.asarray(values)
    raw = a.view(f"<u{a.dtype.itemsize}").astype(np.uint64)
    return raw & np.uint64((1 << bit_width(t)) - 1) if bit_width(t) < 8 else raw


def values(t, dims, rng):
    """Random values of type t, the float ones finite."""
    if t == "pred":
        return rng.integers(0, 2, dims).astype(bool)
    if t[0] in "su":
        width = bit_width(t)
        low = -(1 << (width - 1)) if t[0] == "s" else 0
        return rng.integers(low, low + (1 << width), dims).astype(DTYPES[t])
    x = rng.normal(0, 4, dims)
    if t == "c64":
        x = x + 1j * rng.normal(0, 4, dims)
    return x.astype(DTYPES[t])


@st.composite
def laid_out(draw):
    """A shape of one of the families, E(n) unset, the type's width, its
    storage or wider; and a seed for its values."""
    s = draw(shapes_with_layout(min_rank=1, max_rank=4, max_dim=9, min_tiles=1, max_tiles=3,
                                max_elements=512, fields=("L",),
                                dtypes=st.sampled_from(sorted(DTYPES))))
    t = s.element_type
    e = draw(st.sampled_from(sorted({0, bit_width(t), storage_bits(t)}))
             | st.integers(bit_width(t), 64))
    s = s.with_layout(s.layout.replace(element_size_in_bits=e))
    return s, draw(st.integers(0, 2**32 - 1)), draw(st.booleans())


def check(s, seed, padded):
    rng = np.random.default_rng(seed)
    t = s.element_type
    a = values(t, s.dims, rng)
    pad = values(t, (), rng) if padded else None
    image = tilespec.to_bytes(s, a, pad=pad)
    plain = physical_bytes(s, codes(t, a), 0 if pad is None else int(codes(t, pad)))
    assert image.tobytes() == plain.tobytes()
    back = tilespec.from_bytes(s, image)
    assert back.shape == a.shape and np.array_equal(codes(t, back), codes(t, a))


@settings(max_examples=200)
@given(laid_out())
def test_to_bytes_equals_the_plain_definition_and_from_bytes_inverts_it(case):
    check(*case)


@contextlib.contextmanager
def small_blocks_on_threads():
    """Blocks of 8 words on 3 threads even for tiny arrays: the paths a large
    array takes."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("tilespec.image.packing.BLOCK_ELEMENTS", 8)
        mp.setattr("tilespec.image.blocks.COPY_ELEMENTS", 8)
        mp.setattr("tilespec.image.blocks.PARALLEL_BYTES", 0)
        mp.setenv("TILESPEC_THREADS", "3")
        yield


@settings(max_examples=100)
@given(laid_out())
def test_blocks_on_threads_give_the_plain_definition_too(case):
    with small_blocks_on_threads():
        check(*case)


@pytest.mark.parametrize("text,dims", [(f[0], f[1]) for f in FAMILIES
                                       if "c128" not in f[0] and "E(128)" not in f[0]])
def test_each_named_family_equals_the_plain_definition(text, dims):
    s = tilespec.parse_array_shape(text, dims=dims)
    rng = np.random.default_rng(7)
    a = tilespec.from_bytes(s, rng.integers(0, 256, tilespec.byte_size(s), dtype=np.uint8))
    image = tilespec.to_bytes(s, a)
    assert image.tobytes() == brute_bytes(s, a, np.zeros((), a.dtype))
    assert physical_bytes(s, codes(s.element_type, a)).tobytes() == image.tobytes()


@settings(max_examples=200)
@given(laid_out())
def test_the_plain_definition_equals_the_closed_formula(case):
    s, seed, _ = case
    a = values(s.element_type, s.dims, np.random.default_rng(seed))
    zero = np.zeros((), a.dtype)
    assert physical_bytes(s, codes(s.element_type, a)).tobytes() == brute_bytes(s, a, zero)
