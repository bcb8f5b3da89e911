"""User functions at the edges: rank 0, divmod and abs, odd return values
and exceptions are a verdict or one clear UserFunctionError, never a crash."""

import pytest

from tilespec.prover.userfn import UserFunctionError, check_offset_function
from tilespec.spec.text import parse_array_shape as shape


@pytest.mark.parametrize("text", ["f32[]", "f32[]{:}", "f32[]{:T(128)}", "s4[]{:E(4)}"])
def test_rank_0_function_is_checked(text):
    assert check_offset_function(lambda: 0, shape(text), timeout=5).status == "proved"
    r = check_offset_function(lambda: 1, shape(text), timeout=5)
    assert r.status == "refuted"
    yours = r.counterexample.side("yours")
    assert yours.element == () and yours.offset == 1


def test_divmod_and_abs_are_python_semantics():
    def f(i, j):
        q, r = divmod(i * 5 + j, 5)
        return abs(q) * 5 + abs(r)
    assert check_offset_function(f, shape("f32[3,5]{1,0}"), timeout=5).status == "proved"

    def g(i, j, m, n):
        q, r = divmod(j, n)
        return abs(i) * n + r + q * 0
    assert check_offset_function(g, shape("f32[m,n]{1,0}"), timeout=5).status == "proved"


def test_rdivmod_and_abs_of_a_difference():
    # abs(j - n) = n - j on the box; divmod(7, n) on a symbolic n
    def f(i, j, m, n):
        return i * n + (n - abs(j - n)) + divmod(7, n)[0] * 0
    assert check_offset_function(f, shape("f32[m,n]{1,0}"), timeout=5).status == "proved"


@pytest.mark.parametrize("value", ["x", None, [1], 1 + 2j])
@pytest.mark.parametrize("text", ["f32[3,5]{1,0}", "f32[m,n]{1,0}"])
def test_non_integer_return_is_bad_input(value, text):
    with pytest.raises(UserFunctionError, match="not an integer"):
        check_offset_function(lambda i, j: value, shape(text), timeout=5)


@pytest.mark.parametrize("text", ["f32[3,5]{1,0}", "f32[m,n]{1,0}"])
def test_exception_in_the_function_is_bad_input(text):
    def f(i, j):
        return i.no_such_attribute
    with pytest.raises(UserFunctionError, match="AttributeError"):
        check_offset_function(f, shape(text), timeout=5)
