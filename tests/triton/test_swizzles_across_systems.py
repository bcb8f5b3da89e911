"""Triton's shared swizzle (vec, perPhase, maxPhase), CuTe's Swizzle<B,M,S>
and the linear layout: one map, proved for all parameters within bounds,
refuted (and replayed) where the uncut translation differs.  The real
Triton's bases for the same encodings are checked in test_real_triton.py."""

from __future__ import annotations

import itertools

import pytest
import z3

from tilespec.cute import Swizzle
from tilespec.triton import SharedSwizzle, SwizzleError
from tilespec.triton.proofs import from_cute, prove_translation, refute_uncut, to_cute
from tilespec.triton.proofs.swizzle import triton_index, width

POWERS = (1, 2, 4, 8)


def test_triton_s_swizzle_is_cute_s_for_all_parameters_up_to_2_to_the_12():
    r = prove_translation(max_bits=12)
    assert r.proved, r
    assert "k + R <= 12" in r.scope and "every offset" in r.scope
    # the steps name the vectors Z3 decided on (width(12) bits), not another width
    assert all(f"on {width(12)}-bit vectors" in step for step in r.steps[:-1]), r.steps


@pytest.mark.slow
def test_triton_s_swizzle_is_cute_s_for_all_parameters_up_to_2_to_the_30():
    assert prove_translation(max_bits=30, timeout=600).proved


def test_the_uncut_translation_is_refuted_and_the_witness_replays():
    r = refute_uncut()
    assert r.status == "refuted"
    p = r.counterexample.dim_values
    shared = SharedSwizzle(p["vec"], p["perPhase"], p["maxPhase"])
    shape = (p["numRows"], p["numCols"])
    x = r.counterexample.sides[0].offset
    uncut = Swizzle(p["maxPhase"].bit_length() - 1, p["vec"].bit_length() - 1,
                    (p["numCols"] * p["perPhase"] // p["vec"]).bit_length() - 1)
    assert shared.logical_index(shape, x) != uncut(x)
    assert p["vec"] * p["maxPhase"] > p["numCols"]
    # the cut translation is right there
    assert shared.logical_index(shape, x) == to_cute(shared, p["numCols"])(x)


def test_to_cute_is_the_bases_code_at_every_offset_of_small_shapes():
    for vec, per_phase, max_phase in itertools.product(POWERS, repeat=3):
        shared = SharedSwizzle(vec, per_phase, max_phase)
        for rows, cols in ((2, 4), (4, 8), (8, 4), (2, 16)):
            sw = to_cute(shared, cols)
            assert [shared.logical_index((rows, cols), x) for x in range(rows * cols)] == \
                [sw(x) for x in range(rows * cols)], (shared, rows, cols)


def test_the_proof_s_transcription_is_the_bases_code():
    # the solver's triton_index, at concrete parameters, is offset_bases' XOR
    w = width(8)
    names = ("x", "k", "rows", "m", "p", "b")
    x, k, rows, m, p, b = (z3.BitVec(n, w) for n in names)
    term = triton_index(x, k, rows, m, p, b, x.ctx, 8)
    for (M, P, B), (R, K) in itertools.product(itertools.product(range(3), repeat=3),
                                               ((1, 2), (2, 3))):
        shared = SharedSwizzle(1 << M, 1 << P, 1 << B)
        for X in range(1, 1 << (R + K), 7):
            value = z3.simplify(z3.substitute(term, *[(v, z3.BitVecVal(c, w)) for v, c in
                                                      zip((x, k, rows, m, p, b),
                                                          (X, K, R, M, P, B))]))
            assert value.as_long() == shared.logical_index((1 << R, 1 << K), X)


def test_from_cute_inverts_to_cute_where_the_swizzle_moves_bits():
    for vec, per_phase, max_phase in itertools.product(POWERS, repeat=3):
        shared = SharedSwizzle(vec, per_phase, max_phase)
        sw = to_cute(shared, 32)
        if sw.bits:
            assert to_cute(from_cute(sw, 32), 32) == sw


def test_a_cute_swizzle_triton_cannot_write_is_refused_with_its_bits():
    with pytest.raises(SwizzleError, match=r"changes bits \[4, 7\)"):
        from_cute(Swizzle(3, 4, 3), 64)
    with pytest.raises(SwizzleError, match="inside a row"):
        from_cute(Swizzle(1, 0, 2), 16)


@pytest.mark.parametrize("args, message", [
    ((0, 1, 1), "bad parameter"),
    ((1, 1, 1, (0, 0)), "bad order"),
])
def test_a_bad_swizzle_is_one_value_error_line(args, message):
    with pytest.raises(SwizzleError) as error:
        SharedSwizzle(*args)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)
    assert isinstance(error.value, ValueError)


def test_a_parameter_that_is_not_a_power_of_two_has_no_cute_swizzle():
    with pytest.raises(SwizzleError, match="non-power-of-two: perPhase 3"):
        to_cute(SharedSwizzle(2, 3, 4), 16)
