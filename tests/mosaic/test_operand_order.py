"""XLA's operand layout against Mosaic's memref layout, for every shape
(tilespec.mosaic.operand_order): the shipped claims are proved, a wrong
condition is refuted with a counterexample that replays on the concrete
evaluator, the lemma fails with a wrong rule, and the solver's rule is the
one the model runs."""

import pytest
import z3

from tilespec.mosaic import operand_order as oo
from tilespec.mosaic.memref import tiling_factor, tiling_factor_in
from tilespec.mosaic.operand_order import (
    OPERAND_CLAIMS,
    NotInFamily,
    OperandOrder,
    prove_operand_order,
    witness,
)
from tilespec.mosaic.order import pallas_order
from tilespec.mosaic.proofs import CLAIMS, claim_scope, prove_claim
from tilespec.mosaic.rank_one_order import (
    RANK_ONE_CLAIMS,
    RankOneOrder,
    prove_rank_one_order,
    rank_one_witness,
)
from tilespec.mosaic.vector_layout import SolverOps
from tilespec.spec import offset, parse_array_shape


def _some_slow(claims, fast):
    """Each claim, those past the first ``fast`` under ``slow`` (the docs'
    ``tilespec pallas-order --claims`` proves every one in the integration run)."""
    return [pytest.param(c, id=c.name, marks=() if k < fast else pytest.mark.slow)
            for k, c in enumerate(claims)]


#: pytorch/xla#8732's T(128) first: it and XLA's default f32 tiling run every time.
FIRST = sorted(OPERAND_CLAIMS, key=lambda c: c.tiling != "T(128)")


@pytest.mark.parametrize("claim", _some_slow(FIRST, 2))
def test_the_shipped_operand_claims_are_proved_for_every_shape(claim):
    assert claim.name in CLAIMS
    r = prove_claim(claim.name)
    assert r.status == "proved", r
    assert r.scope == claim_scope(claim.name) and "all m, n >= 1" in r.scope


@pytest.mark.parametrize("claim", OPERAND_CLAIMS, ids=lambda c: c.name)
def test_each_claims_condition_is_where_the_evaluator_finds_one_order(claim):
    # the concrete evaluator, every element, on small shapes either side of
    # the thresholds: no solver
    for m in (*range(1, 10), 31, 32, 33, 64):
        for n in (128, 129, 160):
            agree = witness(claim.element_type, claim.tiling, claim.chip, (m, n)) is None
            assert agree == claim.holds(m, n), (m, n)


def test_a_condition_that_claims_too_much_is_refuted_at_an_element_that_replays():
    r = prove_operand_order(OperandOrder("f32", "T(8,128)", "v5e", "m >= 4 or n <= 128"))
    assert r.status == "refuted"
    ce = r.counterexample
    m, n = ce.dim_values["m"], ce.dim_values["n"]
    assert m == 4 and n > 128      # Mosaic tiles 4 rows T(4,128): only m >= 5 gets T(8,128)
    src, dst = ce.sides
    xla = parse_array_shape(src.shape)
    mosaic = parse_array_shape(dst.shape)
    assert str(dst.shape).endswith("{1,0:T(4,128)}")
    assert offset(xla, src.element) == src.offset != dst.offset == offset(mosaic, dst.element)


def test_a_condition_that_claims_too_little_is_refuted_with_every_element_agreeing():
    r = prove_operand_order(OperandOrder("f32", "T(8,128)", "v5e", "m >= 8 or n <= 128"))
    assert r.status == "refuted"
    m, n = r.counterexample.dim_values["m"], r.counterexample.dim_values["n"]
    assert 5 <= m < 8 and n > 128
    assert witness("f32", "T(8,128)", "v5e", (m, n)) is None


