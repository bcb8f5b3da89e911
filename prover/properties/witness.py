"""Deciding a property on one concrete layout as a whole, and replaying
every counterexample on plain Python ints before it is shown.

When the per-stage facts of :mod:`prover.properties.proof` fail (or the solver
gives up on them), the whole layout at concrete dims is decided here: by
enumerating every index (:mod:`prover.properties.exhaustive`) when the domain is small,
else by Z3's search of the whole layout.  A witness from either is replayed
on the concrete evaluator; one that does not replay is a
:class:`~prover.result.ProverBug`, never a verdict.
"""

from __future__ import annotations

from typing import Any

import z3

from ...spec import (
    INT,
    Pad,
    Shape,
    byte_size,
    dims_through,
    evaluate,
    product,
    prt_final_dims,
    prt_offset,
    reshape_index,
    unevaluate,
)
from ..core import Encoding, search
from ..result import Counterexample, ProverBug, Side
from .exhaustive import Undecided, domain_size, enumerate_witness
from .stages_check import combine_stages
from .traced import NotSymbolic, guarded

HOLDS, FAILS, UNDECIDED = "holds", "fails", "undecided"


def _ints(model, enc, terms):
    return [enc.value(model, t) for t in terms]


def replay_offset(stages, shape, element):
    return evaluate(stages, tuple(element), tuple(shape.dims), INT)


def decide_whole(kind: str, shape: Shape, stages, timeout,
                 z3_search: bool = True) -> tuple[str, Any]:
    """(HOLDS, how) | (FAILS, replayed counterexample) | (UNDECIDED, reason)
    for ``kind`` on the concrete ``shape`` run through ``stages``."""
    dims = tuple(shape.dims)
    P = product(dims_through(stages, dims)[-1])
    P_prt = product(prt_final_dims(shape, dims))
    if kind == "in_bounds":
        # inside the pipeline's own size and the spec's buffer, which is
        # computed from the shape alone, never from the stages judged
        P = min(P, P_prt)
    if kind == "formula_equals_prt":
        if P_prt != P:
            return FAILS, Counterexample(
                {}, (Side("formula", value=P), Side("pad_reshape_transpose", value=P_prt)),
                what="the padded sizes differ", details={"dims": list(dims)})
    try:
        found = enumerate_witness(kind, shape, stages, P)
        if found is None:
            return HOLDS, (f"decided by exhaustive enumeration of "
                           f"{domain_size(kind, dims, stages)} indices")
        return FAILS, replay(kind, shape, stages, found, P)
    except Undecided as why:
        if not z3_search:
            return UNDECIDED, str(why)
        not_enumerated = f"not enumerated: {why}"
    found = z3_witness(kind, shape, stages, P, timeout)
    if found is None:
        return HOLDS, "decided by Z3 on the whole layout (unsat)"
    if not isinstance(found, dict):
        return UNDECIDED, f"{not_enumerated}; Z3 on the whole layout: {found}"
    return FAILS, replay(kind, shape, stages, found, P)


def z3_witness(kind: str, shape: Shape, stages, P, timeout):
    """Z3's search of the whole layout at concrete dims: a candidate
    ``{"e", "f", "o"}``, None when there is none, or why it gave up."""
    if kind == "bijective":
        return _z3_stage_witness(shape, stages, timeout)
    try:
        return _z3_witness(kind, shape, guarded(stages), P, timeout)
    except NotSymbolic as err:
        return f"not decided symbolically: {err}"


