"""The XLA bridge: from_xla's layout gives the spec's offset on every
element, its refutations replay, the issue's linearity rule holds on a
corpus of layouts, and to_xla's answer gives the layout back."""

import itertools

import numpy as np
import pytest

from tilespec.spec import all_offsets, format_shape, parse_array_shape
from tilespec.triton import (
    LinearLayout,
    NotLinear,
    Refutation,
    TritonLayoutError,
    from_xla,
    linear_or_refutation,
    to_xla,
)
from tilespec.triton.proofs import prove_from_xla

SHAPES = [f"f32[{a},{b}]{{{m}:T({t})}}" for a, b in ((8, 16), (3, 5), (24, 64), (5, 8))
          for m in ("1,0", "0,1") for t in ("2,2", "1,8", "4,4", "3,2")] + [
    "f32[3,4]{1,0}", "f32[7]{0:T(4)}", "bf16[16,32]{1,0:T(8,16)(2,1)}",
    "f32[2,3,4]{2,1,0:T(2,4)}", "f32[4,6]{1,0}", "s8[8,8]{0,1:T(4,4)}",
    "f32[4,8,2]{0,2,1:T(2,2)}", "f32[16,16]{1,0:T(*,8)}", "f32[6,16]{1,0:T(*,4)}"]


def pow2(n):
    return n & (n - 1) == 0


def expected_linear(s):
    """The issue's rule: every tile dim a power of two, every expanded extent
    but the most major one a power of two (found by the spec's
    tiled_dims), padding allowed."""
    from tilespec.spec import tiled_dims
    if any(not pow2(t) for tile in s.layout.tiles for t in tile.sizes if t > 0):
        return False
    return all(pow2(d) for d in tiled_dims(s)[1:])


@pytest.mark.parametrize("text", SHAPES)
def test_from_xla_is_the_spec_on_every_element_or_a_replayed_refutation(text):
    s = parse_array_shape(text)
    r = linear_or_refutation(s)
    if isinstance(r, Refutation):
        assert r.replays() and r.offset_ab != r.offset_a ^ r.offset_b
        assert all(x & y == 0 for x, y in zip(r.a, r.b))
        with pytest.raises(NotLinear):
            from_xla(s)
        return
    got = all_offsets(s)
    for c in itertools.product(*(range(d) for d in s.dims)):
        assert r.apply({f"dim{k}": v for k, v in enumerate(c)})["offset"] == got[c]


def test_the_issues_examples():
    assert isinstance(linear_or_refutation("f32[3,5]{1,0:T(2,2)}"), Refutation)
    assert isinstance(linear_or_refutation("f32[24,64]{0,1:T(1,8)}"), Refutation)
    assert isinstance(linear_or_refutation("f32[3,4]{1,0:T(2,2)}"), LinearLayout)


@pytest.mark.parametrize("text", [t for t in SHAPES if "*" not in t])
def test_linear_exactly_where_tiles_and_inner_extents_are_powers_of_two(text):
    s = parse_array_shape(text)
    assert isinstance(linear_or_refutation(s), LinearLayout) == expected_linear(s)


@pytest.mark.parametrize("text", ["f32[8,16]{1,0:T(2,2)}", "f32[16,8]{0,1:T(4,8)}",
                                  "bf16[32]{0:T(8)}", "f32[4,8,2]{0,2,1:T(2,2)}",
                                  "f32[8,4]{0,1}", "f32[3,4]{1,0}"])
def test_to_xla_gives_the_layout_back(text):
    s = parse_array_shape(text)
    layout = from_xla(s)
    back = to_xla(layout, s.element_type, s.dims)
    assert from_xla(back).bases == layout.bases
    assert np.array_equal(all_offsets(back), all_offsets(s))
    assert format_shape(back)  # prints


@pytest.mark.parametrize("bases, why", [
    ([("dim0", [[1], [2]]), ("dim1", [[4], [9]])], "basis 1 of dim1 (dim1=2) is 9 = 1 ^ 8"),
    ([("dim0", [[1], [0]])], "is 0: a broadcast"),
    ([("dim0", [[1], [1]])], "as basis 0 of dim0"),
])
def test_to_xla_refuses_what_xla_cannot_write_and_says_which_basis(bases, why):
    with pytest.raises(TritonLayoutError, match="no XLA layout") as e:
        to_xla(LinearLayout.from_bases(bases, ["offset"], require_surjective=False))
    assert why in str(e.value)


def test_from_xla_refuses_tuples_names_and_sizes_it_cannot_check():
    with pytest.raises(ValueError, match="tuple"):
        from_xla("(f32[2]{0}, f32[2]{0})")
    with pytest.raises(TritonLayoutError, match="named dims"):
        from_xla("f32[m]{0}")
    with pytest.raises(TritonLayoutError, match="prove_from_xla"):
        from_xla("f32[8192,8192]{1,0}")


@pytest.mark.parametrize("text", [t for t in SHAPES if "*" not in t and
                                  isinstance(linear_or_refutation(t), LinearLayout)])
def test_every_linear_shape_round_trips_through_to_xla(text):
    # from_xla -> to_xla gives a layout with the same offsets (from_xla
    # checks every element of the answer); two tile levels are found as
    # written, and Z3 proves from_xla's law on the answer
    s = parse_array_shape(text)
    layout = from_xla(s)
    back = to_xla(layout, s.element_type, s.dims)
    assert from_xla(back).bases == layout.bases
    if ")(" in text:
        assert format_shape(back) == text
        assert prove_from_xla(back, layout).status == "proved"

