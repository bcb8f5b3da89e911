"""The conversion between two layouts, proved equal to the pad-reshape-transpose
copy ``to_physical(from_physical(buffer, A), B)``.

The closed form (:mod:`tilespec.codegen.convert`) sends offset ``o`` of A's
buffer to ``offset_B(locate_A(o))`` when ``locate_A`` finds an element there.
The copy through the second definition moves element ``e`` from
``prt_offset(A, e)`` to ``prt_offset(B, e)`` (:mod:`tilespec.spec.prt`,
built from :func:`tilespec.spec.prt.prt_levels`, never from the stages).
They are the same data movement when A's formula equals its PRT offset
and A's locate inverts A's offset, and B's formula equals its PRT offset
(three properties of :mod:`tilespec.prover.properties.proof`, composed); failing
that, when, in one Z3 query (``unsat`` of the negation):

* every element's PRT place in A holds an element for the closed form, which
  sends it to the element's PRT place in B; and
* every position of A that the closed form reads (``locate_A`` finds an
  element) is that element's PRT place: the closed form moves nothing else.

A failure is replayed with Python integers before it is shown.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> prove_convert(shape("f32[3,5]{1,0:T(2,2)}"), shape("f32[3,5]{0,1:T(4)}")).status
'proved'
"""

from __future__ import annotations

import time

import z3

from ...codegen import check_pair
from ...spec import (
    Shape,
    concrete_dims,
    evaluate,
    format_shape,
    locate,
    offset,
    padded_elements,
    prt_offset,
    shape_pipeline,
    unevaluate,
)
from ..core import DEFAULT_TIMEOUT, Encoding, Facts
from ..properties import prove
from ..result import PROVED, REFUTED, UNKNOWN, Counterexample, ProverBug, Result, Side


def _replay(a: Shape, b: Shape, e) -> Counterexample | None:
    """A disagreement at element ``e`` with Python integers, or None."""
    dims = concrete_dims(a)
    if not all(0 <= x < d for x, d in zip(e, dims)):
        return None
    src = prt_offset(a, tuple(e))
    element = locate(a, src)
    closed = offset(b, element) if element is not None else None
    via_prt = prt_offset(b, tuple(e))
    if closed == via_prt and offset(a, tuple(e)) == src:
        return None
    return Counterexample(
        {}, (Side("source", element=e, offset=src, shape=format_shape(a)),
             Side("closed_form", element=e, offset=closed, shape=format_shape(b)),
             Side("pad_reshape_transpose", element=e, offset=via_prt, shape=format_shape(b))),
        what=f"the closed form writes element {tuple(e)} at {closed} in B, "
             f"pad-reshape-transpose at {via_prt}")


#: The properties whose proofs make the conversion the PRT copy.
COMPOSED = (("A", "formula_equals_prt"), ("A", "inverse"), ("B", "formula_equals_prt"))


def _composed(a: Shape, b: Shape, timeout: float):
    """The conversion from three proved properties, or None.

    The closed form reads ``prt_A(e) = offset_A(e)`` (A's formula_equals_prt),
    finds ``locate_A(offset_A(e)) = e`` there (A's inverse) and writes it at
    ``offset_B(e) = prt_B(e)`` (B's formula_equals_prt); it reads nothing
    else, since every non-padding ``o`` is ``offset_A(locate_A(o))`` (A's
    inverse again).
    """
    steps = []
    for side, prop in COMPOSED:
        r = prove(a if side == "A" else b, prop, timeout=timeout)
        if r.status != PROVED:
            return None
        steps.append(f"{prop} of {side} ({r.shape}): proved")
    return tuple(steps) + ("so the closed form reads each element at its PRT place "
                           "in A and writes it at its PRT place in B, and reads "
                           "nothing else",)


def prove_convert(a: Shape, b: Shape, *, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Is the closed-form conversion A -> B the PRT copy?  See the module."""
    start = time.perf_counter()
    check_pair(a, b)
    steps = _composed(a, b, timeout)
    if steps is not None:
        return Result(f"{format_shape(a)} -> {format_shape(b)}",
                      "conversion = to_physical(from_physical(., A), B)", PROVED,
                      time.perf_counter() - start, "concrete", steps=steps, shapes=(a, b))
    ctx = z3.Context()
    enc = Encoding(a, ctx)
    ar = enc.ar
    dims = concrete_dims(a)
    facts = Facts(ctx, list(enc.assumptions), timeout)
    e = enc.fresh("e", a.rank)
    box = enc.box(e, dims)
    pa, pb = prt_offset(a, e, dims, ar), prt_offset(b, e, dims, ar)
    loc, valid = unevaluate(shape_pipeline(a), pa, dims, ar)
    dest = evaluate(shape_pipeline(b), loc, dims, ar)
    facts.fact("each element moves from its PRT place in A to its PRT place in B",
               z3.And(box, z3.Not(z3.And(ar.term(valid),
                                         ar.term(dest) == ar.term(pb)))))
    (o,) = enc.fresh("o", 1)
    loc2, valid2 = unevaluate(shape_pipeline(a), o, dims, ar)
    facts.fact("a position of A the closed form reads is an element's PRT place",
               z3.And(o >= 0, o < padded_elements(a), ar.term(valid2),
                      z3.Not(z3.And(enc.box(loc2, dims),
                                    ar.term(prt_offset(a, loc2, dims, ar)) == o))))
    status, detail = facts.check()
    text = f"{format_shape(a)} -> {format_shape(b)}"
    what = "conversion = to_physical(from_physical(., A), B)"

    def done(st, **kw):
        return Result(text, what, st, time.perf_counter() - start, "concrete",
                      steps=facts.steps(), **kw, shapes=(a, b))

    if status == "proved":
        return done(PROVED)
    if status == "unknown":
        return done(UNKNOWN, reason=str(detail))
    failed, model = detail
    if any("PRT place in B" in f for f in failed):
        ce = _replay(a, b, [enc.value(model, x) for x in e])
    else:
        pos = enc.value(model, o)
        el = locate(a, pos)
        ce = None if el is None else _replay(a, b, el)
        if ce is not None:
            ce = ce.with_details(position=pos)
    if ce is None:
        raise ProverBug(f"conversion facts {failed} fail for {text} but nothing replays")
    return done(REFUTED, counterexample=ce)
