"""The algebra's laws proved by Z3 for all coordinates: tilespec's answers
are proved, Z3's verdict is the verdict of computing every coordinate, a
wrong answer is refuted at a coordinate that replays, and a solver that
gives up or answers wrongly never makes a proof."""

import random

import pytest
from cute_strategies import random_layout

from tilespec.cute import Layout, algebra
from tilespec.cute.int_tuple import CuteError, LawError
from tilespec.cute.proofs import claims as claims_module
from tilespec.cute.proofs.claims import enumerate_claim
from tilespec.cute.proofs.laws import OPERATIONS, laws, prove_law, question
from tilespec.prover.result import ProverBug

TWO = ("composition", "logical_divide", "logical_product")


def inputs(operation, rng):
    a = random_layout(rng, max_size=5)
    if operation in TWO:
        return (a, random_layout(rng, max_size=5))
    if operation == "complement":
        return (a, rng.randint(1, 200))
    return (a,)


def answered(operation, count, min_size=1):
    """``count`` seeded random inputs that tilespec answers, with answers of
    at least ``min_size`` elements (and, with ``min_size`` > 1, a B whose
    offsets all lie in A's domain, where the law says the most)."""
    rng = random.Random(f"laws {operation}")
    out = []
    while len(out) < count:
        x = inputs(operation, rng)
        try:
            result = getattr(algebra, operation)(*x)
        except CuteError:
            continue
        inside = operation not in ("composition", "logical_divide") or x[1].cosize <= x[0].size
        if result.size >= min_size and (min_size == 1 or inside):
            out.append((x, result))
    return out


def mutant(layout: Layout) -> Layout:
    """The same shape with each stride of a mode of size > 1 one larger: a
    different function."""
    shape, stride = zip(*((s, d + (s > 1)) for s, d in layout.flat()))
    return Layout(shape, stride)


def verdict_by_enumeration(operation, x, result):
    found = [enumerate_claim(c) for c in laws(operation, x, result, question(operation, x))]
    return "refuted" if any(found) else "proved"


@pytest.mark.parametrize("operation", OPERATIONS)
def test_tilespecs_answers_keep_their_law(operation):
    for x, ours in answered(operation, 6):
        r = prove_law(operation, *x)
        assert r.status == "proved", (question(operation, x), r.reason, r.counterexample)
        assert verdict_by_enumeration(operation, x, ours) == "proved"


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_wrong_answer_is_refuted_where_computing_every_coordinate_refutes_it(operation):
    refuted = 0
    for x, ours in answered(operation, 8, min_size=4):
        wrong = mutant(ours)
        r = prove_law(operation, *x, result=wrong)
        assert r.status == verdict_by_enumeration(operation, x, wrong), question(operation, x)
        if r.status == "refuted":
            refuted += 1
            ce = r.counterexample
            assert ce.what.endswith("fails") and ce.sides
    assert refuted >= 4


def test_a_composition_counterexample_names_the_coordinate_and_both_offsets():
    a, b = Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))
    wrong = Layout(((2, 2), 3), ((24, 2), 9))
    r = prove_law("composition", a, b, result=wrong)
    ce = r.counterexample
    i = ce.details["index"]
    assert ce.side("result").offset == wrong(i) != a(b(i)) == ce.side("law").offset
    assert ce.side("result").element == tuple(ce.elements["law"])   # B's coordinate of i
    assert r.to_json()["counterexample"]["what"].startswith("composition")


def test_a_law_beyond_As_domain_is_not_claimed():
    """B(i) past A's domain: CuTe extends A's last mode, and coalescing A
    changes that extension; the law claims only the indices inside."""
    a, b = Layout(1, 1), Layout(6, 4)
    assert str(algebra.composition(a, b)) == "6:0"
    assert prove_law("composition", a, b).proved


def test_a_left_inverse_of_a_layout_that_is_not_injective_is_refuted():
    """tilespec refuses it; the construction the refusal carries (CuTe's,
    pycute's) is refuted by the proof, at the index the refusal names."""
    a = Layout((2, 3), (0, 1))
    with pytest.raises(LawError) as refusal:
        algebra.left_inverse(a)
    r = prove_law("left_inverse", a, result=refusal.value.construction)
    assert r.status == "refuted"
    assert refusal.value.index == 1
    assert refusal.value.construction(a(1)) != 1


@pytest.mark.parametrize("operation,inputs,index", [
    ("composition", (Layout((8, 6), (1, 12)), Layout((4, 8), (4, 1))), 17),
    ("left_inverse", (Layout(2, 0),), 1),
])
def test_a_refused_construction_is_refuted_by_the_proof_too(operation, inputs, index):
    """The two cases of issue 29: prove_law refutes the layout the refusal
    names, and the index it names breaks the law."""
    with pytest.raises(LawError) as refusal:
        getattr(algebra, operation)(*inputs)
    assert refusal.value.index == index
    r = prove_law(operation, *inputs, result=refusal.value.construction)
    assert r.status == "refuted"
    found = [enumerate_claim(c) for c in laws(operation, inputs, refusal.value.construction,
                                               question(operation, inputs))]
    assert next(c for c in found if c).details["index"] == index


def test_an_unknown_solver_answer_is_unknown_never_proved(monkeypatch):
    monkeypatch.setattr(claims_module, "search", lambda f, ctx, t: ("unknown", "gave up"))
    r = prove_law("coalesce", Layout((4, 3), (3, 1)))
    assert r.status == "unknown" and "gave up" in r.reason


def test_a_solver_model_that_does_not_replay_is_a_prover_bug(monkeypatch):
    class Zero:
        def eval(self, x, model_completion=True):
            return type("V", (), {"as_long": lambda self: 0})()
    monkeypatch.setattr(claims_module, "search", lambda f, ctx, t: ("sat", Zero()))
    with pytest.raises(ProverBug):
        prove_law("coalesce", Layout((4, 3), (3, 1)))


def test_an_unknown_operation_is_one_value_error_line():
    with pytest.raises(ValueError, match="unknown CuTe operation 'divide'"):
        prove_law("divide", Layout(4))
