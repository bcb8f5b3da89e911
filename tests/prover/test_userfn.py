"""``prover.userfn``: a user's offset function, in plain Python arithmetic,
checked against the spec on Z3 terms (and replayed on ints)."""

import itertools

import pytest
import z3

from tilespec.prover.userfn import (
    UserFunctionError,
    Z3Int,
    _Owner,
    check_offset_function,
    claim_equivalent,
    load_function,
)
from tilespec.spec.index import offset
from tilespec.spec.text import parse_array_shape as shape


def tiled_8_128(i, j, m, n):
    return ((i // 8) * (((n + 127) // 128) * 1024) + (j // 128) * 1024
            + (i % 8) * 128 + j % 128)


def forgot_ceil(i, j, m, n):
    return (i // 8) * ((n // 128) * 1024) + (j // 128) * 1024 + (i % 8) * 128 + j % 128


def row_major(i, j, m, n):
    return i * n + j


def replayed(r, fn):
    ce = r.counterexample
    yours, spec = ce.side("yours"), ce.side("spec")
    s = shape(spec.shape)
    assert yours.element == spec.element
    assert offset(s, spec.element) == spec.offset
    # the counterexample's shape is concrete: its dims are the dim values
    assert fn(*spec.element, *s.dims) == yours.offset != spec.offset
    return ce


def test_proved_for_all_shapes():
    r = check_offset_function(tiled_8_128, shape("f32[m,n]{1,0:T(8,128)}"))
    assert (r.status, r.scope) == ("proved", "all shapes: m >= 1, n >= 1")
    assert check_offset_function(row_major, shape("f32[m,n]{1,0}")).status == "proved"


def test_proved_concrete_with_positional_dims():
    assert check_offset_function(tiled_8_128, shape("f32[300,500]{1,0:T(8,128)}")).status == "proved"
    assert check_offset_function(lambda i, j: i * 128 + j,
                                 shape("f32[8,128]{1,0:T(8,128)}")).status == "proved"


@pytest.mark.parametrize("fn,text", [
    (forgot_ceil, "f32[m,n]{1,0:T(8,128)}"),
    (tiled_8_128, "bf16[m,n]{1,0:T(8,128)(2,1)}"),
    (row_major, "f32[m,n]{0,1}"),
    (tiled_8_128, "f32[40,300]{1,0:T(8,128)(2,1)}"),
])
def test_refuted_and_replayed(fn, text):
    r = check_offset_function(fn, shape(text))
    assert r.status == "refuted"
    replayed(r, fn)


def test_division_by_zero_is_a_counterexample():
    def f(i, j, m, n):
        return i * n + j + 0 * (j // (n - 3))
    r = check_offset_function(f, shape("f32[m,n]{1,0}"))
    assert r.status == "refuted"
    assert r.counterexample.details["yours"] == "division by zero"
    assert r.counterexample.side("yours").offset is None
    assert r.counterexample.dim_values["n"] == 3


def test_branching_is_refused():
    def f(i, j):
        return 0 if i < 8 else 1
    with pytest.raises(UserFunctionError, match="compares or converts"):
        check_offset_function(f, shape("f32[m,n]{1,0}"))


def test_bad_parameters():
    with pytest.raises(UserFunctionError, match="parameters"):
        check_offset_function(lambda i: i, shape("f32[m,n]{1,0}"))
    with pytest.raises(UserFunctionError, match="dims in order"):
        check_offset_function(lambda i, j, x: i, shape("f32[m,n]{1,0}"))


def test_floor_division_matches_python():
    ctx = z3.Context()
    o = _Owner(ctx)
    x, y = z3.Ints("x y", ctx)
    X, Y = Z3Int(x, o), Z3Int(y, o)
    for a, b in itertools.product(range(-7, 8), [-5, -2, -1, 1, 3, 4]):
        sub = [(x, z3.IntVal(a, ctx)), (y, z3.IntVal(b, ctx))]
        for got, want in (((X // Y), a // b), ((X % Y), a % b), ((X // b), a // b),
                          ((X % b), a % b), ((a - X * 0) // Y, a // b), (7 - X, 7 - a),
                          (X ** 2, a * a), (-X, -a)):
            assert z3.simplify(z3.substitute(got.term, *sub)).as_long() == want


def test_load_function_and_claims():
    f = load_function("def off(i, j, m, n):\n    return i * n + j\n", "off")
    assert check_offset_function(f, shape("f32[m,n]{1,0}")).status == "proved"
    assert claim_equivalent(shape("f32[m,n]{1,0:T(1,1)}"), shape("f32[m,n]{1,0}")).status == "proved"
    assert claim_equivalent(shape("f32[m,n]{1,0:T(2,1)}"), shape("f32[m,n]{1,0}")).status == "refuted"
