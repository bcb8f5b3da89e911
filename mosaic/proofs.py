"""Claims about Mosaic's layouts proved for every shape with Z3: XLA's
operand layout is in the order of Mosaic's memref layout exactly when a
condition on the dims holds (:mod:`.operand_order`, :data:`OPERAND_CLAIMS`;
rank 1: for every length, :mod:`.rank_one_order`),
and, for every vector layout, ``equivalentTo`` is an equivalence (reflexive, symmetric,
transitive) and a relayout between equivalent valid layouts moves no data
(every element sits at the same vreg, sublane position and lane in both),
asked of layouts with no replicated offset and the same implicit dims
(:func:`claim_scope` says what each claim covers).
Each claim is decided on the one definition :func:`.vector_layout.generalizes_in`
runs in Python, here over Z3 terms; ``unsat`` of the negation is "proved",
a model is replayed on the Python layouts before it is called "refuted".

>>> CLAIMS[:2]
('equivalence is reflexive', 'equivalence is symmetric')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..prover.core import DEFAULT_TIMEOUT, search
from ..prover.result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result
from .operand_order import OPERAND_CLAIMS, prove_operand_order
from .rank_one_order import RANK_ONE_CLAIMS, RankOneOrder, prove_rank_one_order
from .vector_layout import (
    TARGET_SHAPE,
    Fields,
    ImplicitDim,
    SolverOps,
    VectorLayout,
    generalizes_in,
    implicit_tiled,
)

__all__ = ["CLAIMS", "OPERAND_CLAIMS", "ORDER_CLAIMS", "VECTOR_CLAIMS", "claim_scope", "prove_claim"]

#: Bit widths Mosaic lays out in vregs.
BITWIDTHS = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class _Symbolic:
    fields: Fields
    valid: object


def _layout(z3, ctx, name: str, target=TARGET_SHAPE) -> _Symbolic:
    """A layout of free fields, and the formula that it is valid
    (``isValid``) with a power-of-2 bitwidth and positive tiling."""
    i = lambda n: z3.Int(f"{name}_{n}", ctx)  # noqa: E731
    b = lambda n: z3.Bool(f"{name}_{n}", ctx)  # noqa: E731
    f = Fields(i("bits"), b("rep0"), i("off0"), b("rep1"), i("off1"), i("tile0"), i("tile1"),
               b("second"), b("minor"))
    packing = z3.Int(f"{name}_packing", ctx)
    tpv = z3.Int(f"{name}_tiles_per_vreg", ctx)
    sublanes = z3.Int(f"{name}_sublanes", ctx)
    valid = z3.And(
        z3.Or([z3.And(f.bits == w, packing == 32 // w) for w in BITWIDTHS]),
        f.tile0 >= 1, f.tile1 >= 1, f.tile0 <= 4096, f.tile1 <= 4096,
        # tilesPerVreg is whole (Mosaic CHECKs it)
        tpv >= 1, tpv * f.tile0 * f.tile1 == packing * target[0] * target[1],
        z3.Or(f.replicated0, z3.And(0 <= f.offset0, f.offset0 < f.tile0)),
        z3.Or(f.replicated1, z3.And(0 <= f.offset1, f.offset1 < tpv * f.tile1)),
        # each tile a whole number of sublanes dividing the vreg's
        sublanes * packing * target[1] == f.tile0 * f.tile1,
        z3.Or([sublanes == d for d in range(1, target[0] + 1) if target[0] % d == 0]))
    return _Symbolic(f, valid)


def _equivalent(ops, a: Fields, b: Fields, dims):
    return ops.and_(generalizes_in(ops, a, b, dims), generalizes_in(ops, b, a, dims))


def _place(z3, f: Fields, tpv, packing, r, c, target=TARGET_SHAPE):
    """Where element (r, c) of the value's implicit 2-d view lies: (vreg
    row, vreg column, position in the vreg) -- the tile within the vreg
    slice, then row-major inside the tile (the order ``tileDataBounds`` and
    ``vregSlice`` of layout.h describe)."""
    o0 = z3.If(f.replicated0, 0, f.offset0)
    o1 = z3.If(f.replicated1, 0, f.offset1)
    rr, cc = r + o0, c + o1
    vs1 = tpv * f.tile1
    tile_in_vreg = (cc % vs1) / f.tile1
    pos = tile_in_vreg * f.tile0 * f.tile1 + (rr % f.tile0) * f.tile1 + (cc % vs1) % f.tile1
    return rr / f.tile0, cc / vs1, pos


def _claim_formula(z3, ctx, name: str):
    """(the negation of claim ``name``, the symbolic layouts, the dims)."""
    ops = SolverOps(z3)
    a, b, c = (_layout(z3, ctx, n) for n in ("a", "b", "c"))
    d2, d1 = z3.Int("rows", ctx), z3.Int("cols", ctx)
    dims = (d2, d1)
    shape_ok = z3.And(d2 >= 1, d1 >= 1)
    if name == "equivalence is reflexive":
        return z3.And(a.valid, shape_ok, z3.Not(_equivalent(ops, a.fields, a.fields, dims))), \
            (a,), dims
    if name == "equivalence is symmetric":
        return z3.And(a.valid, b.valid, shape_ok, _equivalent(ops, a.fields, b.fields, dims),
                      z3.Not(_equivalent(ops, b.fields, a.fields, dims))), (a, b), dims
    if name in ("equivalence is transitive", "equivalence is transitive on one implicit dim"):
        same = z3.BoolVal(True, ctx)
        if name.endswith("one implicit dim"):
            same = z3.And([getattr(x.fields, k) == getattr(a.fields, k) for x in (b, c)
                           for k in ("second_implicit", "minor_implicit")])
        return z3.And(a.valid, b.valid, c.valid, shape_ok, same,
                      _equivalent(ops, a.fields, b.fields, dims),
                      _equivalent(ops, b.fields, c.fields, dims),
                      z3.Not(_equivalent(ops, a.fields, c.fields, dims))), (a, b, c), dims
    if name == "a relayout between equivalent layouts moves no data":
        r, col = z3.Int("r", ctx), z3.Int("c", ctx)
        fa, fb = a.fields, b.fields
        tpa, tpb = z3.Int("a_tiles_per_vreg", ctx), z3.Int("b_tiles_per_vreg", ctx)
        pa, pb = z3.Int("a_packing", ctx), z3.Int("b_packing", ctx)
        # the element's two minor indices, in each layout's implicit view (same
        # implicit dims: Mosaic inserts them identically)
        return z3.And(a.valid, b.valid, shape_ok, fa.second_implicit == fb.second_implicit,
                      fa.minor_implicit == fb.minor_implicit,
                      z3.Not(fa.replicated0), z3.Not(fa.replicated1), z3.Not(fb.replicated0),
                      z3.Not(fb.replicated1),
                      _equivalent(ops, fa, fb, dims),
                      0 <= r, r < implicit_tiled(ops, fa, dims)[0],
                      0 <= col, col < implicit_tiled(ops, fa, dims)[1],
                      z3.Or([x != y for x, y in zip(_place(z3, fa, tpa, pa, r, col),
                                                    _place(z3, fb, tpb, pb, r, col))])), \
            (a, b), dims
    raise KeyError(name)


#: The claims about vector layouts, by name, each for every layout and every shape.
VECTOR_CLAIMS = ("equivalence is reflexive", "equivalence is symmetric",
                 "equivalence is transitive", "equivalence is transitive on one implicit dim",
                 "a relayout between equivalent layouts moves no data")
#: Every claim: those and XLA's operand layouts against Mosaic's memref
#: layouts (:mod:`.operand_order`), each for every shape.
#: The claims about XLA's operand layouts, rank 2 then rank 1.
ORDER_CLAIMS = OPERAND_CLAIMS + RANK_ONE_CLAIMS
CLAIMS = VECTOR_CLAIMS + tuple(c.name for c in ORDER_CLAIMS)
_OPERAND = {c.name: c for c in ORDER_CLAIMS}


def claim_scope(name: str) -> str:
    """What claim ``name`` was proved for: the hypotheses its negation was
    asked under, beyond validity.

    >>> claim_scope("equivalence is symmetric")
    'all valid vector layouts and all shapes'
    """
    if name in _OPERAND:
        return _OPERAND[name].scope
    if name == "a relayout between equivalent layouts moves no data":
        # the negation asks only these (without them Z3 answers unknown in 60 s)
        return ("all valid vector layouts with no replicated offset and the same "
                "implicit dims, and all shapes")
    if name == "equivalence is transitive on one implicit dim":
        return "all valid vector layouts with the same implicit dims, and all shapes"
    return "all valid vector layouts and all shapes"


def _concrete(model, sym: _Symbolic, z3) -> VectorLayout:
    f = sym.fields
    v = lambda t: model.eval(t, model_completion=True)  # noqa: E731
    num = lambda t: v(t).as_long()  # noqa: E731
    yes = lambda t: z3.is_true(v(t))  # noqa: E731
    implicit = {(False, False): ImplicitDim.NONE, (True, False): ImplicitDim.SECOND_MINOR,
                (False, True): ImplicitDim.MINOR,
                (True, True): ImplicitDim.MINOR_AND_SECOND_MINOR}
    return VectorLayout(num(f.bits), (None if yes(f.replicated0) else num(f.offset0),
                                      None if yes(f.replicated1) else num(f.offset1)),
                        (num(f.tile0), num(f.tile1)),
                        implicit[(yes(f.second_implicit), yes(f.minor_implicit))])


def _replays(name: str, layouts, shape) -> bool:
    """The counterexample holds of the Python layouts (the claims Z3
    refutes are only the transitivity ones: the others have no replay)."""
    if name.startswith("equivalence is transitive"):
        a, b, c = layouts
        return (all(v.is_valid() for v in layouts) and a.equivalent_to(b, shape)
                and b.equivalent_to(c, shape) and not a.equivalent_to(c, shape))
    return False  # a model of the relayout claim is a wrong encoding: ProverBug


def prove_claim(name: str, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Prove claim ``name`` (one of :data:`CLAIMS`) for all layouts and shapes.

    >>> prove_claim(CLAIMS[-1]).status
    'proved'
    """
    import z3

    if name not in CLAIMS:
        raise KeyError(f"no such claim: {name!r}; one of {', '.join(CLAIMS)}")
    claim = _OPERAND.get(name)
    if isinstance(claim, RankOneOrder):
        return prove_rank_one_order(claim, timeout)
    if claim is not None:
        return prove_operand_order(claim, timeout)
    start = time.perf_counter()
    ctx = z3.Context()
    negation, layouts, dims = _claim_formula(z3, ctx, name)
    answer, detail = search(negation, ctx, timeout)
    seconds = time.perf_counter() - start
    scope = claim_scope(name)
    if answer == "unsat":
        return Result("VectorLayout", name, PROVED, seconds, scope=scope)
    if answer == "unknown":
        return Result("VectorLayout", name, UNKNOWN, seconds, scope=scope, reason=detail)
    concrete = [_concrete(detail, s, z3) for s in layouts]
    shape = tuple(detail.eval(d, model_completion=True).as_long() for d in dims)
    if not _replays(name, concrete, shape):
        raise ProverBug(f"the counterexample to {name!r} does not replay: {concrete} {shape}")
    ce = Counterexample({"rows": shape[0], "cols": shape[1]}, (), what=f"{name} fails",
                        details={chr(ord("a") + i): str(v) for i, v in enumerate(concrete)})
    return Result("VectorLayout", name, REFUTED, seconds, scope=scope, counterexample=ce)