def _z3_witness(kind: str, shape: Shape, stages, P, timeout):
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    ar = enc.ar
    dims = tuple(shape.dims)

    def offset(x):
        return ar.term(evaluate(stages, x, dims, ar))
    e, f = enc.fresh("e", len(dims)), enc.fresh("f", len(dims))
    o = enc.fresh("o", 1)[0]
    box_e = enc.box(e, dims)
    if kind == "in_bounds":
        formula = z3.And(box_e, z3.Not(z3.And(0 <= offset(e), offset(e) < P)))
    elif kind in ("injective", "packing"):
        formula = z3.And(box_e, enc.box(f, dims), z3.Not(enc.equal(e, f)),
                         offset(e) == offset(f))
        if kind == "packing":
            bits = shape.element_bits
            limit = 8 * byte_size(shape) if bits else 0
            # with the spec's sizes; a broken pipeline may reach beyond them
            formula = z3.Or(formula, z3.And(box_e, (offset(e) + 1) * bits > limit))
    elif kind == "inverse":
        back, valid = unevaluate(stages, o, dims, ar)
        bad_o = z3.And(0 <= o, o < P, ar.term(valid), offset(back) != o)
        off_e = offset(e)
        back_e, valid_e = unevaluate(stages, off_e, dims, ar)
        bad_e = z3.And(box_e, z3.Not(z3.And(0 <= off_e, off_e < P, enc.equal(back_e, e),
                                            ar.term(valid_e))))
        formula = z3.Or(bad_o, bad_e)
    elif kind == "formula_equals_prt":
        formula = z3.And(box_e, offset(e) != ar.term(prt_offset(shape, e, dims, ar)))
    elif kind == "combine_equals_reshape":
        found, missing = combine_stages(shape, stages)
        if missing:
            return (f"the shape combines dims ('*') at level {missing[0]}, but no "
                    "stage there is a combine")
        parts = []
        x, d = tuple(e), dims
        for i, s in enumerate(stages):
            if i in found:
                merged = s.dims(d, INT)
                parts.append(z3.And(enc.box(x, d), z3.Not(enc.equal(
                    s.forward(x, d, ar), reshape_index(x, d, merged, ar)))))
            x, d = s.forward(x, d, ar), s.dims(d, INT)
        formula = z3.And(box_e, z3.Or(parts) if parts else False)
    else:
        raise ValueError(kind)
    if ar.divisors:
        return _divisor_gap(ar.divisors)
    answer, m = search(formula, ctx, timeout)
    if answer == "unknown":
        return m
    if answer == "unsat":
        return None
    return {"e": _ints(m, enc, e), "f": _ints(m, enc, f), "o": enc.value(m, o)}


def replay(kind, shape, stages, found, P) -> Counterexample:
    """Check a witness on plain ints and describe it; ProverBug if it does
    not show the property failing."""
    dims = tuple(shape.dims)
    details = {"dims": list(dims)}
    if kind == "bijective":
        return _replay_stage(shape, stages, found).with_details(**details)
    if kind == "inverse":
        return _replay_inverse(kind, shape, stages, found["e"], found.get("o", 0),
                               P).with_details(**details)
    if kind in ("injective", "packing"):
        a, b = found["e"], found["f"]
        oa, ob = (replay_offset(stages, shape, v) for v in (a, b))
        if a != b and oa == ob and all(0 <= x < n for v in (a, b)
                                       for x, n in zip(v, dims)):
            return Counterexample({}, (Side("first", element=a, offset=oa),
                                       Side("second", element=b, offset=ob)),
                                  what="two elements at one offset", details=details)
        elif kind == "packing":
            bits = shape.element_bits
            if (oa + 1) * bits <= 8 * byte_size(shape):
                raise ProverBug(f"packing witness {a} replays inside the bytes")
            size = byte_size(shape)
            return Counterexample(
                {}, (Side("shape", element=a, offset=oa, byte_offset=oa * bits // 8,
                          bit_offset=oa * bits % 8),),
                what=f"its bits [{oa * bits}, {(oa + 1) * bits}) end past the "
                     f"{size} bytes", details={**details, "byte_size": size,
                                               "bit_range": [oa * bits, (oa + 1) * bits]})
        raise ProverBug(f"{kind} witness {a}, {b} does not replay: {oa}, {ob}")
    if kind == "in_bounds":
        a = found["e"]
        oa = replay_offset(stages, shape, a)
        if 0 <= oa < P:
            raise ProverBug(f"in_bounds witness {a} replays in bounds: {oa}")
        return Counterexample({}, (Side("shape", element=a, offset=oa),),
                              what=f"offset {oa} is outside [0, {P})",
                              details={**details, "padded_size": P})
    if kind == "formula_equals_prt":
        a = found["e"]
        oa, ob = replay_offset(stages, shape, a), prt_offset(shape, a)
        if oa == ob:
            raise ProverBug(f"formula/prt witness {a} replays equal: {oa}")
        return Counterexample({}, (Side("formula", element=a, offset=oa),
                                   Side("pad_reshape_transpose", element=a, offset=ob)),
                              what="the offsets differ", details=details)
    if kind == "combine_equals_reshape":
        a = found["e"]
        merges = combine_stages(shape, stages)[0]
        x, d, found = tuple(a), dims, None
        for i, s in enumerate(stages):
            if i in merges and all(0 <= v < m for v, m in zip(x, d)):
                merged = s.dims(d, INT)
                got, want = s.forward(x, d, INT), reshape_index(x, d, merged)
                if tuple(got) != tuple(want):
                    return Counterexample(
                        {}, (Side("combined", element=got), Side("reshaped", element=want)),
                        what=f"combining dims at stage {i} is not a reshape of element {a}",
                        details={**details, "element": list(a), "stage": i})
            x, d = s.forward(x, d, INT), s.dims(d, INT)
        raise ProverBug(f"combine witness {a} does not replay")
    raise ValueError(kind)


