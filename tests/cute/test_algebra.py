"""CuTe's algebra against the real pycute (nvidia-cutlass), on random
layouts: where both answer, the layouts are the same (shape and stride);
where tilespec refuses, pycute's answer, if it gives one, breaks the
operation's law at some coordinate (so the refusal is not a gap); the known
pycute bugs are recorded, judged by the law.

Where CuTe's construction itself breaks the law (a composition whose modes
of B carry into one another in A; the left inverse of a layout that is not
injective), tilespec refuses with a ``LawError`` while pycute returns that
construction: the refusal's ``construction`` is pycute's answer, and it
breaks the law at the refusal's ``index``."""

import random

import pytest
from cute_strategies import random_layout

from tilespec.cute import Layout, algebra
from tilespec.cute.int_tuple import CuteError, LawError
from tilespec.cute.proofs.claims import enumerate_claim
from tilespec.cute.proofs.laws import OPERATIONS, laws, prove_law, question

pycute = pytest.importorskip("pycute")

TWO = ("composition", "logical_divide", "logical_product")


def theirs(operation, *inputs):
    """pycute's answer as a tilespec Layout; None where pycute fails or
    answers with something that is not a layout (a size 0)."""
    args = [pycute.Layout(x.shape, x.stride) if isinstance(x, Layout) else x for x in inputs]
    try:
        out = getattr(pycute, operation)(*args)
        layout = Layout(out.shape, out.stride)
    except (AssertionError, ZeroDivisionError, CuteError):
        return None
    assert str(layout) == str(out)   # tilespec prints a layout as pycute does
    return layout


def breaks_the_law(operation, inputs, result):
    claims = laws(operation, inputs, result, question(operation, inputs))
    return any(enumerate_claim(c) is not None for c in claims)


def inputs(operation, rng):
    a = random_layout(rng)
    if operation in TWO:
        return (a, random_layout(rng))
    if operation == "complement":
        return (a, rng.randint(1, 300))
    return (a,)


def cases(operation, count, refusals=None):
    """``count`` random inputs, each with tilespec's answer (None where it
    refuses; the refusals appended to ``refusals``): seeded, so every run
    checks the same cases."""
    rng = random.Random(operation)
    for _ in range(count):
        x = inputs(operation, rng)
        try:
            yield x, getattr(algebra, operation)(*x)
        except CuteError as e:
            if refusals is not None:
                refusals.append(e)
            yield x, None


@pytest.mark.parametrize("operation", OPERATIONS)
def test_tilespec_and_pycute_give_the_same_layout(operation):
    compared = 0
    for x, ours in cases(operation, 600):
        pycutes = theirs(operation, *x)
        # pycute also checks divisibility on modes of size 1, where nothing is
        # left to divide: it refuses some admissible compositions
        if ours is not None and pycutes is not None:
            assert ours == pycutes, f"{question(operation, x)}: ours {ours}, pycute {pycutes}"
            compared += 1
    assert compared > 200


@pytest.mark.parametrize("operation", ("composition", "complement", "logical_divide",
                                       "logical_product", "left_inverse"))
def test_where_tilespec_refuses_pycutes_answer_breaks_the_law(operation):
    refused = 0
    refusals: list = []
    for x, ours in cases(operation, 600, refusals):
        if ours is not None:
            continue
        refused += 1
        pycutes = theirs(operation, *x)
        if pycutes is None:
            continue   # pycute fails too
        if isinstance(refusals[-1], LawError):   # pycute returns CuTe's construction
            assert pycutes == refusals[-1].construction, str(refusals[-1])
        try:
            assert breaks_the_law(operation, x, pycutes), (
                f"{question(operation, x)}: tilespec refuses, pycute's {pycutes} keeps the law")
        except CuteError:
            pass   # the law itself needs a complement that does not exist
    assert refused > 20


def test_pycutes_logical_product_by_an_int_is_a_divide_and_breaks_the_law():
    """NVIDIA/cutlass#3478: pycute's logical_product(A, 4) returns
    logical_divide(A, 4).  Ours is proved; pycute's, where it still
    differs, is refuted with a coordinate replayed on ints."""
    a = Layout((2, 5), (5, 1))
    ours = algebra.logical_product(a, 4)
    assert str(ours) == "((2, 5), 4):((5, 1), 10)"
    assert prove_law("logical_product", a, 4).proved
    pycutes = theirs("logical_product", a, 4)
    if pycutes != ours:
        assert pycutes == theirs("logical_divide", a, 4)   # the bug as reported
        r = prove_law("logical_product", a, 4, result=pycutes)
        assert r.status == "refuted"
        ce = r.counterexample
        assert ce.side("result").offset != ce.side("law").offset
        assert pycutes(ce.details["index"]) == ce.side("result").offset


def test_pycute_refuses_admissible_compositions_whose_extra_modes_have_size_1():
    """pycute asserts that B's stride and each mode of A divide one another
    even once all of B is placed; tilespec answers, and the law is proved."""
    a, b = Layout((4, 1, 5), (24, 8, 2)), Layout(((6, 1, 4), 6), ((32, 6, 8), 16))
    assert theirs("composition", a, b) is None
    assert prove_law("composition", a, b).proved


@pytest.mark.parametrize("operation,x,index,construction", [
    ("composition", (Layout((8, 6), (1, 12)), Layout((4, 8), (4, 1))), 17,
     "((2, 2), 8):((4, 12), 1)"),
    ("left_inverse", (Layout(2, 0),), 1, "1:0"),
    ("logical_product", (Layout(5, 24), Layout((2, 4, 3), (12, 2, 6))), 75,
     "(5, (2, 4, 3)):(24, (12, 2, 6))"),
])
def test_pycute_returns_the_construction_tilespec_refuses_and_it_breaks_the_law(
        operation, x, index, construction):
    """Issue 29's cases: pycute returns the layout tilespec refuses (the
    same construction), and the law breaks there at the index the refusal
    names."""
    with pytest.raises(LawError) as refusal:
        getattr(algebra, operation)(*x)
    pycutes = theirs(operation, *x)
    assert str(pycutes) == str(refusal.value.construction) == construction
    assert refusal.value.index == index
    claims = laws(operation, x, pycutes, question(operation, x))
    found = [f for f in map(enumerate_claim, claims) if f is not None]
    assert found and found[0].details["index"] == index
