"""C++ int64 arithmetic as XLA's models compute with it (prover.models.cpp),
and what DelinearizeIndexForNestedTiling does with offsets that are not an
element's."""

from hypothesis import given, strategies as st

from tilespec.prover.models.cpp import INT64_MAX, INT64_MIN, Int64, wrap64
from tilespec.prover.models.nested_tiling import (
    nested_delinearize_int64,
    nested_linear_index_int64,
)
from tilespec.spec.index import padded_elements
from tilespec.spec.text import parse_array_shape as shape

int64s = st.integers(INT64_MIN, INT64_MAX)
nonzero = int64s.filter(lambda b: b != 0)


@given(int64s, nonzero)
def test_division_truncates_toward_zero_and_the_remainder_has_the_dividends_sign(a, b):
    c = Int64()
    q, r = c.div(a, b), c.rem(a, b)
    if c.overflow is None:                      # INT64_MIN / -1 overflows
        assert q * b + r == a and abs(r) < abs(b)
        assert r == 0 or (r > 0) == (a > 0)


@given(st.integers(0, INT64_MAX), st.integers(1, INT64_MAX))
def test_ceil_of_ratio_of_non_negatives_is_the_ceiling(a, b):
    assert Int64().ceil_of_ratio(a, b) == -(-a // b)


@given(st.integers(0, INT64_MAX))
def test_ceil_of_ratio_by_int64_min_is_zero(d):
    # tsl::MathUtil::CeilOfRatio adjusts only a non-negative quotient toward
    # the divisor's sign: d / INT64_MIN is 0 and d < 0 is false
    assert Int64().ceil_of_ratio(d, INT64_MIN) == 0


@given(int64s, int64s)
def test_products_wrap_and_the_first_overflow_is_named(a, b):
    c = Int64()
    assert c.mul(a, b, "a * b") == wrap64(a * b)
    assert (c.overflow is not None) == (not INT64_MIN <= a * b <= INT64_MAX)


def test_delinearize_gives_indices_outside_the_dims_for_padding():
    # final dims (2, 2, 2, 4): tile (2,4) holds rows 0-1 and columns 0-3;
    # offset 4 is row 1, column 0 (an element); the second tile along a row
    # holds columns 4-7, so offset 9 is column 5, past dim 1's size 5
    s = shape("f32[3,5]{1,0:T(2,4)}")
    assert nested_delinearize_int64(s, 4)[0] == (1, 0)
    back, c = nested_delinearize_int64(s, 9)
    assert back == (0, 5) and c.overflow is None
    assert nested_linear_index_int64(s, (0, 4))[0] == 8


def test_delinearize_wraps_an_offset_past_the_padded_size():
    s = shape("f32[3,5]{1,0:T(2,4)}")
    n = padded_elements(s)                      # 2 * 2 * 2 * 4 = 32
    assert n == 32
    assert nested_delinearize_int64(s, n)[0] == nested_delinearize_int64(s, 0)[0]
    assert nested_delinearize_int64(s, n + 9)[0] == (0, 5)
