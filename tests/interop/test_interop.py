"""Interop, tested both ways: JAX layouts (against jax itself), numpy
strides (against numpy)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tilespec
from tilespec import LayoutError, ShapeError
from tilespec.spec.text import parse_layout

# --- strides ------------------------------------------------------------------------

@settings(max_examples=60)
@given(st.lists(st.integers(1, 5), min_size=0, max_size=4).flatmap(
    lambda dims: st.tuples(st.just(tuple(dims)), st.permutations(range(len(dims))))),
       st.sampled_from(["float32", "int8", "float16", "complex64"]))
def test_strides_from_numpy_and_back(case, dtype):
    dims, perm = case
    dtype = np.dtype(dtype)
    # a dense array stored in order perm (major to minor), viewed logically
    stored = np.arange(int(np.prod(dims, dtype=np.int64))).reshape(
        tuple(dims[p] for p in perm)).astype(dtype)
    a = np.transpose(stored, np.argsort(perm))
    assert a.shape == dims
    element_type = tilespec.interop.jax.element_type_of(dtype)
    s = tilespec.from_strides(a.shape, a.strides, element_type, unit="bytes")
    assert tilespec.strides(s, unit="bytes") == a.strides or 1 in dims
    # the layout puts each element where numpy does
    for e in itertools.product(*map(range, dims)):
        byte = sum(i * b for i, b in zip(e, a.strides))
        assert tilespec.offset(s, e) * dtype.itemsize == byte


def test_strides_of_an_untiled_layout():
    assert tilespec.strides("f32[3,5]{1,0}") == (5, 1)
    assert tilespec.strides("f32[3,5]{0,1}", unit="bytes") == (4, 12)
    assert tilespec.strides("s4[3,5]{1,0}", unit="bytes") == (5, 1)


@pytest.mark.parametrize("args,words", [
    (((4, 6), (1, 8), "f32"), "not dense"),
    (((4, 6), (6, -1), "f32"), "backwards"),
    (((4, 6), (0, 1), "f32"), "stride 0"),
    (((4, 6), (6, 1, 1), "f32"), "3 strides for 2 dims"),
    (((4, 6), (24, 2), "f32", "bytes"), "whole number"),
    (((4, 6), (6, 1), "f17"), "unknown element type"),
    (((4, 6), (6, 1), "f32", "bits"), "unit 'bits'"),
])
def test_from_strides_says_why_not(args, words):
    with pytest.raises((LayoutError, ShapeError), match=words):
        tilespec.from_strides(*args)


@pytest.mark.parametrize("text,words", [("f32[8,128]{1,0:T(8,128)}", "tiled"),
                                        ("s4[8]{0:E(4)}", "fraction")])
def test_strides_refuses_tiled_and_packed(text, words):
    with pytest.raises(LayoutError, match=words):
        tilespec.strides(text, unit="bytes")


def test_from_strides_places_unit_dims():
    assert tilespec.from_strides((1, 5), (5, 1), "f32").layout.minor_to_major == (1, 0)
    assert tilespec.from_strides((3, 1, 5), (1, 3, 3), "f32").layout.minor_to_major == (0, 2, 1)


# --- JAX -------------------------------------------------------------------------------

jax = pytest.importorskip("jax")
from jax.experimental.layout import (
    Format,  # noqa: E402
    Layout as JaxLayout,
)

XLA_OK = ["bf16[16,300]{1,0:T(8,128)(2,1)}", "f32[3,5]{0,1}", "f32[3,5]{1,0}",
          "s4[256,128]{1,0:T(8,128)E(4)}", "s4[256]{0:E(4)}", "u8[4,4]{0,1:T(2,2)}",
          "f32[2,3,4]{0,2,1:T(*,4)}", "pred[33,5]{1,0:T(8,128)(4,1)}", "f32[]"]


def _xla_text(jax_layout, dtype) -> str:
    """What jax itself hands XLA for this layout: XLA prints it."""
    return jax_layout._to_xla_layout(dtype).to_string()


def _dtype(element_type):
    import jax.numpy as jnp
    return {"bf16": jnp.bfloat16, "f32": jnp.float32, "s4": jnp.int4, "u8": jnp.uint8,
            "pred": jnp.bool_}[element_type]


@pytest.mark.integration  # starts jax (real XLA)
@pytest.mark.parametrize("text", XLA_OK)
def test_to_jax_gives_xla_exactly_this_layout(text):
    s = tilespec.parse_shape(text)
    j = tilespec.to_jax(s)
    assert isinstance(j, JaxLayout)
    assert parse_layout(_xla_text(j, _dtype(s.element_type)), s.rank) == s.layout
    back = tilespec.from_jax(j, _dtype(s.element_type), s.dims)
    assert back == s


@pytest.mark.integration  # starts jax (real XLA)
def test_major_to_minor_is_minor_to_major_reversed():
    j = tilespec.to_jax("f32[2,3,4]{0,2,1}")
    assert j.major_to_minor == (1, 2, 0)


@pytest.mark.integration  # starts jax (real XLA)
@settings(max_examples=80)
@given(st.sampled_from(["f32", "bf16", "s4", "u8", "pred"]),
       st.lists(st.integers(1, 9), min_size=1, max_size=3).flatmap(
           lambda d: st.tuples(st.just(d), st.permutations(range(len(d))))),
       st.lists(st.lists(st.sampled_from([1, 2, 4, 8, 128, -(2**63)]), min_size=1,
                         max_size=3).filter(lambda t: t[-1] != -(2**63)), max_size=2),
       st.sampled_from([0, 4]), st.booleans())
def test_from_jax_agrees_with_jax(element_type, case, tiling, bits, untiled):
    # Any layout a user can write in jax: tilespec's reading is what jax gives XLA.
    dims, perm = case
    j = JaxLayout(tuple(perm), None if untiled else tuple(map(tuple, tiling)), bits)
    dtype = _dtype(element_type)
    s = tilespec.from_jax(j, dtype, dims)
    assert parse_layout(_xla_text(j, dtype), len(dims)) == s.layout


@pytest.mark.integration  # starts jax (real XLA)
def test_from_jax_array_and_format():
    import jax.numpy as jnp
    x = jnp.zeros((3, 5), jnp.float32)
    assert str(tilespec.from_jax(x)) == "f32[3,5]{1,0}"
    assert str(tilespec.from_jax(x.format, jnp.float32, (3, 5))) == "f32[3,5]{1,0}"
    # a real int4 array: the layout XLA reported, with no E(4) added
    assert str(tilespec.from_jax(jnp.zeros((4,), jnp.int4))) == "s4[4]{0}"


@pytest.mark.integration  # starts jax (real XLA)
def test_to_jax_format_with_a_sharding():
    from jax.sharding import SingleDeviceSharding
    sharding = SingleDeviceSharding(jax.devices()[0])
    f = tilespec.to_jax("f32[8,128]{1,0:T(8,128)}", sharding)
    assert isinstance(f, Format) and f.layout.tiling == ((8, 128),)


@pytest.mark.parametrize("text,words", [
    ("f32[3]{0:T(2)L(4)}", "tail_padding_alignment"),
    ("f32[3]{0:S(1)}", "memory_space"),
    ("s4[256]{0:T(128)}", "adds E"),
])
@pytest.mark.integration  # starts jax (real XLA)
def test_to_jax_refuses_what_jax_cannot_carry(text, words):
    with pytest.raises(LayoutError, match=words):
        tilespec.to_jax(text)


@pytest.mark.integration  # starts jax (real XLA)
def test_a_jax_array_with_a_chosen_layout_round_trips():
    # The layout jax really uses for an array it was asked to lay out.
    import jax.numpy as jnp
    want = tilespec.parse_shape("f32[4,6]{0,1}")
    x = jax.device_put(jnp.arange(24, dtype=jnp.float32).reshape(4, 6),
                       Format(tilespec.to_jax(want), jax.sharding.SingleDeviceSharding(
                           jax.devices()[0])))
    assert tilespec.from_jax(x) == want
