"""The mixed-radix lemma is machine-checked for every rank: a base case,
one induction step over uninterpreted functions, and the unfolding of the
spec's own code; a broken piece is not proved."""

import pytest
import z3

import tilespec.prover.core.lemma as lemma
from tilespec.spec.index import linear_index


def test_base_case_and_induction_step_are_proved():
    assert lemma.base_case().proved
    assert lemma.induction_step().proved
    assert lemma.step_lemma().proved      # rank 2 directly: a cross-check


@pytest.mark.parametrize("rank", range(0, 9))
def test_every_rank_is_covered(rank):
    assert lemma.mixed_radix(rank).proved


def test_unfolding_checks_the_spec_code(monkeypatch):
    # A column-major linear_index does not unfold as the step assumes.
    def column_major(e, d, ar):
        return linear_index(tuple(reversed(tuple(e))), tuple(reversed(tuple(d))), ar)
    monkeypatch.setattr(lemma, "linear_index", column_major)
    assert not lemma.unfolding.__wrapped__(3).proved
    assert lemma.unfolding.__wrapped__(3).status == "refuted"


def test_rank_one_is_not_an_unfolding_of_rank_zero():
    # delinearise keeps the whole quotient in the most major entry, so the
    # base case covers rank 1 itself
    with pytest.raises(ValueError):
        lemma.unfolding.__wrapped__(1)


def test_a_rank_is_not_proved_without_the_step(monkeypatch):
    monkeypatch.setattr(lemma, "induction_step",
                        lambda: lemma.Lemma("step", "unknown: timeout", 0.0))
    r = lemma.mixed_radix.__wrapped__(4)
    assert not r.proved and "step" in r.status


def test_a_claim_with_contradictory_hypotheses_is_not_a_proof():
    ctx = z3.Context()
    x = z3.Int("x", ctx)
    r = lemma._all("demo", 0.0, ctx, [z3.Implies(z3.And(x > 1, x < 0), x == 7)])
    assert r.status.startswith("vacuous")


def test_the_step_needs_its_hypothesis():
    # Without the rank k-1 facts the step is not provable: it is not
    # vacuous or trivially true.
    ctx = z3.Context()
    H = z3.DeclareSort("Index", ctx)
    lin = z3.Function("lin", H, z3.IntSort(ctx))
    h = z3.Const("h", H)
    A, B, x = z3.Ints("A B x", ctx)
    # range at rank k without the range at rank k-1
    claim = z3.Implies(z3.And(A >= 0, B >= 0, 0 <= x, x < B),
                       z3.And(0 <= lin(h) * B + x, lin(h) * B + x < A * B))
    assert lemma._prove(ctx, claim) == "refuted"
