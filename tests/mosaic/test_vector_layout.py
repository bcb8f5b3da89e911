"""Mosaic's VectorLayout and memref tiling as the last open source writes
them (jax 04a887cd5e layout.h/layout.cc; 43d14afad3^ infer_memref_layout.cc),
and the claims about them proved for every layout (slow: Z3)."""

from __future__ import annotations

import pytest

from tilespec.mosaic import ImplicitDim, VectorLayout
from tilespec.mosaic.memref import memref_tiling, tiling_factor
from tilespec.mosaic.proofs import CLAIMS, claim_scope, prove_claim
from tilespec.mosaic.vector_layout import MosaicCheckFailure

F32 = VectorLayout(32, (0, 0), (8, 128))


def test_an_offset_must_lie_inside_the_vreg_slice():
    # jax-ml/jax#34001: a lane offset of 128 is not below the 128-lane slice
    assert VectorLayout(32, (0, 127), (8, 128)).is_valid()
    assert not VectorLayout(32, (0, 128), (8, 128)).is_valid()
    # a (8,128) bf16 tiling holds two tiles per vreg: the slice is 256 lanes
    assert VectorLayout(16, (0, 128), (8, 128)).is_valid()
    assert not VectorLayout(16, (0, 256), (8, 128)).is_valid()


def test_a_tile_larger_than_a_vreg_fails_mosaics_check():
    # libtpu aborts "layout.h:268] Check failed: rem == 0 (1024 vs. 0)" when it
    # reads XLA's 1-d tile T(128) of an f32 operand as a (128,128) tile
    # (tests/data/pallas/layouts.json.gz records the abort)
    with pytest.raises(MosaicCheckFailure, match="rem == 0"):
        VectorLayout(32, (0, 0), (128, 128)).tiles_per_vreg()
    assert not VectorLayout(32, (0, 0), (128, 128)).is_valid()


def test_generalizes_needs_a_shape_for_other_tilings():
    small = VectorLayout(32, (0, 0), (1, 128))
    assert not F32.generalizes(small)                 # no shape: tilings must be equal
    assert F32.generalizes(small, (1, 100)) and small.generalizes(F32, (1, 100))
    assert not F32.generalizes(small, (2, 100))       # two rows: different tiles


def test_replicated_offsets_generalize_every_offset():
    rep = VectorLayout(32, (None, None), (8, 128))
    assert rep.generalizes(VectorLayout(32, (3, 5), (8, 128)))
    assert not VectorLayout(32, (3, 5), (8, 128)).generalizes(rep)


def test_join_agrees_or_gives_none():
    a, b = VectorLayout(32, (0, None), (8, 128)), VectorLayout(32, (None, 7), (8, 128))
    assert a.join(b, (8, 256)) == VectorLayout(32, (0, 7), (8, 128))
    # jax-ml/jax#39366: two rank-1 layouts with other tilings have no join; the
    # inference pass CHECKs that the join exists, so the compiler aborts
    one_d = VectorLayout(32, (0, 0), (1, 128), ImplicitDim.SECOND_MINOR)
    assert one_d.join(VectorLayout(32, (0, 0), (8, 128), ImplicitDim.SECOND_MINOR),
                      (256,)) is None
    assert a.join(VectorLayout(32, (1, None), (8, 128)), (8, 256)) is None


def test_tile_array_shape_counts_vregs_from_the_offsets():
    assert F32.tile_array_shape((2, 17, 300)) == (2, 3, 3)
    assert VectorLayout(32, (7, 0), (8, 128)).tile_array_shape((2, 2, 128)) == (2, 2, 1)
    one_d = VectorLayout(32, (0, 0), (1, 128), ImplicitDim.SECOND_MINOR)
    assert one_d.tile_array_shape((300,)) == (1,)       # a (1,128) tiling: 1024 lanes a vreg
    assert one_d.tile_array_shape((3000,)) == (3,)


def test_the_memref_tiling_rule_by_generation_and_width():
    assert tiling_factor(3, 5, 32) == 4 and tiling_factor(3, 3, 32) == 4
    assert tiling_factor(1, 3, 32) == 2                  # before v4: at least 2 rows
    assert tiling_factor(1, 5, 16) == 2 and tiling_factor(1, 5, 8) == 4
    assert memref_tiling((64, 256), 8, "v5e") == ((32, 128), (4, 1))    # large 2nd minor
    assert memref_tiling((48, 256), 8, "v5e") == ((8, 128), (4, 1))     # 48 % 32: not
    assert memref_tiling((32, 512), 16, "v6e") == ((8, 128), (2, 1))    # an argument's
    assert memref_tiling((32, 512), 16, "v6e", is_kernel_argument=False) == (
        (16, 128), (2, 1))
    assert memref_tiling((1000,), 32, "v5e") == ((1024,),)
    assert memref_tiling((1000,), 16, "v5e") == ((1024,), (128,), (2, 1))


def test_a_refuted_claim_replays():
    r = prove_claim("equivalence is transitive")
    assert r.status == "refuted"
    a, b, c = (VectorLayout(32, (None, None), (1, 1024), d) for d in (
        ImplicitDim.NONE, ImplicitDim.SECOND_MINOR, ImplicitDim.MINOR))
    assert r.counterexample.details == {"a": str(a), "b": str(b), "c": str(c)}


def test_a_claim_proved_under_hypotheses_names_them_in_its_scope():
    # the relayout claim's negation assumes no replicated offset and the same
    # implicit dims in both layouts; a scope of "all valid vector layouts"
    # would claim more than Z3 was asked
    scope = claim_scope("a relayout between equivalent layouts moves no data")
    assert "no replicated offset" in scope and "the same implicit dims" in scope
    assert "the same implicit dims" in claim_scope("equivalence is transitive on one implicit dim")


@pytest.mark.slow
@pytest.mark.parametrize("claim", [c for c in CLAIMS if c != "equivalence is transitive"])
def test_the_claims_about_equivalent_layouts_are_proved(claim):
    r = prove_claim(claim, timeout=300)
    assert r.status == "proved" and r.scope == claim_scope(claim)