def test_the_lemma_fails_with_a_wrong_condition(monkeypatch):
    # a mutant of the lemma's condition (no row count asked): Z3 must find
    # a shape where the orders agree though the mutant says they do not
    monkeypatch.setattr(oo, "agrees", lambda ops, a, m, n, t, chip: n <= 128)
    r = oo.prove_order_lemma(OperandOrder("f32", "T(8,128)", "v5e", "n <= 128"))
    assert r.status == "refuted" and r.counterexample.dim_values["n"] > 128


def test_pytorch_xla_8732_is_element_0_128_at_two_offsets():
    a = pallas_order(parse_array_shape("f32[16,3072]{1,0:T(128)S(1)}"), "v5e")
    assert a.lemma.status == "proved"
    w = a.here
    assert (w.element, w.xla_offset, w.mosaic_offset) == ((0, 128), 128, 1024)
    assert w.mosaic == "f32[16,3072]{1,0:T(8,128)}"


def test_the_rule_on_solver_terms_is_the_rule_the_model_runs():
    ctx = z3.Context()
    m, n = z3.Int("m", ctx), z3.Int("n", ctx)
    for gen, bits in ((3, 32), (5, 32), (5, 16), (5, 8), (6, 4), (5, 2)):
        rows = tiling_factor_in(SolverOps(z3), m, gen, bits, minor=n)
        for mv in (*range(1, 34), 64, 96, 128, 256):
            for nv in (1, 32, 256):
                got = z3.simplify(z3.substitute(rows, (m, z3.IntVal(mv, ctx)),
                                                (n, z3.IntVal(nv, ctx))))
                assert got.as_long() == tiling_factor(mv, gen, bits, minor=nv), (gen, bits, mv, nv)


@pytest.mark.parametrize("element_type,tiling", [("bf16", "T(8,128)"), ("f32", "T(8,128)(2,1)"),
                                                 ("f32", "T(8,256)"), ("bf16", "T(128)(2,1)")])
def test_a_tiling_outside_the_claims_is_refused_in_one_line(element_type, tiling):
    with pytest.raises(NotInFamily, match="the claims cover"):
        OperandOrder(element_type, tiling, "v5e", "n <= 128")


def test_a_condition_not_in_m_and_n_is_refused():
    with pytest.raises(NotInFamily, match="is not like"):
        OperandOrder("f32", "T(8,128)", "v5e", "k >= 5")


def test_layouts_that_differ_only_in_size_are_not_said_to_differ_in_order():
    # f32[3,100]: XLA's T(8,128) and Mosaic's T(4,128) place every element
    # alike (n <= 128, the lemma); only XLA's buffer has 4 more padding rows
    from tilespec.mosaic import compare_layouts
    xla, mosaic = (parse_array_shape(t) for t in ("f32[3,100]{1,0:T(8,128)}",
                                                  "f32[3,100]{1,0:T(4,128)}"))
    assert witness("f32", "T(8,128)", "v5e", (3, 100)) is None
    m = compare_layouts(xla, mosaic)
    assert "another order" not in m.sentence
    assert m.sentence.startswith("XLA's buffer is 4,096 bytes and Mosaic's 2,048")


@pytest.mark.parametrize("claim", _some_slow(RANK_ONE_CLAIMS[::-1], 1))
def test_the_rank_one_claims_are_proved_and_the_evaluator_agrees(claim):
    assert prove_claim(claim.name).status == "proved"
    for n in (1, 128, 129, 256, 257, 1024, 1025, 3000):
        assert rank_one_witness(claim, n) is None, n


def test_a_rank_one_tile_of_too_few_rows_is_refuted_at_an_element_that_replays():
    # s8 groups 4 rows of 128 lanes: XLA's T(256) holds 2, Mosaic's at least 4
    r = prove_rank_one_order(RankOneOrder("s8", "T(256)(128)(4,1)", "v5e"))
    assert r.status == "refuted"
    src, dst = r.counterexample.sides
    assert offset(parse_array_shape(src.shape), src.element) == src.offset
    assert offset(parse_array_shape(dst.shape), dst.element) == dst.offset != src.offset
