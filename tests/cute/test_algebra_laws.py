"""Every answer of CuTe's algebra keeps its operation's law at every index,
or the call is refused: never a layout that is silently wrong.  The law of
each operation is :func:`tilespec.cute.proofs.laws.laws`, decided here by
computing every index (:func:`enumerate_claim`); the refusal is a
:class:`CuteError` (a ``ValueError``), a :class:`LawError` where CuTe's own
construction breaks the law."""

import pytest
from cute_strategies import algebra_layouts, carrying_compositions
from hypothesis import HealthCheck, given, settings, strategies as st

from tilespec.cute import Layout, algebra
from tilespec.cute.int_tuple import CuteError, LawError
from tilespec.cute.proofs.claims import enumerate_claim
from tilespec.cute.proofs.laws import OPERATIONS, laws, question

TWO = ("composition", "logical_divide", "logical_product")


def inputs(operation):
    a = algebra_layouts()
    if operation in TWO:
        return st.tuples(a, algebra_layouts())
    if operation == "complement":
        return st.tuples(a, st.integers(1, 300))
    return st.tuples(a)


def first_break(operation, x, result):
    """The first failure of the law of ``operation(*x) == result``, or None."""
    claims = laws(operation, x, result, question(operation, x))
    return next((f for f in map(enumerate_claim, claims) if f is not None), None)


def keeps_its_law_or_is_refused(operation, x):
    try:
        result = getattr(algebra, operation)(*x)
    except LawError as e:
        assert "\n" not in str(e) and str(e).startswith(operation)
        if e.construction is not None:   # the layout refused does break the law
            assert first_break(operation, x, e.construction) is not None, str(e)
        return "refused"
    except CuteError as e:
        assert "\n" not in str(e)
        return "refused"
    failure = first_break(operation, x, result)
    assert failure is None, f"{question(operation, x)} = {result}: {failure.what}"
    return "answered"


def check_every_answer(operation, examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(inputs(operation))
    def check(x):
        keeps_its_law_or_is_refused(operation, x)
    check()


@pytest.mark.parametrize("operation", OPERATIONS)
def test_every_answer_keeps_its_law_or_is_refused(operation):
    check_every_answer(operation, 100)


@pytest.mark.slow
@pytest.mark.parametrize("operation", OPERATIONS)
def test_thousands_of_answers_keep_their_law_or_are_refused(operation):
    check_every_answer(operation, 3000)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(carrying_compositions())
def test_compositions_whose_modes_may_carry_keep_the_law_or_are_refused(x):
    assert keeps_its_law_or_is_refused("composition", x) in ("answered", "refused")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(carrying_compositions(), st.tuples(algebra_layouts(), algebra_layouts())))
def test_a_composition_refused_beyond_the_checked_size_breaks_the_law_at_the_index_named(x):
    """With no index computed one by one, the refusal names the index
    where B's modes carry (``carrying_index``), and the law breaks there."""
    saved = algebra.CHECKED
    algebra.CHECKED = 0
    try:
        algebra.composition(*x)
    except LawError as e:
        a, b = x
        assert "not checked" not in str(e), str(e)
        i = e.index
        assert b(i) < a.size and e.construction(i) != a(b(i)), str(e)
    except CuteError:
        pass
    finally:
        algebra.CHECKED = saved


def test_a_composition_whose_modes_carry_is_refused_at_the_first_index_that_breaks_the_law():
    """Issue 29: B's modes 4:4 and 8:1 both place digits in A's mode 8:1
    (4 + 4 = 8 at i=17), where A carries into its mode of stride 12."""
    a, b = Layout((8, 6), (1, 12)), Layout((4, 8), (4, 1))
    with pytest.raises(LawError, match=r"^composition\(\(8, 6\):\(1, 12\), \(4, 8\):\(4, 1\)\): "
                       r"B's modes carry .* breaks the law at i=17: it gives 8 where "
                       r"A\(B\(17\)\) is 12$") as refusal:
        algebra.composition(a, b)
    assert refusal.value.construction == Layout(((2, 2), 8), ((4, 12), 1))
    assert refusal.value.index == 17


def test_the_left_inverse_of_a_layout_that_is_not_injective_is_refused():
    """Issue 29: 2:0 maps 0 and 1 to 0; no layout takes 0 back to both."""
    with pytest.raises(LawError, match=r"^left_inverse\(2:0\): 2:0 is not injective .* "
                       r"breaks the law at c=1: L\(A\(1\)\) is 0$") as refusal:
        algebra.left_inverse(Layout(2, 0))
    assert refusal.value.construction == Layout(1, 0) and refusal.value.index == 1


def test_a_product_made_of_a_carrying_composition_is_refused():
    """A product is a composition ``C o B`` (C a complement of A): where
    B's modes carry in C, the refusal names the product, and its layout
    breaks the product's law at the index named."""
    x = (Layout(5, 24), Layout((2, 4, 3), (12, 2, 6)))
    with pytest.raises(LawError, match=r"^logical_product\(5:24, .* its composition\(") as refusal:
        algebra.logical_product(*x)
    assert refusal.value.index == 75
    failure = first_break("logical_product", x, refusal.value.construction)
    assert failure is not None and failure.details["index"] == 75


def test_a_refusal_is_one_value_error_line():
    with pytest.raises(ValueError) as refusal:
        algebra.composition(Layout((8, 6), (1, 12)), Layout((4, 8), (4, 1)))
    assert "\n" not in str(refusal.value)