def _z3_stage_witness(shape: Shape, stages, timeout):
    """A stage (not a pad) that is not a bijection between its boxes, as
    ``{"stage", "which", "index"}``; None if every stage is one."""
    dims = dims_through(stages, tuple(shape.dims))
    for i, s in enumerate(stages):
        if type(s) is Pad:
            continue
        try:
            found = _z3_one_stage(shape, guarded(stages)[i], i, dims, timeout)
        except NotSymbolic as err:
            return f"not decided symbolically: {err}"
        if found is not None:
            return found
    return None


def _divisor_gap(divisors) -> str:
    return (f"it divides by {divisors[0]}, not known to be positive (the solver's "
            "division is not Python's there)")


def _z3_one_stage(shape: Shape, s, i, dims, timeout):
    """Stage ``i`` (traced if custom) as a bijection between its boxes: a
    witness, None, or why Z3 gave up."""
    ctx = z3.Context()
    enc = Encoding(shape, ctx)
    ar = enc.ar
    d_in, d_out = dims[i], dims[i + 1]
    e = enc.fresh("e", len(d_in))
    g = enc.fresh("g", len(d_out))
    fe = s.forward(e, d_in, ar)
    be, _ = s.backward(fe, d_in, ar)
    bg, _ = s.backward(g, d_in, ar)
    bad_e = z3.And(enc.box(e, d_in), z3.Not(z3.And(enc.box(fe, d_out),
                                                   enc.equal(be, e))))
    bad_g = z3.And(enc.box(g, d_out), z3.Not(z3.And(
        enc.box(bg, d_in), enc.equal(s.forward(bg, d_in, ar), g))))
    if ar.divisors:
        return _divisor_gap(ar.divisors)
    answer, m = search(z3.Or(bad_e, bad_g), ctx, timeout)
    if answer == "unknown":
        return m
    if answer == "unsat":
        return None
    if z3.is_true(m.eval(bad_e, model_completion=True)):
        return {"stage": i, "which": "e", "index": _ints(m, enc, e)}
    return {"stage": i, "which": "g", "index": _ints(m, enc, g)}


def _replay_stage(shape: Shape, stages, found) -> Counterexample:
    dims = dims_through(stages, tuple(shape.dims))
    i, v = found["stage"], list(found["index"])
    s, d_in, d_out = stages[i], dims[i], dims[i + 1]

    def inside(x, d):
        return all(0 <= a < n for a, n in zip(x, d))
    if found["which"] == "e":
        f_e = list(s.forward(tuple(v), d_in, INT))
        b_e = list(s.backward(tuple(f_e), d_in, INT)[0])
        if inside(v, d_in) and not (inside(f_e, d_out) and b_e == v):
            return Counterexample(
                {}, (Side("index", element=tuple(v)), Side("forward", element=tuple(f_e)),
                     Side("backward_of_forward", element=tuple(b_e))),
                what=f"stage {i} ({s.name}) is not a bijection of its box {list(d_in)}",
                details={"stage": i, "stage_name": s.name, "box": list(d_in)})
    else:
        b_g = list(s.backward(tuple(v), d_in, INT)[0])
        f_b = list(s.forward(tuple(b_g), d_in, INT))
        if inside(v, d_out) and not (inside(b_g, d_in) and f_b == v):
            return Counterexample(
                {}, (Side("index", element=tuple(v)), Side("backward", element=tuple(b_g)),
                     Side("forward_of_backward", element=tuple(f_b))),
                what=f"stage {i} ({s.name}) is not a bijection onto its box {list(d_out)}",
                details={"stage": i, "stage_name": s.name, "box": list(d_out)})
    raise ProverBug(f"bijective witness at stage {i} does not replay")


def _replay_inverse(kind, shape, stages, elem, ov, P):
    dims = tuple(shape.dims)
    oe = evaluate(stages, tuple(elem), dims, INT)
    back, valid = unevaluate(stages, oe, dims, INT) if 0 <= oe < P else (None, False)
    if tuple(elem) != back or not valid:
        if all(0 <= x < n for x, n in zip(elem, dims)):
            return Counterexample(
                {}, (Side("element", element=elem, offset=oe),
                     Side("located", element=None if back is None or not valid else back,
                          offset=oe)),
                what=f"offset {oe} of element {tuple(elem)} locates "
                     + ("padding" if not valid else f"{back}"),
                details={"located_is_padding": not valid})
    back, valid = unevaluate(stages, ov, dims, INT)
    again = evaluate(stages, back, dims, INT)
    if again != ov and (valid or kind == "bijective"):
        return Counterexample(
            {}, (Side("offset", offset=ov), Side("located", element=back, offset=again)),
            what=f"offset {ov} locates {tuple(back)}, whose offset is {again}",
            details={"located_is_padding": not valid})
    raise ProverBug(f"{kind} witness (element {elem}, offset {ov}) does not replay")
